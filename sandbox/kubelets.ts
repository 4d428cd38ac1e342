/**
 * Simulated kubelets: for every machine of the simulated cloud, a Node registered the way a kubelet started with
 * `--cloud-provider=external` registers it (the uninitialized taint, a Hostname address, a Ready condition), and
 * a Ready condition that follows the machine: True while it runs, Unknown once it is stopped or gone (as the
 * node lifecycle of kube-controller-manager would mark it), and a node Lease renewed while it runs
 * (node-leases.ts).
 *
 * It talks to the API through the same `KubeClient` as the controllers, so it works against the emulator and a
 * real API server alike. Writes happen only when a machine appears or its readiness changes, plus a heartbeat
 * every `heartbeatMs` and a Lease renewal every `leaseRenewMs`, so a steady sandbox stays quiet.
 */
import type { ConsolaInstance } from "consola";
import { isAlreadyExists, isNotFound, type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node, NodeCondition } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { formatCIDR, parseCIDR } from "../net/cidr.ts";
import type { CloudState } from "./cloud/state.ts";
import type { Machine } from "./cloud/types.ts";
import { createNodeLease, deleteNodeLease, NODE_LEASE_RENEW_MS, renewNodeLease } from "./node-leases.ts";

export interface KubeletsOptions {
  readonly client: KubeClient;
  readonly cloud: CloudState;
  readonly logger: ConsolaInstance;
  /** How often each Ready node's heartbeat is written; default 40s. */
  readonly heartbeatMs?: number;
  /** How often each running node's Lease is renewed; default 10s (a quarter of its 40s duration, as a kubelet). */
  readonly leaseRenewMs?: number;
  /** How often machine states are compared with the nodes; default 1s. */
  readonly pollMs?: number;
  /**
   * Give nodes `spec.podCIDRs` from SANDBOX_CLUSTER_CIDR, as kube-controller-manager's IPAM would: one IPv4 /24
   * each, and an IPv6 /64 after it (dual stack) for a machine that has an IPv6 address.
   */
  readonly assignPodCIDRs?: boolean;
  readonly now?: () => Date;
  readonly signal: AbortSignal;
}

type Readiness = "True" | "Unknown";

export interface Kubelets {
  /** Resolves when every machine present at start has a Node. */
  readonly registered: Promise<void>;
  /** Resolves when the loop has stopped (after the signal aborts). */
  readonly done: Promise<void>;
}

export function startKubelets(opts: KubeletsOptions): Kubelets {
  const now = opts.now ?? (() => new Date());
  const heartbeatMs = opts.heartbeatMs ?? 40_000;
  const pollMs = opts.pollMs ?? 1000;
  const leaseRenewMs = opts.leaseRenewMs ?? NODE_LEASE_RENEW_MS;
  const known = new Map<string, { readiness: Readiness; beat: number; lease: number; uid: string | undefined }>();
  let cidrIndex = 0;

  const register = async (machine: Machine): Promise<void> => {
    const node = registrationOf(machine, now(), opts.assignPodCIDRs ? podCIDRsOf(machine, cidrIndex++) : undefined);
    let uid: string | undefined;
    try {
      uid = (await opts.client.create(Resources.nodes, node)).metadata?.uid;
      opts.logger.info(`kubelet: registered node ${machine.name}`);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      uid = (await opts.client.get<Node>(Resources.nodes, machine.name)).metadata?.uid;
    }
    await createNodeLease(opts.client, { name: machine.name, uid }, now());
    known.set(machine.name, { readiness: "True", beat: now().getTime(), lease: now().getTime(), uid });
  };

  const setReadiness = async (name: string, readiness: Readiness): Promise<void> => {
    const at = now().toISOString();
    const condition: NodeCondition =
      readiness === "True"
        ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }
        : {
            type: "Ready",
            status: "Unknown",
            reason: "NodeStatusUnknown",
            message: "Kubelet stopped posting node status.",
          };
    const body = { status: { conditions: [{ ...condition, lastHeartbeatTime: at, lastTransitionTime: at }] } };
    try {
      await opts.client.patch(Resources.nodes, name, "strategic", body, { subresource: "status" });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      known.delete(name); // the node was deleted (by the lifecycle controller); forget it
      await deleteNodeLease(opts.client, name);
      return;
    }
    const prev = known.get(name);
    if (prev?.readiness !== readiness) opts.logger.info(`kubelet: node ${name} Ready=${readiness}`);
    known.set(name, { readiness, beat: now().getTime(), lease: prev?.lease ?? 0, uid: prev?.uid });
  };

  const renewLease = async (name: string): Promise<void> => {
    const state = known.get(name);
    if (!state || now().getTime() - state.lease < leaseRenewMs) return;
    await renewNodeLease(opts.client, { name, uid: state.uid }, now());
    state.lease = now().getTime();
  };

  const tick = async (): Promise<void> => {
    const machines = allMachines(opts.cloud);
    const byName = new Map(machines.map((m) => [m.name, m]));
    for (const m of machines) if (!known.has(m.name)) await register(m);
    for (const [name, state] of known) {
      const m = byName.get(name);
      const want: Readiness = m?.state === "running" ? "True" : "Unknown";
      const due = want === "True" && now().getTime() - state.beat >= heartbeatMs;
      if (want !== state.readiness || due) await setReadiness(name, want);
      // A stopped machine's kubelet is dead: its Lease stops moving.
      if (want === "True") await renewLease(name);
    }
  };

  const registered = (async () => {
    for (const m of allMachines(opts.cloud)) await register(m);
  })();

  const done = (async () => {
    await registered;
    while (!opts.signal.aborted) {
      await sleep(pollMs, opts.signal);
      if (opts.signal.aborted) break;
      try {
        await tick();
      } catch (err) {
        opts.logger.warn(`kubelet: ${(err as Error).message}`);
      }
    }
  })();
  return { registered, done };
}

function allMachines(cloud: CloudState): Machine[] {
  const out: Machine[] = [];
  for (let page: number | null = 1; page !== null; ) {
    const answer = cloud.listMachines({ page, perPage: 500 });
    out.push(...answer.machines);
    page = answer.pagination.nextPage;
  }
  return out;
}

/**
 * The Node a kubelet with `--cloud-provider=external` creates for this machine; `podCIDRs` as IPAM assigned them
 * (one, or an IPv4 and an IPv6 one for dual stack; the first is `spec.podCIDR`).
 */
export function registrationOf(
  machine: Pick<Machine, "id" | "name"> & Partial<Machine>,
  at: Date,
  podCIDRs?: string | readonly string[],
): Node {
  const time = at.toISOString();
  const cidrs = podCIDRs === undefined ? [] : typeof podCIDRs === "string" ? [podCIDRs] : [...podCIDRs];
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: machine.name,
      labels: {
        "kubernetes.io/hostname": machine.name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
      },
    },
    spec: {
      taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }],
      ...(cidrs.length > 0 ? { podCIDR: cidrs[0], podCIDRs: cidrs } : {}),
    },
    status: {
      addresses: [{ type: "Hostname", address: machine.name }],
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          message: "kubelet is posting ready status",
          lastHeartbeatTime: time,
          lastTransitionTime: time,
        },
      ],
      nodeInfo: {
        architecture: "amd64",
        bootID: "",
        containerRuntimeVersion: "sandbox://1.0",
        kernelVersion: "6.1.0-sandbox",
        kubeProxyVersion: "",
        kubeletVersion: "v1.32.0-sandbox",
        machineID: machine.id,
        operatingSystem: "linux",
        osImage: "Sandbox Linux",
        systemUUID: machine.id,
      },
    },
  };
}

const IPV6_PODS = parseCIDR("fd00:10:128::/48");

/** The `i`-th node's pod CIDRs: its IPv4 /24, then its IPv6 /64 when the machine has an IPv6 address. */
export function podCIDRsOf(machine: Pick<Machine, "addresses">, i: number): string[] {
  const ipv4 = `10.${128 + (i >> 8)}.${i & 255}.0/24`;
  const dualStack = machine.addresses.some((a) => a.type !== "Hostname" && a.address.includes(":"));
  if (!dualStack) return [ipv4];
  const ipv6 = { family: 6, network: IPV6_PODS.network + (BigInt(i) << 64n), prefix: 64 } as const;
  return [ipv4, formatCIDR(ipv6)];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
