/**
 * LoadBalancer: the name rule, ensure (status shape, idempotence, one load balancer), update (hosts only), and
 * delete (then gone; a missing one is success).
 */
import type { LoadBalancerStatus, Node, Service } from "../../../kube/objects.ts";
import type { LoadBalancer } from "../../cloud.ts";
import { answer, must, show } from "../contract.ts";
import { isIPAddress, loadBalancerService, nodeByProviderID } from "../fixtures.ts";
import type { ArrangedLoadBalancer, Check, CheckContext } from "../types.ts";

function lb(t: CheckContext): LoadBalancer {
  const api = t.provider.loadBalancer;
  must(api !== undefined, "provider.loadBalancer disappeared between reads; a capability must not change");
  return api;
}

async function hosts(t: CheckContext, count: number): Promise<Node[]> {
  const out: Node[] = [];
  for (let i = 0; i < count; i++) out.push(nodeByProviderID(await t.arrange.createMachine({ name: t.uniqueName() })));
  return out;
}

const svcName = (s: Service) => `${s.metadata?.namespace}/${s.metadata?.name}`;

function ensure(t: CheckContext, service: Service, nodes: readonly Node[]): Promise<LoadBalancerStatus> {
  return answer(`loadBalancer.ensureLoadBalancer(${svcName(service)})`, () =>
    lb(t).ensureLoadBalancer(t.ctx, t.clusterName, service, nodes),
  );
}

function get(t: CheckContext, service: Service): Promise<LoadBalancerStatus | undefined> {
  return answer(`loadBalancer.getLoadBalancer(${svcName(service)})`, () =>
    lb(t).getLoadBalancer(t.ctx, t.clusterName, service),
  );
}

function remove(t: CheckContext, service: Service, when: string): Promise<void> {
  return answer(`loadBalancer.ensureLoadBalancerDeleted(${svcName(service)}) ${when}`, () =>
    lb(t).ensureLoadBalancerDeleted(t.ctx, t.clusterName, service),
  );
}

/** At least one ingress, each with an IP address or a host name. */
function mustHaveShape(what: string, status: LoadBalancerStatus | undefined): asserts status is LoadBalancerStatus {
  must(status !== undefined && status !== null, `${what} must return a status; got ${show(status)}`);
  const ingress = status.ingress ?? [];
  must(ingress.length > 0, `${what} must report at least one ingress point (the Service's external address)`);
  for (const i of ingress) {
    must(
      (i.ip !== undefined && isIPAddress(i.ip)) || (i.hostname !== undefined && i.hostname !== ""),
      `${what}: every ingress needs an IP address or a host name; got ${show(i)}`,
    );
  }
}

/** The addresses of a status, in order, for comparing what two calls report. */
const points = (s: LoadBalancerStatus | undefined) => (s?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? "");

async function listed(t: CheckContext): Promise<readonly ArrangedLoadBalancer[]> {
  return answer("arrange.listLoadBalancers", () => t.arrange.listLoadBalancers!());
}

/** The load balancers in `after` that were not in `before`. */
const added = (before: readonly ArrangedLoadBalancer[], after: readonly ArrangedLoadBalancer[]) =>
  after.filter((a) => !before.some((b) => b.name === a.name));

const sorted = (xs: readonly string[]) => [...xs].sort();
const names = (nodes: readonly Node[]) => sorted(nodes.map((n) => n.metadata?.name ?? ""));

export const loadBalancerChecks: readonly Check[] = [
  {
    id: "loadBalancer/name",
    capability: "loadBalancer",
    title: "getLoadBalancerName is non-empty, within the length limit, stable, and distinct per Service",
    async run(t) {
      const a = loadBalancerService(t.uniqueName());
      const b = loadBalancerService(t.uniqueName());
      const nameOf = (s: Service) => lb(t).getLoadBalancerName(t.ctx, t.clusterName, s);
      const first = nameOf(a);
      must(typeof first === "string" && first !== "", `getLoadBalancerName must be non-empty; got ${show(first)}`);
      must(
        first.length <= t.maxLoadBalancerNameLength,
        `getLoadBalancerName must be at most ${t.maxLoadBalancerNameLength} characters; got ${first.length} (${show(first)})`,
      );
      const changed = { ...a, spec: { ...a.spec, ports: [{ name: "other", port: 8443, protocol: "TCP" }] } };
      must(
        nameOf(a) === first && nameOf(changed) === first,
        "getLoadBalancerName must be stable for the Service's lifetime, also when its ports change",
      );
      must(nameOf(b) !== first, `two Services (different UIDs) must not share the load-balancer name ${show(first)}`);
    },
  },
  {
    id: "loadBalancer/get-missing",
    capability: "loadBalancer",
    title: "getLoadBalancer answers undefined (not an error) for a Service that has none",
    async run(t) {
      const status = await get(t, loadBalancerService(t.uniqueName()));
      must(status === undefined, `getLoadBalancer must be undefined before any ensure; got ${show(status)}`);
    },
  },
  {
    id: "loadBalancer/ensure",
    capability: "loadBalancer",
    title: "ensureLoadBalancer returns a status with an IP or host name, and getLoadBalancer then reports it",
    async run(t) {
      const service = loadBalancerService(t.uniqueName());
      const status = await ensure(t, service, await hosts(t, 2));
      mustHaveShape("ensureLoadBalancer", status);
      const got = await get(t, service);
      mustHaveShape("getLoadBalancer after ensureLoadBalancer", got);
      must(
        Bun.deepEquals(points(got), points(status)),
        `getLoadBalancer reports ${show(points(got))} but ensureLoadBalancer returned ${show(points(status))}`,
      );
    },
  },
  {
    id: "loadBalancer/ensure-idempotent",
    capability: "loadBalancer",
    title: "ensureLoadBalancer twice with the same arguments returns the same status",
    async run(t) {
      const service = loadBalancerService(t.uniqueName());
      const nodes = await hosts(t, 2);
      const first = await ensure(t, service, nodes);
      const second = await ensure(t, service, nodes);
      must(
        Bun.deepEquals(first, second),
        `ensureLoadBalancer must be idempotent: first ${show(first)}, then ${show(second)}`,
      );
    },
  },
  {
    id: "loadBalancer/ensure-creates-one",
    capability: "loadBalancer",
    title: "two ensures leave exactly one load balancer in the cloud, with the Service's port and the given hosts",
    needs: ["listLoadBalancers"],
    async run(t) {
      const service = loadBalancerService(t.uniqueName(), 8080);
      const nodes = await hosts(t, 2);
      const before = await listed(t);
      await ensure(t, service, nodes);
      await ensure(t, service, nodes);
      const created = added(before, await listed(t));
      must(created.length === 1, `two ensures must leave one new load balancer; the cloud has ${created.length} new`);
      const [one] = created as [ArrangedLoadBalancer];
      must(one.ports.includes(8080), `the load balancer must serve port 8080; it serves ${show(one.ports)}`);
      must(
        Bun.deepEquals(sorted(one.hosts), names(nodes)),
        `the load balancer's hosts must be ${show(names(nodes))}; got ${show(sorted(one.hosts))}`,
      );
    },
  },
  {
    id: "loadBalancer/update-hosts",
    capability: "loadBalancer",
    title: "updateLoadBalancer changes the hosts and nothing else (ports, status, count)",
    needs: ["listLoadBalancers"],
    async run(t) {
      const service = loadBalancerService(t.uniqueName());
      const [a, b, c] = (await hosts(t, 3)) as [Node, Node, Node];
      const before = await listed(t);
      await ensure(t, service, [a, b]);
      const [made] = added(before, await listed(t));
      must(made !== undefined, "ensureLoadBalancer must create a load balancer the cloud lists");
      const status = await get(t, service);
      await answer("loadBalancer.updateLoadBalancer", () =>
        lb(t).updateLoadBalancer(t.ctx, t.clusterName, service, [b, c]),
      );
      const after = await listed(t);
      const now = after.find((x) => x.name === made.name);
      must(now !== undefined, `updateLoadBalancer must keep the load balancer ${show(made.name)}`);
      must(after.length === before.length + 1, "updateLoadBalancer must not create or delete load balancers");
      must(
        Bun.deepEquals(sorted(now.hosts), names([b, c])),
        `updateLoadBalancer must set the hosts to ${show(names([b, c]))}; the cloud has ${show(sorted(now.hosts))}`,
      );
      must(
        Bun.deepEquals(sorted(now.ports.map(String)), sorted(made.ports.map(String))),
        `updateLoadBalancer must change only the hosts; ports went from ${show(made.ports)} to ${show(now.ports)}`,
      );
      const again = await get(t, service);
      must(
        Bun.deepEquals(points(again), points(status)),
        `updateLoadBalancer must not change the status; it went from ${show(points(status))} to ${show(points(again))}`,
      );
    },
  },
  {
    id: "loadBalancer/delete",
    capability: "loadBalancer",
    title: "after ensureLoadBalancerDeleted, getLoadBalancer is undefined, and deleting again succeeds",
    async run(t) {
      const service = loadBalancerService(t.uniqueName());
      const before = t.arrange.listLoadBalancers ? await listed(t) : undefined;
      await ensure(t, service, await hosts(t, 1));
      await remove(t, service, "of an existing load balancer");
      const status = await get(t, service);
      must(status === undefined, `getLoadBalancer must be undefined after the delete; got ${show(status)}`);
      await remove(t, service, "a second time");
      if (before === undefined) return;
      const left = added(before, await listed(t));
      must(left.length === 0, `ensureLoadBalancerDeleted must remove it from the cloud; left ${show(left)}`);
    },
  },
  {
    id: "loadBalancer/delete-missing",
    capability: "loadBalancer",
    title: "ensureLoadBalancerDeleted succeeds for a Service that never had a load balancer",
    async run(t) {
      await remove(t, loadBalancerService(t.uniqueName()), "of a load balancer that never existed");
    },
  },
];
