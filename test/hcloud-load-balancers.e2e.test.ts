/**
 * The migration promise end to end: a load balancer hccm made for a Service (hccm's name and
 * `hcloud-ccm/service-uid` label) is adopted by the compiled `hcloud-cloud-controller-manager` in place — same ID,
 * same IP, nothing deleted or created — gives hccm's load balancer type Warning events, then follows an annotation
 * change, refuses an invalid annotation with a Warning event naming it, and goes when the Service is deleted.
 */
import { expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Event, KubeObject, Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { createLoadBalancer } from "../sandbox/hcloud/state/load-balancers.ts";
import { hcloudManagerCommand, registerNode, useHcloudE2e } from "./support/hcloud.ts";
import { poll, spawnCollecting } from "./support/processes.ts";

const e2e = useHcloudE2e("ccm-hcloud-lb-");
const ns = { namespace: "default" };

const service = (): Service | undefined => {
  try {
    return e2e.api.store.get(Resources.services, "web", ns) as Service;
  } catch {
    return undefined;
  }
};
const lbs = () => [...e2e.world.hcloud.world.loadBalancers.values()];
const until = (what: string, check: () => boolean) =>
  poll(check, { timeoutMs: 90_000, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${e2e.manager?.output().slice(-3000)}`);
  });

test("a load balancer in hccm's shape is adopted in place: same ID, same IP, nothing deleted or created", async () => {
  const servers = ["lb-node-1", "lb-node-2"].map((name) => e2e.world.addServer(name));
  for (const s of servers) await registerNode(e2e.client, s.name);
  await e2e.client.create(
    Resources.services,
    {
      metadata: { name: "web", namespace: "default" },
      spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
    } satisfies Service,
    ns,
  );
  const uid = service()!.metadata!.uid!;
  const nodePort = service()!.spec!.ports![0]!.nodePort!;
  // What hccm left: its name (`a` + the UID without dashes, 32 characters), its label, a TCP listener, the servers.
  const { loadBalancer: before } = createLoadBalancer(e2e.world.hcloud.world, {
    name: `a${uid.replaceAll("-", "")}`.slice(0, 32),
    load_balancer_type: "lb11",
    location: "fsn1",
    labels: { "hcloud-ccm/service-uid": uid },
    services: [{ protocol: "tcp", listen_port: 80, destination_port: nodePort }],
    targets: servers.map((s) => ({ type: "server" as const, server: { id: s.id } })),
  });
  e2e.world.hcloud.calls.reset();

  e2e.manager = spawnCollecting(await hcloudManagerCommand(e2e.kubeconfig), e2e.world.env());
  await until("the Service's ingress", () => (service()?.status?.loadBalancer?.ingress ?? []).length > 0);
  expect(lbs().map((l) => l.id)).toEqual([before.id]);
  expect((service()!.status!.loadBalancer!.ingress ?? []).map((i) => i.ip)).toContain(before.public_net.ipv4.ip);
  const writes = e2e.world.hcloud.calls.writes().map((w) => `${w.method} ${w.path}`);
  expect(writes.filter((w) => /^(POST|DELETE) \/v1\/load_balancers(\/\d+)?$/.test(w))).toEqual([]);
  const initialised = (name: string) =>
    !((e2e.api.store.get(Resources.nodes, name) as Node).spec?.taints ?? []).some(
      (t) => t.key === Taints.uninitialized,
    );
  await until("nodes initialised", () => servers.every((s) => initialised(s.name)));
}, 180_000);

/** Whether the Service `web` has a Warning event with `reason` (hccm's reasons, written by this manager). */
const warned = (reason: string) => () =>
  e2e.api.store
    .list<Event>(Resources.events, ns)
    .items.some(
      (e) =>
        e.type === "Warning" &&
        e.reason === reason &&
        e.involvedObject?.kind === "Service" &&
        e.involvedObject.name === "web" &&
        e.source?.component === "hcloud-cloud-controller-manager",
    );

test("no type annotation and no HCLOUD_LOAD_BALANCERS_TYPE: hccm's LoadBalancerTypeUnconfigured Warning event", async () => {
  await until("a LoadBalancerTypeUnconfigured event on the Service", warned("LoadBalancerTypeUnconfigured"));
}, 120_000);

test("the load balancer's type deprecated: hccm's LoadBalancerTypeDeprecated Warning event", async () => {
  const world = e2e.world.hcloud.world;
  world.loadBalancerTypeDeprecations.set("lb11", {
    announced: "2026-09-01T00:00:00+00:00",
    unavailable_after: "2099-12-01T00:00:00+00:00",
  });
  // Any change makes a sync; naming the type it has changes nothing on the load balancer.
  await e2e.client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "load-balancer.hetzner.cloud/type": "lb11" } } },
    ns,
  );
  await until("a LoadBalancerTypeDeprecated event on the Service", warned("LoadBalancerTypeDeprecated"));
  world.loadBalancerTypeDeprecations.delete("lb11");
}, 120_000);

test("an annotation change is applied to the same load balancer", async () => {
  const id = lbs()[0]!.id;
  await e2e.client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "load-balancer.hetzner.cloud/algorithm-type": "least_connections" } } },
    ns,
  );
  await until("the algorithm changed", () => lbs()[0]?.algorithm.type === "least_connections");
  expect(lbs().map((l) => l.id)).toEqual([id]);
}, 120_000);

test("an invalid annotation is a Warning event naming it and its value; the load balancer is left as it is", async () => {
  const shape = () => JSON.stringify(lbs().map((l) => [l.id, l.services]));
  const before = shape();
  await e2e.client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "load-balancer.hetzner.cloud/health-check-retries": "many" } } },
    ns,
  );
  const named = () =>
    e2e.api.store
      .list<KubeObject & { type?: string; message?: string; note?: string }>(Resources.events, ns)
      .items.some(
        (e) =>
          e.type === "Warning" &&
          `${e.message ?? e.note ?? ""}`.includes("load-balancer.hetzner.cloud/health-check-retries") &&
          `${e.message ?? e.note ?? ""}`.includes("many"),
      );
  await until("a Warning event naming the annotation", named);
  expect(shape()).toBe(before);
}, 120_000);

test("the Service deleted, its load balancer goes", async () => {
  await e2e.client.patch(
    Resources.services,
    "web",
    "json",
    [{ op: "remove", path: "/metadata/annotations/load-balancer.hetzner.cloud~1health-check-retries" }],
    ns,
  );
  await e2e.client.delete(Resources.services, "web", ns);
  await until("no load balancer", () => lbs().length === 0);
  await until("the Service gone", () => service() === undefined);
}, 120_000);
