/**
 * The compiled `digitalocean-cloud-controller-manager`, with DO CCM's Deployment flags (`--leader-elect=false`) and
 * environment, against the DigitalOcean emulator and the API emulator: a LoadBalancer Service gets a load balancer
 * that turns `active` with an IP in its status; a load balancer DO CCM made (its ID annotation on the Service) is
 * shown by `plan` as an adoption and then adopted in place, with no create, no delete and no new IP; a Service whose
 * name collides with another cluster's load balancer gets a Warning and that load balancer is left alone; a
 * deleted Service's load balancer goes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { type DoEmulator, startDoEmulator } from "../sandbox/digitalocean/server.ts";
import { createDroplet } from "../sandbox/digitalocean/state/droplets.ts";
import {
  createLoadBalancer,
  type LoadBalancerSpec,
  listLoadBalancers,
} from "../sandbox/digitalocean/state/load-balancers.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";

const TOKEN = "e2e-do-token-0123456789abcdef0123456789abcdef";
const CLUSTER_ID = "d0c5e2e0-0000-4000-8000-000000000001";
const ID_ANNOTATION = "kubernetes.digitalocean.com/load-balancer-id";
const ns = { namespace: "default" };

let dir = "";
let api: ApiServer;
let client: KubeClient;
let kubeconfig = "";
let emulator: DoEmulator;
let manager: RunningProcess | undefined;

/** DO CCM's Deployment environment, pointed at the emulator; paced at 20 a second, not the token's 1.25. */
const env = () => ({
  PATH: "/usr/bin:/bin",
  DO_ACCESS_TOKEN: TOKEN,
  DO_OVERRIDE_URL: emulator.endpoint,
  REGION: "nyc3",
  DO_CLUSTER_ID: CLUSTER_ID,
  DO_API_RATE_LIMIT_QPS: "20",
});
const command = async (...extra: string[]) => [
  await executable("digitalocean"),
  ...extra,
  "--leader-elect=false",
  `--kubeconfig=${kubeconfig}`,
  "--secure-port=0",
  "--node-monitor-period=1s",
];

const get = (name: string): Service | undefined => {
  try {
    return api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
/** Read as the API reads them, so one whose time has come is `active`. */
const lbs = () => listLoadBalancers(emulator.world);
const lbNamed = (name: string) => lbs().find((l) => l.spec.name === name);
const until = (what: string, check: () => boolean) =>
  poll(check, { timeoutMs: 90_000, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${manager?.output().slice(-3000)}`);
  });
const lbWrites = () =>
  emulator.calls
    .writes()
    .filter((w) => w.path.startsWith("/v2/load_balancers"))
    .map((w) => `${w.method} ${w.path}`);

/** A load balancer as DO CCM leaves one: its rules to the node port, the Droplets, no tags (no DO_CLUSTER_ID then). */
function doCcmSpec(name: string, nodePort: number, tags: string[]): LoadBalancerSpec {
  return {
    name,
    region: "nyc3",
    size_unit: 1,
    size: "lb-small",
    algorithm: "round_robin",
    forwarding_rules: [
      {
        entry_protocol: "tcp",
        entry_port: 80,
        target_protocol: "tcp",
        target_port: nodePort,
        certificate_id: "",
        tls_passthrough: false,
      },
    ],
    health_check: { protocol: "http", port: 10256, path: "/healthz", check_interval_seconds: 3 },
    sticky_sessions: { type: "none" },
    redirect_http_to_https: false,
    enable_proxy_protocol: false,
    enable_backend_keepalive: false,
    http_idle_timeout_seconds: 60,
    disable_lets_encrypt_dns_records: false,
    network: "EXTERNAL",
    network_stack: "IPV4",
    type: "REGIONAL_NETWORK",
    vpc_uuid: "5a4981aa-9653-4bd1-bef5-d6bff52042e4",
    project_id: "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30",
    firewall: {},
    tag: "",
    tags,
    vpc_subnet_uuid: "",
    droplet_ids: [],
  };
}

async function createService(name: string, annotations: Record<string, string> = {}): Promise<Service> {
  await client.create(
    Resources.services,
    {
      metadata: { name, namespace: "default", annotations },
      spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
    } satisfies Service,
    ns,
  );
  return get(name) as Service;
}

const warned = (service: string, reason: string, text: string) => () =>
  api.store
    .list<Event>(Resources.events, ns)
    .items.some(
      (e) =>
        e.type === "Warning" &&
        e.reason === reason &&
        e.involvedObject?.name === service &&
        `${e.message ?? ""}`.includes(text),
    );

let old: { id: string; ip: string };
let theirs: { id: string; spec: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-do-lb-"));
  // A new load balancer stays `new` for a moment, as DigitalOcean's do, so the wait for `active` is exercised.
  emulator = startDoEmulator({ token: TOKEN, lbActiveDelayMs: 500 });
  ({ api, client, kubeconfig } = await startE2eApiServer(dir));
  const ids: number[] = [];
  // Nodes as DO CCM left them: initialised, with its provider IDs and addresses.
  for (const name of ["do-node-1", "do-node-2"]) {
    const droplet = createDroplet(emulator.world, { name });
    ids.push(droplet.id);
    await client.create(Resources.nodes, {
      metadata: { name },
      spec: { providerID: `digitalocean://${droplet.id}` },
    } satisfies Node);
    await client.patch(
      Resources.nodes,
      name,
      "merge",
      {
        status: {
          addresses: [
            { type: "Hostname", address: name },
            { type: "InternalIP", address: droplet.privateV4 },
            { type: "ExternalIP", address: droplet.publicV4 },
          ],
        },
      },
      { subresource: "status" },
    );
    await setNodeReady(client, name, "True");
  }
  // What DO CCM left for Service `old`: its load balancer, its ID on the Service, the IP in the status.
  const oldService = await createService("old");
  const made = createLoadBalancer(emulator.world, {
    ...doCcmSpec("old-lb", oldService.spec?.ports?.[0]?.nodePort ?? 0, []),
    droplet_ids: ids,
  });
  old = { id: made.id, ip: made.ip };
  await client.patch(
    Resources.services,
    "old",
    "merge",
    { metadata: { annotations: { [ID_ANNOTATION]: made.id } } },
    ns,
  );
  // Another cluster's load balancer, with the name a Service of this one will ask for.
  const other = createLoadBalancer(emulator.world, {
    ...doCcmSpec("shared", 31000, ["k8s:other-cluster"]),
    droplet_ids: [],
  });
  theirs = { id: other.id, spec: JSON.stringify(other.spec) };
}, 180_000);

afterAll(() => tearDown(manager, [api, emulator], dir));

test("plan shows DO CCM's load balancer as an adoption, and writes nothing", async () => {
  await poll(() => lbs().every((l) => l.status === "active"), { timeoutMs: 30_000, message: "load balancers active" });
  old = { id: old.id, ip: lbs().find((l) => l.id === old.id)?.ip ?? "" };
  emulator.calls.reset();
  const ran = await runExecutable(
    await executable("digitalocean"),
    ["plan", "--leader-elect=false", `--kubeconfig=${kubeconfig}`, "-o", "json"],
    { env: env() },
  );
  expect(emulator.calls.writes()).toEqual([]);
  const plan = JSON.parse(ran.stdout) as {
    objects: { kind: string; name: string; writes: { action: string; changes: string[] }[] }[];
  };
  const lb = plan.objects.find((o) => o.kind === "LoadBalancer" && o.name === "old-lb");
  if (!lb) throw new Error(`no plan for old-lb in:\n${ran.stdout}\n${ran.stderr}`);
  expect(lb?.writes.map((w) => w.action)).toEqual(["adopt"]);
  expect(lb?.writes[0]?.changes[0]).toBe(`adopt load balancer ${old.id} found by its ID annotation`);
}, 180_000);

test("a LoadBalancer Service gets a load balancer, active with its IP in the Service's status", async () => {
  emulator.calls.reset();
  manager = spawnCollecting(await command(), env());
  await createService("web");
  await until("web's ingress", () => (get("web")?.status?.loadBalancer?.ingress ?? []).length > 0);
  const lb = lbs().find((l) => l.spec.tags.includes(`ccm-service:${get("web")?.metadata?.uid}`));
  expect(lb?.status).toBe("active");
  expect(lb?.spec.tags).toContain(`k8s:${CLUSTER_ID}`);
  expect(get("web")?.status?.loadBalancer?.ingress).toEqual([{ ip: lb?.ip ?? "" }]);
  await until("the ID recorded on web", () => get("web")?.metadata?.annotations?.[ID_ANNOTATION] === lb?.id);
}, 180_000);

test("DO CCM's load balancer is adopted in place: same ID, same IP, no create or delete of it", async () => {
  await until("old's load balancer tagged as this Service's", () =>
    (lbs().find((l) => l.id === old.id)?.spec.tags ?? []).includes(`ccm-service:${get("old")?.metadata?.uid}`),
  );
  await until("old's ingress", () => (get("old")?.status?.loadBalancer?.ingress ?? []).length > 0);
  expect(get("old")?.status?.loadBalancer?.ingress).toEqual([{ ip: old.ip }]);
  expect(lbs().find((l) => l.id === old.id)?.ip).toBe(old.ip);
  // The only load balancer created is web's; none deleted.
  expect(lbWrites().filter((w) => w === "POST /v2/load_balancers")).toHaveLength(1);
  expect(lbWrites().filter((w) => w.startsWith("DELETE"))).toEqual([]);
}, 180_000);

test("a name collision with another cluster's load balancer is a Warning; that load balancer is left alone", async () => {
  await createService("clash", { "service.beta.kubernetes.io/do-loadbalancer-name": "shared" });
  await until("a LoadBalancerNotOwned Warning on clash", warned("clash", "LoadBalancerNotOwned", theirs.id));
  expect(
    lbs()
      .filter((l) => l.spec.name === "shared")
      .map((l) => l.id),
  ).toEqual([theirs.id]);
  expect(JSON.stringify(lbNamed("shared")?.spec)).toBe(theirs.spec);
  await client.delete(Resources.services, "clash", ns);
  await until("clash gone", () => get("clash") === undefined);
  expect(lbs().map((l) => l.id)).toContain(theirs.id);
}, 180_000);

test("the Service deleted, its load balancer goes; the others stay", async () => {
  const id = get("web")?.metadata?.annotations?.[ID_ANNOTATION];
  await client.delete(Resources.services, "web", ns);
  await until("web's load balancer gone", () => !lbs().some((l) => l.id === id));
  await until("web gone", () => get("web") === undefined);
  expect(
    lbs()
      .map((l) => l.id)
      .sort(),
  ).toEqual([old.id, theirs.id].sort());
}, 180_000);
