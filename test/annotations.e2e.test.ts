/**
 * End to end, the annotation toolkit: compiled managers, a Service whose annotations the provider refuses.
 * - sandbox (all-in-one against the sandbox's API emulator and simulated cloud): several invalid annotations give
 *   ONE Warning event naming every annotation and value (retries count on it); once fixed, the load balancer in
 *   the simulated cloud carries the options, and the PROXY protocol shows as the ingress's ipMode.
 * - metal (its own executable against the API emulator in this process; metal needs no cloud): the same for an
 *   unreadable kube-vip annotation, and a kube-vip annotation that disagrees with spec.loadBalancerIP wins for good,
 *   with a Warning event, and is never rewritten.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { KubeVipAnnotations, MetalAnnotations } from "../providers/metal/annotations.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { lbService, SERVICE_CONTROLLERS } from "./scenarios/services.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

const ns = { namespace: "default" };

async function service(client: KubeClient, name: string): Promise<Service> {
  return client.get<Service>(Resources.services, name, ns);
}

/** The Service's Warning events of one reason, once there is one whose `count` reached `count`. */
async function warnings(
  client: KubeClient,
  name: string,
  reason: string,
  count: number,
  said: () => string,
): Promise<Event[]> {
  let found: Event[] = [];
  await poll(
    async () => {
      const events = await client.list<Event>(Resources.events, { fieldSelector: `involvedObject.name=${name}` });
      found = events.items.filter((e) => e.type === "Warning" && e.reason === reason);
      return found.some((e) => (e.count ?? 1) >= count);
    },
    { timeoutMs: 60_000, message: `${reason} on ${name} counted ${count} times; manager said:\n${said()}` },
  );
  return found;
}

describe("sandbox annotations, compiled", () => {
  let sandbox: Sandbox;
  let manager: RunningProcess;
  const said = () => manager?.output() ?? "";

  beforeAll(async () => {
    sandbox = await startSandbox({ nodes: 2 });
    manager = await sandbox.startManager([SERVICE_CONTROLLERS]);
  }, 120_000);

  afterAll(async () => {
    await sandbox?.stop();
  });

  const bad = {
    "sandbox.ccm.dev/load-balancer-algorithm": "fastest",
    "sandbox.ccm.dev/load-balancer-health-check-interval": "10",
    "sandbox.ccm.dev/load-balancer-allowed-cidrs": "10.0.0.0/8,banana",
    "sandbox.ccm.dev/load-balancer-protocols": "8443=https",
  };

  test("several invalid annotations give one Warning event naming every annotation and value", async () => {
    const svc = lbService("tuned", (s) => {
      s.metadata!.annotations = { ...bad, "sandbox.ccm.dev/load-balancer-proxy-protocol": "true" };
    });
    await sandbox.client.create(Resources.services, svc, ns);
    // A second attempt (after the back-off) proves retries count on the one event instead of adding more.
    const found = await warnings(sandbox.client, "tuned", "SyncLoadBalancerFailed", 2, said);
    expect(found).toHaveLength(1);
    const message = found[0]?.message ?? "";
    expect(message).toContain("sandbox/load-balancers.ensure default/tuned: 4 invalid annotations: ");
    for (const [key, value] of Object.entries(bad)) expect(message).toContain(`${key}=${JSON.stringify(value)}`);
    expect(message).not.toContain("proxy-protocol");
    const uid = (await service(sandbox.client, "tuned")).metadata?.uid;
    expect((await sandbox.cloud.loadBalancers()).filter((lb) => lb.serviceUID === uid)).toEqual([]);
  }, 90_000);

  test("once fixed, the load balancer carries the options and the ingress says Proxy", async () => {
    const fixed = {
      "sandbox.ccm.dev/load-balancer-algorithm": "least-connections",
      "sandbox.ccm.dev/load-balancer-health-check-interval": "10s",
      "sandbox.ccm.dev/load-balancer-allowed-cidrs": "10.0.0.0/8,2001:db8::/32",
      "sandbox.ccm.dev/load-balancer-protocols": "http=http",
    };
    await sandbox.client.patch(Resources.services, "tuned", "merge", { metadata: { annotations: fixed } }, ns);
    await poll(async () => (await service(sandbox.client, "tuned")).status?.loadBalancer?.ingress !== undefined, {
      timeoutMs: 60_000,
      message: `an ingress on tuned; manager said:\n${said()}`,
    });
    const svc = await service(sandbox.client, "tuned");
    const lb = (await sandbox.cloud.loadBalancers()).find((l) => l.serviceUID === svc.metadata?.uid);
    expect(lb?.options).toEqual({
      algorithm: "least-connections",
      healthCheck: { intervalMs: 10_000, retries: 3 },
      proxyProtocol: true,
      allowedCIDRs: ["10.0.0.0/8", "2001:db8::/32"],
      portProtocols: { "80": "http" },
    });
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: lb?.address ?? "", ipMode: "Proxy" }]);
    const events = await sandbox.events("tuned");
    expect(events.filter((e) => e.type === "Warning").map((e) => e.reason)).toEqual(["SyncLoadBalancerFailed"]);
  }, 90_000);
});

describe("metal annotations, compiled", () => {
  let api: ApiServer;
  let client: KubeClient;
  let dir = "";
  let manager: RunningProcess | undefined;
  const said = () => manager?.output() ?? "";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ccm-annotations-"));
    api = await startApiServer({});
    const files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "metal.yaml") };
    await api.writeKubeconfig(files.kubeconfig);
    await writeFile(files.cloudConfig, "loadBalancer:\n  global: { addresses: [192.0.2.0/24] }\n", { mode: 0o600 });
    client = createKubeClient(loadTransport({ kubeconfig: files.kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
    const machine = { id: "m-0", name: "node-1", providerID: "", zone: "", region: "", instanceType: "" };
    await client.create(Resources.nodes, registrationOf({ ...machine, addresses: [], state: "running" }, new Date()));
    const flags = ["--controllers=cloud-node,service"];
    manager = spawnCollecting(await managerCommand(files, flags, { provider: "metal", clusterCIDR: "" }));
  }, 120_000);

  afterAll(async () => {
    manager?.proc.kill("SIGKILL");
    await manager?.exited;
    await api?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const asking = (name: string, ips: string, loadBalancerIP?: string) =>
    lbService(name, (s) => {
      s.metadata!.annotations = { [KubeVipAnnotations.loadBalancerIPs]: ips };
      if (loadBalancerIP) s.spec!.loadBalancerIP = loadBalancerIP;
    });
  const ingressOf = async (name: string) =>
    ((await service(client, name)).status?.loadBalancer?.ingress ?? []).map((i) => i.ip);

  test("an unreadable kube-vip annotation gives one Warning event naming every bad address; fixed, it is served", async () => {
    await client.create(Resources.services, asking("bad", "192.0.2.x, 192.0.2.300"), ns);
    const found = await warnings(client, "bad", "SyncLoadBalancerFailed", 2, said);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toContain(
      'metal/load-balancers.ensure default/bad: 1 invalid annotation: kube-vip.io/loadbalancerIPs="192.0.2.x, 192.0.2.300": not an IPv4 or IPv6 address: "192.0.2.x", "192.0.2.300"',
    );
    const fixed = { [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.20" };
    await client.patch(Resources.services, "bad", "merge", { metadata: { annotations: fixed } }, ns);
    await poll(async () => (await ingressOf("bad")).join() === "192.0.2.20", {
      timeoutMs: 60_000,
      message: `192.0.2.20 on bad; manager said:\n${said()}`,
    });
  }, 90_000);

  test("the kube-vip annotation wins over spec.loadBalancerIP for good, with a Warning event, and is not rewritten", async () => {
    await client.create(Resources.services, asking("both", "192.0.2.30", "192.0.2.31"), ns);
    await poll(async () => (await ingressOf("both")).join() === "192.0.2.30", {
      timeoutMs: 60_000,
      message: `192.0.2.30 on both; manager said:\n${said()}`,
    });
    // Another sync (any annotation change makes one) must keep the annotation's address.
    const touch = { metadata: { annotations: { "example.com/touched": "yes" } } };
    await client.patch(Resources.services, "both", "merge", touch, ns);
    const found = await warnings(client, "both", "ConflictingAddressRequest", 2, said);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toContain(
      'kube-vip.io/loadbalancerIPs ("192.0.2.30") and spec.loadBalancerIP ("192.0.2.31")',
    );
    const svc = await service(client, "both");
    expect(await ingressOf("both")).toEqual(["192.0.2.30"]);
    expect(svc.metadata?.annotations).toMatchObject({
      [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.30",
      [MetalAnnotations.allocatedIPs]: "192.0.2.30",
    });
    expect(svc.metadata?.annotations?.[MetalAnnotations.kubeVipEcho]).toBeUndefined();
  }, 90_000);
});
