/**
 * Load balancers end to end on the compiled `scaleway-cloud-controller-manager` with scw CCM's flags and environment,
 * against the API emulator and the Scaleway emulator: a load balancer in scw CCM's shape (its name, tag, frontends
 * and backends, and the `scw-loadbalancer-id` annotation it wrote) is shown as `adopt` by `plan`, then adopted in
 * place — same ID, same IP, no create, no delete; an annotation change is applied to it; an invalid annotation is a
 * Warning event naming it; a new Service gets a load balancer once it is ready, with its IP, and exactly one under
 * 429s and 5xx; deleting the Services removes their load balancers and the IPs they booked.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { callJson } from "../sandbox/kit/testing.ts";
import { type ScalewayEmulator, startScalewayEmulator } from "../sandbox/scaleway/server.ts";
import { createInstanceServer } from "../sandbox/scaleway/state/instance.ts";
import { ACCESS_KEY, SECRET_KEY } from "../sandbox/scaleway/testing.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { runExecutable } from "./support/executables.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";

const A = "service.beta.kubernetes.io/scw-loadbalancer-";
const Z = "/lb/v1/zones/fr-par-1";
const ns = { namespace: "default" };

let api: ApiServer;
let client: KubeClient;
let scw: ScalewayEmulator;
let dir = "";
let manager: RunningProcess | undefined;
let files: { kubeconfig: string; cloudConfig: string };
let env: Record<string, string>;
let adopted: { id: string; ip: string };
const tail = () => manager?.output().slice(-3000) ?? "";
const nodeIPs: string[] = [];

const scwCall = async (method: string, path: string, body?: unknown) => {
  const answer = await callJson(`${scw.endpoint}${path}`, method, { "x-auth-token": SECRET_KEY }, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

const svc = (name: string): Service | undefined => {
  try {
    return api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
const lbs = () => [...scw.world.lb.lbs.values()];
const until = (what: string, check: () => boolean, timeoutMs = 90_000) =>
  poll(check, { timeoutMs, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });

async function createService(name: string, annotations: Record<string, string> = {}): Promise<Service> {
  await client.create(
    Resources.services,
    {
      metadata: { name, namespace: "default", annotations },
      spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
    } satisfies Service,
    ns,
  );
  const made = svc(name);
  if (!made) throw new Error(`Service ${name} was not stored`);
  return made;
}

/** What scw CCM leaves for a Service: its load balancer, a backend and frontend per port, its id annotation. */
async function scwCcmShaped(service: Service) {
  const uid = service.metadata?.uid ?? "";
  const port = service.spec?.ports?.[0];
  const lb = await scwCall("POST", `${Z}/lbs`, {
    name: uid,
    description: `kubernetes service ${service.metadata?.name}`,
    type: "lb-s",
    tags: ["managed-by-scaleway-cloud-controller-manager"],
    project_id: scw.world.defaultProject.id,
  });
  const backend = await scwCall("POST", `${Z}/lbs/${lb.id}/backends`, {
    name: `${uid}_tcp_${port?.nodePort}`,
    forward_protocol: "tcp",
    forward_port: port?.nodePort,
    forward_port_algorithm: "roundrobin",
    sticky_sessions: "none",
    proxy_protocol: "proxy_protocol_none",
    on_marked_down_action: "on_marked_down_action_none",
    timeout_server: "10s",
    timeout_connect: "600s",
    timeout_tunnel: "600s",
    ssl_bridging: false,
    health_check: {
      port: port?.nodePort,
      check_delay: "5s",
      check_timeout: "5s",
      check_max_retries: 5,
      tcp_config: {},
    },
    server_ip: nodeIPs,
  });
  await scwCall("POST", `${Z}/lbs/${lb.id}/frontends`, {
    name: `${uid}_tcp_${port?.port}`,
    inbound_port: port?.port,
    backend_id: backend.id,
    timeout_client: "600s",
  });
  await client.patch(
    Resources.services,
    service.metadata?.name ?? "",
    "merge",
    {
      metadata: { annotations: { [`${A}id`]: `fr-par-1/${lb.id}` } },
    },
    ns,
  );
  return { id: lb.id as string, ip: lb.ip[0].ip_address as string };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-scaleway-lb-"));
  scw = startScalewayEmulator({ secretKey: SECRET_KEY });
  ({ api, client } = await startE2eApiServer(dir));
  files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "scaleway.yaml") };
  await writeFile(join(dir, "secret-key"), `${SECRET_KEY}\n`, { mode: 0o600 });
  await writeFile(files.cloudConfig, "SCW_DEFAULT_REGION: fr-par\nSCW_DEFAULT_ZONE: fr-par-1\n", { mode: 0o600 });
  env = {
    SCW_ACCESS_KEY: ACCESS_KEY,
    SCW_SECRET_KEY_FILE: join(dir, "secret-key"),
    SCW_DEFAULT_PROJECT_ID: scw.world.defaultProject.id,
    SCW_API_URL: scw.endpoint,
    DISABLE_TAGS_SYNC: "true",
  };
  for (const name of ["lb-node-1", "lb-node-2"]) {
    const s = createInstanceServer(scw.world, { name, zone: "fr-par-1" });
    nodeIPs.push(s.publicIps.find((ip) => ip.family === "inet")?.address ?? "");
    await client.create(Resources.nodes, {
      metadata: { name },
      spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
    } satisfies Node);
    await setNodeReady(client, name, "True");
  }
  const web = await createService("web");
  adopted = await scwCcmShaped(web);
}, 240_000);

afterAll(() => tearDown(manager, [api, scw], dir));

test("plan shows scw CCM's load balancer as adopted, and writes nothing", async () => {
  const [path = ""] = await managerCommand(files, [], { provider: "scaleway", clusterCIDR: "" });
  scw.calls.reset();
  const ran = await runExecutable(
    path,
    [
      "plan",
      "--allow-untagged-cloud",
      `--cloud-config=${files.cloudConfig}`,
      `--kubeconfig=${files.kubeconfig}`,
      "-o",
      "json",
    ],
    { env: { PATH: "/usr/bin:/bin", ...env } },
  );
  if (!ran.stdout.trim().startsWith("{"))
    throw new Error(`plan printed no JSON (exit ${ran.code}): ${ran.stdout}${ran.stderr}`);
  const plan = JSON.parse(ran.stdout) as { objects: { kind: string; name: string; writes: { action: string }[] }[] };
  const uid = svc("web")?.metadata?.uid;
  const lb = plan.objects.find((o) => o.kind === "LoadBalancer" && o.name === uid);
  expect({ code: ran.code, lb: lb?.writes.map((w) => w.action) }).toEqual({ code: 2, lb: ["adopt"] });
  expect(scw.calls.writes()).toEqual([]);
}, 120_000);

test("scw CCM's load balancer is adopted in place: same ID, same IP, nothing created or deleted", async () => {
  scw.calls.reset();
  const flags = [
    "--cloud-provider=scaleway",
    "--allow-untagged-cloud",
    "--controllers=cloud-node,cloud-node-lifecycle,service",
  ];
  manager = spawnCollecting(await managerCommand(files, flags, { provider: "scaleway", clusterCIDR: "" }), env);
  await until("the Service's ingress", () => (svc("web")?.status?.loadBalancer?.ingress ?? []).length > 0, 120_000);
  const tag = `ccm-ts/service-uid=${svc("web")?.metadata?.uid}`;
  await until("the load balancer tagged as adopted", () => lbs()[0]?.tags.includes(tag) === true);
  expect(lbs().map((l) => l.id)).toEqual([adopted.id]);
  expect(svc("web")?.status?.loadBalancer?.ingress?.map((i) => i.ip)).toEqual([adopted.ip]);
  const writes = scw.calls.writes().map((w) => `${w.method} ${w.path}`);
  expect(writes.filter((w) => /^(POST|DELETE) \/lb\/v1\/zones\/[^/]+\/lbs(\/[^/]+)?$/.test(w))).toEqual([]);
  const pool = [...scw.world.lb.backends.values()].flatMap((b) => b.pool);
  expect(pool.sort()).toEqual([...nodeIPs].sort());
}, 180_000);

test("an annotation change is applied to the same load balancer", async () => {
  await client.patch(
    Resources.services,
    "web",
    "merge",
    {
      metadata: { annotations: { [`${A}forward-port-algorithm`]: "leastconn" } },
    },
    ns,
  );
  await until("the algorithm changed", () =>
    [...scw.world.lb.backends.values()].every((b) => b.fields.forward_port_algorithm === "leastconn"),
  );
  expect(lbs().map((l) => l.id)).toEqual([adopted.id]);
}, 120_000);

test("an invalid annotation is a Warning event naming it and its value", async () => {
  await client.patch(
    Resources.services,
    "web",
    "merge",
    {
      metadata: { annotations: { [`${A}health-check-max-retries`]: "many" } },
    },
    ns,
  );
  const named = () =>
    api.store
      .list<Event & { note?: string }>(Resources.events, ns)
      .items.some(
        (e) =>
          e.type === "Warning" &&
          `${e.message ?? e.note ?? ""}`.includes(`${A}health-check-max-retries`) &&
          `${e.message ?? e.note ?? ""}`.includes("many"),
      );
  await until("a Warning event naming the annotation", named);
}, 120_000);

test("a new Service gets a load balancer, pending then ready, with its IP", async () => {
  scw.world.lb.readyAfterMs = 3000;
  const fresh = await createService("api", { [`${A}flexible-ip-types`]: "ipv4,ipv6" });
  const uid = fresh.metadata?.uid;
  await until(
    "the new Service's ingress",
    () => (svc("api")?.status?.loadBalancer?.ingress ?? []).length === 2,
    120_000,
  );
  const made = lbs().find((l) => l.name === uid);
  expect(made).toBeDefined();
  const ips = [...scw.world.lb.ips.values()].filter((ip) => ip.lbId === made?.id).map((ip) => ip.address);
  expect(
    svc("api")
      ?.status?.loadBalancer?.ingress?.map((i) => i.ip)
      .sort(),
  ).toEqual(ips.sort());
  expect(lbs()).toHaveLength(2);
}, 180_000);

test("under 429s and 5xx, a new Service still gets exactly one load balancer", async () => {
  scw.world.lb.readyAfterMs = 0;
  scw.faults.set({
    latencyMs: 0,
    errorRate: 0,
    failNext: [
      { method: "POST", pathPrefix: "/lb/v1/zones/fr-par-1/lbs", type: "service_unavailable", count: 1 },
      { method: "POST", pathPrefix: "/lb/v1/zones/fr-par-1/lbs", type: "too_many_requests", count: 2 },
      { method: "GET", pathPrefix: "/lb/v1/zones/fr-par-1/lbs", type: "internal_error", count: 2 },
      { method: "PUT", pathPrefix: "/lb/v1/zones/fr-par-1/backends", type: "bad_gateway", count: 1 },
    ],
  });
  const fresh = await createService("flaky");
  await until(
    "the flaky Service's ingress",
    () => (svc("flaky")?.status?.loadBalancer?.ingress ?? []).length > 0,
    150_000,
  );
  scw.faults.set({ latencyMs: 0, errorRate: 0, failNext: [] });
  const failed = Object.entries(scw.calls.snapshot().byRoute)
    .filter(([route]) => route.startsWith("POST /lb/"))
    .reduce((sum, [, stats]) => sum + stats.failed, 0);
  expect(failed).toBeGreaterThanOrEqual(3);
  expect(lbs().filter((l) => l.name === fresh.metadata?.uid)).toHaveLength(1);
  expect(lbs()).toHaveLength(3);
}, 180_000);

test("a Node without provider ID never empties a load balancer: its servers stay, a Warning names the Node", async () => {
  const webLB = () => [...scw.world.lb.backends.values()].filter((b) => b.lbId === adopted.id);
  const warned = (needle: string) =>
    api.store
      .list<Event & { note?: string }>(Resources.events, ns)
      .items.some(
        (e) =>
          e.type === "Warning" && e.involvedObject?.name === "web" && `${e.message ?? e.note ?? ""}`.includes(needle),
      );
  // The invalid annotation of the test before is removed so web syncs again.
  await client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { [`${A}health-check-max-retries`]: null } } },
    ns,
  );
  // A kubelet started without --cloud-provider=external: Ready, never initialised, no provider ID.
  await client.create(Resources.nodes, { metadata: { name: "stray", labels: { role: "stray" } } } satisfies Node);
  await setNodeReady(client, "stray", "True");
  await until("a Warning naming the Node without provider ID", () => warned("Nodes stray have no provider ID"));
  expect(
    webLB()
      .flatMap((b) => b.pool)
      .sort(),
  ).toEqual([...nodeIPs].sort());
  // Only that Node chosen as target: no Node can be one, and the servers are kept as they are.
  await client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { [`${A}target-node-labels`]: "role=stray" } } },
    ns,
  );
  await until("a Warning that no Node can be a target", () => warned("no Node can be a target"));
  expect(webLB().length).toBeGreaterThan(0);
  expect(
    webLB()
      .flatMap((b) => b.pool)
      .sort(),
  ).toEqual([...nodeIPs].sort());
  expect((api.store.get(Resources.nodes, "stray") as Node).spec?.providerID).toBeUndefined();
}, 120_000);

test("the Services deleted, their load balancers and booked IPs go", async () => {
  for (const name of ["web", "api", "flaky"]) await client.delete(Resources.services, name, ns);
  await until("no load balancer left", () => lbs().length === 0 && scw.world.lb.ips.size === 0, 120_000);
  await until("the Services gone", () => ["web", "api", "flaky"].every((name) => svc(name) === undefined));
}, 180_000);
