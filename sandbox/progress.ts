/**
 * What the sandbox prints while it runs: nodes registering and being initialised, load balancers getting their
 * address, nodes going away — read from the API through informers, as a user would see it with kubectl.
 */
import type { ConsolaInstance } from "consola";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import { createInformerFactory } from "../kube/informer-factory.ts";
import type { Node, Service } from "../kube/objects.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import type { LoadBalancerClasses } from "../providers/cloud.ts";
import { servesClass } from "../providers/load-balancer-classes.ts";

export interface ProgressOptions {
  readonly client: KubeClient;
  readonly print: (line: string) => void;
  readonly logger: ConsolaInstance;
  readonly signal: AbortSignal;
  readonly now?: () => number;
  /** The provider's `LoadBalancer.classes`: only the Services it serves wait for an address (default upstream's). */
  readonly classes?: LoadBalancerClasses | undefined;
}

export interface Progress {
  /** Resolves when every node is initialised and every LoadBalancer Service has an address (again after changes). */
  ready(): Promise<void>;
  readonly done: Promise<void>;
}

const initialised = (n: Node) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const ipsOf = (n: Node) => (n.status?.addresses ?? []).filter((a) => a.type !== "Hostname").map((a) => a.address);
/** Where the node has a pod CIDR, the route controller has reported on it. */
const routed = (n: Node) =>
  (n.spec?.podCIDRs ?? []).length === 0 ||
  (n.status?.conditions ?? []).some((c) => c.type === "NetworkUnavailable" && c.status === "False");
/** What a user waits for: initialised, with the cloud's addresses, and routed. */
const nodeReady = (n: Node) => initialised(n) && ipsOf(n).length > 0 && routed(n);
const addressOf = (s: Service) =>
  (s.status?.loadBalancer?.ingress ?? [])
    .map((i) => i.ip ?? i.hostname)
    .filter(Boolean)
    .join(",");

export function watchProgress(opts: ProgressOptions): Progress {
  const now = opts.now ?? Date.now;
  const started = now();
  const isLoadBalancer = (s: Service) => s.spec?.type === "LoadBalancer" && servesClass(s, opts.classes);
  const factory = createInformerFactory({ client: opts.client, logger: opts.logger });
  const nodes = factory.forResource<Node>(Resources.nodes);
  const services = factory.forResource<Service>(Resources.services);
  let waiters: (() => void)[] = [];
  let announced = false;
  /** When the cluster stopped being ready after it first was (a new Service, a new node), or 0. */
  let changedAt = 0;

  const allReady = () => {
    const ns = nodes.list();
    const lbs = services.list().filter(isLoadBalancer);
    return ns.length > 0 && ns.every(nodeReady) && lbs.every((s) => addressOf(s) !== "");
  };
  const check = () => {
    if (!nodes.hasSynced() || !services.hasSynced() || !allReady()) {
      if (announced) changedAt = now();
      announced = false;
      return;
    }
    if (!announced) {
      // The first line times the start; a later one, the change since (it is no slow start).
      const secs = ((now() - (changedAt || started)) / 1000).toFixed(1);
      const lbs = services.list().filter(isLoadBalancer).length;
      const what = `${nodes.list().length} nodes initialised and routed, ${lbs} load balancer(s) with an address`;
      opts.print(changedAt ? `ready again: ${what} (${secs}s after the change)` : `ready: ${what} (${secs}s)`);
      announced = true;
    }
    for (const w of waiters) w();
    waiters = [];
  };

  nodes.addEventHandler({
    onAdd: (n) => {
      opts.print(
        `node ${n.metadata?.name}: registered${initialised(n) ? "" : " (waiting for the cloud controller manager)"}`,
      );
      check();
    },
    onUpdate: (old, cur) => {
      const name = cur.metadata?.name;
      if (!initialised(old) && initialised(cur)) {
        const labels = cur.metadata?.labels ?? {};
        opts.print(
          `node ${name}: initialised ${cur.spec?.providerID ?? ""} zone=${labels[Labels.zone] ?? "?"} type=${labels[Labels.instanceType] ?? "?"}`,
        );
      }
      const ips = ipsOf(cur).join(",");
      if (ips && ips !== ipsOf(old).join(",")) opts.print(`node ${name}: addresses ${ips}`);
      if (!routed(old) && routed(cur))
        opts.print(`node ${name}: route for ${(cur.spec?.podCIDRs ?? []).join(",")} created`);
      const wasShut = (old.spec?.taints ?? []).some((t) => t.key === Taints.shutdown);
      const isShut = (cur.spec?.taints ?? []).some((t) => t.key === Taints.shutdown);
      if (wasShut !== isShut)
        opts.print(`node ${cur.metadata?.name}: ${isShut ? "shut down (tainted)" : "running again"}`);
      check();
    },
    onDelete: (n) => {
      opts.print(`node ${n.metadata?.name}: deleted (its machine is gone)`);
      check();
    },
  });
  services.addEventHandler({
    onAdd: (s) => {
      if (isLoadBalancer(s))
        opts.print(`service ${s.metadata?.namespace}/${s.metadata?.name}: waiting for a load balancer`);
      check();
    },
    onUpdate: (old, cur) => {
      const before = addressOf(old);
      const after = addressOf(cur);
      if (before !== after && after) {
        const ports = (cur.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`).join(",");
        opts.print(`service ${cur.metadata?.namespace}/${cur.metadata?.name}: load balancer ${after} (${ports})`);
      }
      check();
    },
    onDelete: (s) => {
      opts.print(`service ${s.metadata?.namespace}/${s.metadata?.name}: deleted`);
      check();
    },
  });

  factory.start(opts.signal);
  // A cluster already ready when both caches fill gets no event after that: look once they have.
  void Promise.all([nodes.whenSynced(), services.whenSynced()]).then(check);
  const done = factory.stopped();
  return {
    ready: () => {
      if (nodes.hasSynced() && services.hasSynced() && allReady()) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    done,
  };
}
