/**
 * `plan`, compiled, against the sandbox's API emulator and simulated cloud started in this process, each
 * behind a recording proxy (test/support/api-proxy.ts), so every request of `plan` and of the manager is logged:
 * on a fresh cluster `plan` lists every node initialisation, load balancer and route and exits 2; the real manager
 * then makes exactly those writes, request for request (and records exactly the Events listed); on the converged
 * cluster `plan` finds nothing and exits 0; and `plan` itself never writes (counted at the proxies, at the emulator's
 * resourceVersion and in the cloud's own write log), running as an identity granted only
 * deploy/kubernetes/plan-rbac.yaml's read-only rules.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import type { AuthzAttributes } from "../sandbox/apiserver/auth.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { createMachines } from "../sandbox/cloud/fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../sandbox/cloud/server.ts";
import { createLoadBalancer } from "../sandbox/hcloud/state/load-balancers.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { type ApiProxy, startApiProxy, writeProxiedConfig } from "./support/api-proxy.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { type HcloudWorld, hccmFlags, startHcloudWorld } from "./support/hcloud.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(180_000);

const quiet = createConsola({ level: -999 });
const NODES = 3;
let api: ApiServer;
let cloud: SimulatedCloud;
let apiProxy: ApiProxy;
let cloudProxy: ApiProxy;
let admin: KubeClient;
let files: { kubeconfig: string; cloudConfig: string };
let manager: RunningProcess | undefined;
let planKubeconfig: string;
let plannerDirect: string;

/** Whether deploy/kubernetes/plan-rbac.yaml's ClusterRole grants the request. */
async function readOnlyRules(): Promise<(a: AuthzAttributes) => boolean> {
  const text = await readFile(join(import.meta.dir, "..", "deploy", "kubernetes", "plan-rbac.yaml"), "utf8");
  const role = text
    .split(/^---$/m)
    .map(
      (d) =>
        Bun.YAML.parse(d) as { kind?: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] },
    )
    .find((d) => d?.kind === "ClusterRole");
  const rules = role?.rules ?? [];
  expect(rules.flatMap((r) => r.verbs).every((v) => v === "get" || v === "list" || v === "watch")).toBe(true);
  return (a) => {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return rules.some(
      (r) => r.apiGroups.includes(a.group) && r.resources.includes(resource) && r.verbs.includes(a.verb),
    );
  };
}

interface PlanJson {
  exitCode: number;
  changes: number;
  objects: {
    kind: string;
    name: string;
    writes: { controller: string; action: string; reason: string; changes: string[] }[];
  }[];
  notes: unknown[];
  problems: unknown[];
}

beforeAll(async () => {
  // `plan` runs as "planner", granted only what deploy/kubernetes/plan-rbac.yaml grants; the manager as an admin.
  const planRules = await readOnlyRules();
  api = await startApiServer({
    logger: quiet,
    tokens: { "admin-token": { user: "admin", groups: ["system:masters"] }, "plan-token": { user: "planner" } },
    authorizer: (a) =>
      a.user !== "planner" || planRules(a) ? { allowed: true } : { allowed: false, reason: "not in plan-rbac.yaml" },
  });
  cloud = startSimulatedCloud({ token: "cloud-token", logger: quiet });
  apiProxy = startApiProxy(api.url);
  cloudProxy = startApiProxy(cloud.url);
  const dir = await mkdtemp(join(tmpdir(), "ccm-plan-"));
  const adminConfig = await api.writeKubeconfig(join(dir, "admin.kubeconfig"), { user: "admin", https: false });
  const plannerConfig = await api.writeKubeconfig(join(dir, "planner.kubeconfig"), { user: "planner", https: false });
  plannerDirect = plannerConfig;
  files = { kubeconfig: join(dir, "ccm.kubeconfig"), cloudConfig: join(dir, "cloud.yaml") };
  planKubeconfig = join(dir, "plan.kubeconfig");
  await writeProxiedConfig(adminConfig, files.kubeconfig, api.url, apiProxy);
  await writeProxiedConfig(plannerConfig, planKubeconfig, api.url, apiProxy);
  await writeFile(files.cloudConfig, `url: ${cloudProxy.url}\ntoken: cloud-token\n`);
  admin = createKubeClient(loadTransport({ kubeconfig: adminConfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  // A fresh cluster: kubelets registered their nodes (uninitialised, each with a pod CIDR and, as with kubelet's
  // --provider-id, its provider ID), two Services ask for load balancers, and the cloud has nothing yet. Without the
  // provider IDs the service controller may re-send a load balancer's hosts once a node gets its ID, depending on
  // which write lands first: `plan` notes that, and a write-for-write comparison could not be exact.
  for (const [i, m] of createMachines(cloud.state, NODES).entries()) {
    const node = registrationOf(m, new Date(), `10.128.${i}.0/24`);
    node.spec = { ...node.spec, providerID: m.providerID };
    await admin.create(Resources.nodes, node);
  }
  for (const name of ["web", "dns"]) {
    const svc: Service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "default" },
      spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ name: "p", protocol: "TCP", port: 80 }] },
    };
    await admin.create(Resources.services, svc, { namespace: "default" });
  }
});

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await apiProxy?.stop();
  await cloudProxy?.stop();
  await cloud?.stop();
  await api?.stop();
});

const planArgs = () => [
  "plan",
  "--cloud-provider=sandbox",
  `--cloud-config=${files.cloudConfig}`,
  `--kubeconfig=${planKubeconfig}`,
  "--cluster-cidr=10.128.0.0/9",
];

/** Runs `plan` and checks it wrote nothing anywhere: proxies, the emulator's resourceVersion, the cloud's log. */
async function planWithoutWrites(extra: string[]) {
  const apiWrites = apiProxy.writes().length;
  const cloudWrites = cloudProxy.writes().length;
  const version = api.store.resourceVersion;
  cloud.calls.reset();
  const ran = await runExecutable(await executable(), [...planArgs(), ...extra]);
  expect(apiProxy.writes().length).toBe(apiWrites);
  expect(cloudProxy.writes().length).toBe(cloudWrites);
  expect(api.store.resourceVersion).toBe(version);
  expect(cloud.calls.writes()).toEqual([]);
  return ran;
}

/** The request each planned write is, `METHOD path`; Events are compared as objects instead (they aggregate). */
function expectedRequests(plan: PlanJson): { api: string[]; cloud: string[] } {
  const out = { api: [] as string[], cloud: [] as string[] };
  for (const o of plan.objects) {
    for (const w of o.writes) {
      if (w.action === "event") continue;
      const [ns, name] = o.name.split("/");
      const key = `${o.kind} ${w.action}`;
      if (key === "Node initialize") out.api.push(`PATCH /api/v1/nodes/${o.name}`);
      else if (key === "Node update-addresses" || key === "Node set-condition")
        out.api.push(`PATCH /api/v1/nodes/${o.name}/status`);
      else if (key === "Service add-finalizer" || key === "Service update-status")
        out.api.push(`PATCH /api/v1/namespaces/${ns}/services/${name}/status`);
      else if (key === "LoadBalancer create" || key === "LoadBalancer update")
        out.cloud.push(`PUT /v1/load-balancers/${o.name}`);
      else if (key === "LoadBalancer delete") out.cloud.push(`DELETE /v1/load-balancers/${o.name}`);
      else if (key === "Service remove-finalizer")
        out.api.push(`PATCH /api/v1/namespaces/${ns}/services/${name}/status`);
      else if (key === "Route create") out.cloud.push("POST /v1/routes");
      else throw new Error(`the test does not map ${key}`);
    }
  }
  return { api: out.api.sort(), cloud: out.cloud.sort() };
}

const plannedEvents = (plan: PlanJson): string[] =>
  plan.objects
    .flatMap((o) =>
      o.writes
        .filter((w) => w.action === "event")
        .map((w) => `${o.kind} ${o.name.split("/").at(-1)}: ${w.changes[0]?.split(":")[0]?.split(" ")[1]}`),
    )
    .sort();

const recordedEvents = async (): Promise<string[]> =>
  (await admin.list<Event>(Resources.events)).items
    .flatMap((e) =>
      Array.from({ length: e.count ?? 1 }, () => `${e.involvedObject?.kind} ${e.involvedObject?.name}: ${e.reason}`),
    )
    .sort();

/**
 * The writes made: answered 2xx. A write refused with 409 (a node patch racing the route controller's condition patch)
 * changed nothing and is retried; the retry is the write.
 */
/** The sandbox cloud's load balancer of a Service: named after its UID. */
const lbOf = async (service: string): Promise<string> =>
  (await cloud.state.listLoadBalancers()).find((lb) => lb.serviceName === service)?.name ?? "";

const requestsOf = (proxy: ApiProxy) =>
  proxy
    .writes()
    .filter((r) => !r.path.includes("/events") && r.status >= 200 && r.status < 300)
    .map((r) => `${r.method} ${r.path.split("?")[0]}`)
    .sort();

describe("plan", () => {
  let fresh: PlanJson;

  test("on a fresh cluster lists every node initialisation, load balancer and route, writes nothing, exits 2", async () => {
    const ran = await planWithoutWrites(["-o", "json"]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(2);
    fresh = JSON.parse(ran.stdout) as PlanJson;
    expect(fresh.problems).toEqual([]);
    const actions = (kind: string, action: string) =>
      fresh.objects.filter((o) => o.kind === kind && o.writes.some((w) => w.action === action)).map((o) => o.name);
    expect(actions("Node", "initialize")).toEqual(["node-1", "node-2", "node-3"]);
    expect(actions("Service", "add-finalizer")).toEqual(["default/dns", "default/web"]);
    expect(actions("LoadBalancer", "create")).toHaveLength(2);
    expect(actions("Route", "create")).toEqual(["10.128.0.0/24", "10.128.1.0/24", "10.128.2.0/24"]);
  });

  test("the same plan reads for people, grouped by object with the controllers' reasons", async () => {
    const ran = await planWithoutWrites([]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toContain(
      "Node node-1\n  ~ initialize (cloud-node-controller: node has the node.cloudprovider.kubernetes.io/uninitialized taint)\n",
    );
    expect(ran.stdout).toContain(
      "  + create (service-lb-controller: Service default/web wants a load balancer and none exists)",
    );
    expect(ran.stdout).toContain(`Plan: ${fresh.changes} write(s) to 3 Nodes, 2 Services, 2 load balancers, 3 routes.`);
  });

  test("a real run then makes exactly the writes the plan listed, and records exactly its Events", async () => {
    const expected = expectedRequests(fresh);
    const apiBefore = apiProxy.writes().length;
    const cloudBefore = cloudProxy.writes().length;
    expect(apiBefore).toBe(0);
    expect(cloudBefore).toBe(0);
    // One pass of each periodic loop: a second route reconcile or node monitor pass inside the test would be writes
    // of a later pass (a condition re-sent while the cache lags), not of the first one `plan` describes.
    manager = spawnCollecting(
      await managerCommand(files, ["--route-reconciliation-period=10m", "--node-monitor-period=10m"]),
    );
    const done = () =>
      requestsOf(apiProxy).length >= expected.api.length && requestsOf(cloudProxy).length >= expected.cloud.length;
    await poll(done, { timeoutMs: 90_000, message: `the manager's writes\n${manager.output()}` });
    await poll(async () => (await recordedEvents()).length >= plannedEvents(fresh).length, {
      message: "the manager's Events",
    });
    manager.proc.kill("SIGTERM");
    await manager.exited;
    expect(requestsOf(apiProxy)).toEqual(expected.api);
    expect(requestsOf(cloudProxy)).toEqual(expected.cloud);
    expect(await recordedEvents()).toEqual(plannedEvents(fresh));
  });

  test("on the converged cluster finds nothing to change, writes nothing, exits 0", async () => {
    const text = await planWithoutWrites([]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("No changes: the controllers would write nothing. Nothing was written.");
    const json = await planWithoutWrites(["-o", "json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 0, changes: 0, objects: [], problems: [] });
  });

  test("after a Service changed and another was deleted: the update and the deletion, then exactly those writes", async () => {
    await admin.patch(
      Resources.services,
      "web",
      "merge",
      { metadata: { annotations: { "sandbox.ccm.dev/load-balancer-algorithm": "least-connections" } } },
      { namespace: "default" },
    );
    await admin.delete(Resources.services, "dns", { namespace: "default" });
    const ran = await planWithoutWrites(["-o", "json"]);
    expect(ran.code).toBe(2);
    const plan = JSON.parse(ran.stdout) as PlanJson;
    expect(plan.problems).toEqual([]);
    const lines = plan.objects.flatMap((o) =>
      o.writes
        .filter((w) => w.action !== "event")
        .map((w) => `${o.kind} ${o.name}: ${w.action} ${w.changes.join("; ")}`),
    );
    const [web, dns] = [lbOf("web"), lbOf("dns")];
    expect(lines.sort()).toEqual(
      [
        `LoadBalancer ${await web}: update algorithm "round-robin" → "least-connections"`,
        `LoadBalancer ${await dns}: delete delete load balancer ${await dns}`,
        "Service default/dns: remove-finalizer remove finalizer service.kubernetes.io/load-balancer-cleanup",
      ].sort(),
    );

    const expected = expectedRequests(plan);
    const apiBefore = requestsOf(apiProxy);
    const cloudBefore = requestsOf(cloudProxy);
    const eventsBefore = await recordedEvents();
    manager = spawnCollecting(
      await managerCommand(files, ["--route-reconciliation-period=10m", "--node-monitor-period=10m"]),
    );
    const delta = (now: string[], before: string[]) => {
      const left = [...before];
      return now.filter((r) => {
        const i = left.indexOf(r);
        if (i < 0) return true;
        left.splice(i, 1);
        return false;
      });
    };
    const events = async () => delta(await recordedEvents(), eventsBefore);
    await poll(
      async () =>
        delta(requestsOf(apiProxy), apiBefore).length >= expected.api.length &&
        delta(requestsOf(cloudProxy), cloudBefore).length >= expected.cloud.length &&
        (await events()).length >= plannedEvents(plan).length,
      { timeoutMs: 90_000, message: `the manager's writes\n${manager.output()}` },
    );
    manager.proc.kill("SIGTERM");
    await manager.exited;
    expect(delta(requestsOf(apiProxy), apiBefore)).toEqual(expected.api);
    expect(delta(requestsOf(cloudProxy), cloudBefore)).toEqual(expected.cloud);
    expect(await events()).toEqual(plannedEvents(plan));
    expect((await planWithoutWrites([])).code).toBe(0);
  });
});

/**
 * Migrating from hccm: the hcloud emulator holds the load balancers hccm left — one carrying its
 * `hcloud-ccm/service-uid` label, one found only by its name (hccm before the label, or made by hand) — with their
 * listeners and server targets, and the Services carry hccm's finalizer and addresses. `plan` with hccm's flags shows
 * the one adopted in place with the addresses it keeps, the other left as it is, and no load balancer created or
 * deleted and no new address; it writes nothing.
 */
test.each([[undefined], ["hcloud"]])(
  "plan --help in the %s executable prints its usage and exits 0",
  async (provider) => {
    const ran = await runExecutable(await executable(provider), ["plan", "--help"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(`Usage:\n  ${provider ? `${provider}-` : ""}cloud-controller-manager plan [flags]`);
    expect(ran.stdout).toContain("exit 2 if any (-o json for machines)");
  },
);

test("a cluster plan cannot read exits 1 and says what to fix", async () => {
  const ran = await runExecutable(await executable(), [
    "plan",
    "--cloud-provider=sandbox",
    `--cloud-config=${files.cloudConfig}`,
    "--master=http://127.0.0.1:9",
  ]);
  expect(ran.code).toBe(1);
  expect(ran.stdout).toBe("");
  expect(ran.stderr).toContain("plan: cannot read Nodes and Services");
  expect(ran.stderr).toContain("deploy/kubernetes/plan-rbac.yaml");
});

test("the read-only identity plan ran as may list, and may not write", async () => {
  const planner = createKubeClient(loadTransport({ kubeconfig: plannerDirect }), {
    qps: 0,
    burst: 0,
    userAgent: "e2e",
  });
  expect((await planner.list(Resources.nodes)).items).toHaveLength(NODES);
  const refused = await planner
    .patch(Resources.nodes, "node-1", "merge", { metadata: { labels: { x: "y" } } })
    .then(() => 0)
    .catch((err: { status?: number }) => err.status);
  expect(refused).toBe(403);
});

describe("plan, migrating from hccm", () => {
  let world: HcloudWorld;
  let hapi: ApiServer;
  let kubeconfig: string;
  let client: KubeClient;
  const ips = new Map<string, string[]>();
  const names = new Map<string, string>();
  const lbName = (service: string) => names.get(service) ?? "";

  beforeAll(async () => {
    world = startHcloudWorld();
    hapi = await startApiServer({ logger: quiet });
    const dir = await mkdtemp(join(tmpdir(), "ccm-plan-hcloud-"));
    kubeconfig = await hapi.writeKubeconfig(join(dir, "kubeconfig"), { https: false });
    client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
    const servers = ["cloud-1", "cloud-2"].map((name) => world.addServer(name));
    for (const server of servers) {
      // Initialised by hccm: its provider ID and addresses, no taint.
      await client.create(Resources.nodes, {
        metadata: { name: server.name },
        spec: { providerID: `hcloud://${server.id}` },
      });
      const addresses = [
        { type: "Hostname", address: server.name },
        { type: "ExternalIP", address: server.public_net.ipv4?.ip ?? "" },
        { type: "InternalIP", address: server.private_net[0]?.ip ?? "" },
      ];
      await client.patch(Resources.nodes, server.name, "merge", { status: { addresses } }, { subresource: "status" });
    }
    for (const name of ["web", "api"]) {
      const created = await client.create<Service>(
        Resources.services,
        {
          metadata: { name, namespace: "default", annotations: { "load-balancer.hetzner.cloud/location": "fsn1" } },
          spec: { type: "LoadBalancer", ports: [{ name: "http", protocol: "TCP", port: 80 }] },
        },
        { namespace: "default" },
      );
      const uid = created.metadata?.uid ?? "";
      const nodePort = created.spec?.ports?.[0]?.nodePort ?? 0;
      // hccm's load balancer: its default name; `web`'s carries hccm's label, `api`'s only the name. Made in the
      // emulator's project directly, as hccm left it: a TCP listener with a TCP check, the servers as targets.
      const { loadBalancer: lb } = createLoadBalancer(world.hcloud.world, {
        name: `a${uid.replaceAll("-", "")}`.slice(0, 32),
        load_balancer_type: "lb11",
        location: "fsn1",
        labels: name === "web" ? { "hcloud-ccm/service-uid": uid } : {},
        network: world.network.id,
        services: [
          {
            protocol: "tcp",
            listen_port: 80,
            destination_port: nodePort,
            proxyprotocol: false,
            health_check: { protocol: "tcp", port: nodePort, interval: 15, timeout: 10, retries: 3 },
          },
        ],
        targets: servers.map((server) => ({ type: "server", server: { id: server.id }, use_private_ip: false })),
      });
      names.set(name, lb.name);
      ips.set(name, [lb.public_net.ipv4.ip, lb.public_net.ipv6.ip, ...lb.private_net.map((n) => n.ip)]);
      await client.patch(
        Resources.services,
        name,
        "merge",
        {
          metadata: { finalizers: ["service.kubernetes.io/load-balancer-cleanup"] },
          status: { loadBalancer: { ingress: (ips.get(name) ?? []).map((ip) => ({ ip })) } },
        },
        { namespace: "default", subresource: "status" },
      );
    }
  });

  afterAll(async () => {
    await world?.stop();
    await hapi?.stop();
  });

  test("shows the adoption, keeps every load balancer and address, and writes nothing", async () => {
    const version = hapi.store.resourceVersion;
    world.hcloud.calls.reset();
    const ran = await runExecutable(
      await executable("hcloud"),
      ["plan", ...hccmFlags, `--kubeconfig=${kubeconfig}`, "-o", "json"],
      { env: world.env() },
    );
    // The provider was started as the manager starts it (its warnings on stderr), and nothing failed.
    expect(ran.stderr).toContain("warn hcloud] HCLOUD_TOKEN has 65 characters");
    expect(ran.stderr).not.toContain("error");
    expect(hapi.store.resourceVersion).toBe(version);
    expect(world.hcloud.calls.writes()).toEqual([]);
    const plan = JSON.parse(ran.stdout) as PlanJson;
    expect(plan.problems).toEqual([]);
    expect(ran.code).toBe(2);

    // `web`'s own load balancer, Nodes and statuses are as hccm left them: nothing to write there.
    expect(plan.objects.map((o) => `${o.kind} ${o.name}`)).toEqual([
      "Service default/api",
      `LoadBalancer ${lbName("api")}`,
    ]);
    const lbWrites = plan.objects.filter((o) => o.kind === "LoadBalancer");
    const api = ips.get("api")!;
    expect(lbWrites.map((o) => o.writes.map((w) => w.action))).toEqual([["adopt"]]);
    const adopt = lbWrites[0]!.writes[0]!;
    expect(adopt.changes).toContain("update (labels)");
    expect(adopt.changes.some((c) => c.startsWith("keeps its addresses") && c.includes(api[0]!))).toBe(true);
    // No load balancer made or deleted; no Service gets an address its load balancer does not have already.
    const known = [...ips.values()].flat();
    for (const o of plan.objects) {
      for (const w of o.writes) {
        expect(`${o.kind} ${w.action}`).not.toMatch(/^LoadBalancer (create|delete)$|^Node delete$/);
        if (w.action !== "update-status") continue;
        const after = w.changes.join(" ").split("→")[1] ?? "";
        for (const ip of after.match(/[0-9a-f:.]{7,}/g) ?? []) expect(known).toContain(ip);
      }
    }
  });
});
