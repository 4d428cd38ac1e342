/**
 * End to end: the compiled `metal-cloud-controller-manager` (8 concurrent Service syncs, cloud-node and
 * service controllers, no leader election) against the API emulator, which runs in this process; metal needs no
 * simulated cloud. 200 LoadBalancer Services in three namespaces (IPv4, IPv6, dual stack, requested addresses, a
 * namespace pool whose Services share requested addresses on different ports) are created while the manager is
 * SIGKILLed and restarted once, half are deleted while it is SIGKILLed and restarted again, and 50 more are created.
 * The pools are sized so that the late Services only fit by reusing freed addresses. Then every free address of two
 * pools is filled, and one Service more in each must be refused: a leaked allocation would make a fill fail.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import { KubeVipAnnotations, MetalAnnotations } from "../providers/metal/annotations.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

const LABEL = "metal-e2e";
const cloudConfig = `
inventory:
  machines:
    - { name: node-1, providerID: metal://rack1-slot1, addresses: { InternalIP: 10.0.0.11 }, zone: rack-1, region: lab, instanceType: nuc12 }
    - { name: node-2, addresses: { InternalIP: 10.0.0.12 }, zone: rack-2, region: lab }
loadBalancer:
  global: { addresses: [192.0.2.1-192.0.2.160, "2001:db8::1-2001:db8::3c"] }
  namespaces:
    team-a: { addresses: [198.51.100.10-198.51.100.49], allowShare: true }
`;
/** Sizes of the pools above: IPv4 global, IPv6 global, team-a. */
const V6_POOL = 60;
const TEAM_A_POOL = 40;

type Family = "IPv4" | "IPv6";
interface Want {
  readonly name: string;
  readonly namespace: string;
  readonly policy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  readonly families?: readonly Family[];
  readonly request?: string;
  readonly port?: number;
}

const many = (n: number, f: (i: number) => Want): Want[] => Array.from({ length: n }, (_, i) => f(i));
const dual = { policy: "PreferDualStack", families: ["IPv4", "IPv6"] } as const;
const v6 = { policy: "SingleStack", families: ["IPv6"] } as const;

/** Created first and waited for: automatic allocations must not take the requested addresses before them. */
const requesting: Want[] = [
  ...many(10, (i) => ({ name: `req-${i}`, namespace: "default", request: `192.0.2.${151 + i}` })),
  ...many(5, (i) => ({ name: `share-${i}-a`, namespace: "team-a", request: `198.51.100.${40 + i}`, port: 80 })),
  ...many(5, (i) => ({ name: `share-${i}-b`, namespace: "team-a", request: `198.51.100.${40 + i}`, port: 443 })),
];
const automatic: Want[] = [
  ...many(60, (i) => ({ name: `v4-${i}`, namespace: "default" })),
  ...many(30, (i) => ({ name: `dual-${i}`, namespace: "default", ...dual })),
  ...many(10, (i) => ({ name: `v6-${i}`, namespace: "default", ...v6 })),
  ...many(40, (i) => ({ name: `v4-${i}`, namespace: "team-b" })),
  ...many(10, (i) => ({ name: `rdual-${i}`, namespace: "team-b", ...dual, policy: "RequireDualStack" })),
  ...many(30, (i) => ({ name: `v4-${i}`, namespace: "team-a" })),
];
const first = [...requesting, ...automatic];
const doomed = first.filter((_, i) => i % 2 === 0);
const late: Want[] = [
  ...many(15, (i) => ({ name: `late-v4-${i}`, namespace: "default" })),
  ...many(15, (i) => ({ name: `late-dual-${i}`, namespace: "default", ...dual })),
  ...many(10, (i) => ({ name: `late-${i}`, namespace: "team-b" })),
  ...many(10, (i) => ({ name: `late-${i}`, namespace: "team-a" })),
];

let api: ApiServer;
let client: KubeClient;
let dir = "";
let files: { kubeconfig: string; cloudConfig: string };
const managers: RunningProcess[] = [];
const manager = () => managers[managers.length - 1] as RunningProcess;
const tail = () => manager().output().slice(-3000);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-metal-"));
  api = await startApiServer({ bookmarkIntervalMs: 2_000 });
  files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "metal.yaml") };
  await api.writeKubeconfig(files.kubeconfig);
  await writeFile(files.cloudConfig, cloudConfig, { mode: 0o600 });
  client = createKubeClient(loadTransport({ kubeconfig: files.kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  for (const name of ["team-a", "team-b"]) await client.create(Resources.namespaces, { metadata: { name } });
  for (const [i, name] of ["node-1", "node-2", "node-3"].entries()) {
    const machine = { id: `m-${i}`, name, providerID: "", zone: "", region: "", instanceType: "" };
    await client.create(Resources.nodes, registrationOf({ ...machine, addresses: [], state: "running" }, new Date()));
  }
}, 60_000);

afterAll(async () => {
  for (const m of managers) m.proc.kill("SIGKILL");
  await Promise.all(managers.map((m) => m.exited));
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function startManager(): Promise<void> {
  const flags = ["--controllers=cloud-node,service", "--concurrent-service-syncs=8"];
  // The default 20 QPS would make this test take minutes; an operator with 250 Services raises it the same way.
  flags.push("--kube-api-qps=100", "--kube-api-burst=200");
  managers.push(spawnCollecting(await managerCommand(files, flags, { provider: "metal", clusterCIDR: "" })));
}

async function restartManager(): Promise<void> {
  manager().proc.kill("SIGKILL");
  expect(await manager().exited).not.toBe(0);
  await startManager();
}

const key = (w: { namespace?: string | undefined; name?: string | undefined }) => `${w.namespace}/${w.name}`;

const serviceOf = (w: Want): Service => ({
  metadata: { name: w.name, namespace: w.namespace, labels: { app: LABEL } },
  spec: {
    type: "LoadBalancer",
    selector: { app: w.name },
    ports: [{ name: "p", port: w.port ?? 80, targetPort: 8080, protocol: "TCP" }],
    ...(w.policy ? { ipFamilyPolicy: w.policy } : {}),
    ...(w.families ? { ipFamilies: [...w.families] } : {}),
    ...(w.request ? { loadBalancerIP: w.request } : {}),
  },
});

async function create(wants: readonly Want[]): Promise<void> {
  for (const w of wants) await client.create(Resources.services, serviceOf(w), { namespace: w.namespace });
}

const stored = () => api.store.list<Service>(Resources.services, { labelSelector: `app=${LABEL}` }).items;
const split = (s: string | undefined) => (s ? s.split(",") : []);
const recordOf = (s: Service) => split(s.metadata?.annotations?.[MetalAnnotations.allocatedIPs]);
const ingressOf = (s: Service) => (s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? "");
const familyOf = (ip: string): Family => (ip.includes(":") ? "IPv6" : "IPv4");

/** The families the Service must hold one address of each, in order: team-a's pool is IPv4 only. */
function familiesFor(w: Want): Family[] {
  if (w.policy === "PreferDualStack" || w.policy === "RequireDualStack") {
    return w.namespace === "team-a" ? ["IPv4"] : [...(w.families ?? ["IPv4", "IPv6"])];
  }
  return [w.families?.[0] ?? "IPv4"];
}

/** Every way the cluster differs from: `alive` served as wanted, `gone` deleted, no address held twice. */
function problems(alive: readonly Want[], gone: readonly Want[]): string[] {
  const out: string[] = [];
  const byKey = new Map(stored().map((s) => [key(s.metadata ?? {}), s]));
  for (const w of gone) if (byKey.has(key(w))) out.push(`${key(w)}: deleted but still present`);
  const holders = new Map<string, Service[]>();
  for (const w of alive) {
    const svc = byKey.get(key(w));
    if (!svc) {
      out.push(`${key(w)}: missing`);
      continue;
    }
    const record = recordOf(svc);
    const ingress = ingressOf(svc);
    if (record.length === 0) {
      out.push(`${key(w)}: no allocation yet (ingress ${JSON.stringify(ingress)})`);
      continue;
    }
    const annotations = svc.metadata?.annotations ?? {};
    const families = familiesFor(w);
    if (record.map(familyOf).join() !== families.join()) out.push(`${key(w)}: record ${record}, wants ${families}`);
    if (ingress.join() !== record.join()) out.push(`${key(w)}: ingress ${ingress}, record ${record}`);
    if (annotations[MetalAnnotations.allocatedFor] !== svc.metadata?.uid) out.push(`${key(w)}: record of another UID`);
    if (annotations[KubeVipAnnotations.loadBalancerIPs] !== record.join(","))
      out.push(`${key(w)}: kube-vip annotation differs`);
    if (w.request && record[0] !== w.request) out.push(`${key(w)}: asked for ${w.request}, got ${record}`);
    for (const ip of record) holders.set(ip, [...(holders.get(ip) ?? []), svc]);
  }
  for (const [ip, held] of holders) {
    if (held.length === 1) continue;
    const ports = held.flatMap((s) => (s.spec?.ports ?? []).map((p) => `${p.protocol}/${p.port}`));
    const shareable = held.every((s) => s.metadata?.namespace === "team-a") && new Set(ports).size === ports.length;
    if (!shareable) out.push(`${ip} held by ${held.map((s) => key(s.metadata ?? {})).join(" and ")}`);
  }
  return out;
}

async function converge(alive: readonly Want[], gone: readonly Want[], what: string): Promise<void> {
  let last: string[] = [];
  const settled = () => {
    last = problems(alive, gone);
    return last.length === 0;
  };
  await poll(settled, { timeoutMs: 180_000, everyMs: 250, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}: ${last.slice(0, 20).join("; ")}\nmanager said:\n${tail()}`);
  });
}

const recorded = () => stored().filter((s) => recordOf(s).length > 0).length;
const inUse = (pick: (ip: string) => boolean) => new Set(stored().flatMap(recordOf).filter(pick));

test("200 Services, 8 parallel syncs, two SIGKILLs, half deleted, 50 more: no duplicate, no leaked address", async () => {
  const started = Date.now();
  await startManager();
  await create(requesting);
  await converge(requesting, [], "the requested addresses");
  await create(automatic.slice(0, 90));
  await poll(() => recorded() >= 60, { timeoutMs: 90_000, everyMs: 50, message: `60 records; said:\n${tail()}` });
  const atKill1 = recorded();
  await restartManager(); // kill 1: mid-way through the first 200
  await create(automatic.slice(90));
  await converge(first, [], "the first 200 Services");

  const freed = new Set(doomed.flatMap((w) => recordOf(stored().find((s) => key(s.metadata ?? {}) === key(w))!)));
  const doomedKeys = new Set(doomed.map(key));
  const present = () => stored().filter((s) => doomedKeys.has(key(s.metadata ?? {}))).length;
  for (const w of doomed) await client.delete(Resources.services, w.name, { namespace: w.namespace });
  await poll(() => present() <= doomed.length - 20, { timeoutMs: 90_000, everyMs: 50, message: "20 deletions" });
  const atKill2 = present();
  await restartManager(); // kill 2: deletions under way
  const kept = first.filter((_, i) => i % 2 === 1);
  await create(late);
  await converge([...kept, ...late], doomed, "the remaining and the late Services");

  // Every free address of team-a's pool and of the IPv6 pool, then one more of each, which must be refused.
  const teamA = inUse((ip) => ip.startsWith("198.51.100.")).size;
  const six = inUse((ip) => ip.includes(":")).size;
  const fill = [
    ...many(TEAM_A_POOL - teamA, (i) => ({ name: `fill-${i}`, namespace: "team-a" })),
    ...many(V6_POOL - six, (i) => ({ name: `fill6-${i}`, namespace: "default", ...v6 })),
  ];
  const overflow = [
    { name: "overflow", namespace: "team-a" },
    { name: "overflow6", namespace: "default", ...v6 },
  ];
  await create([...fill, ...overflow]);
  const alive = [...kept, ...late, ...fill];
  await converge(alive, doomed, "the pools filled");
  for (const w of overflow) {
    let events: Event[] = [];
    await poll(
      async () => {
        events = (await client.list<Event>(Resources.events, { namespace: w.namespace })).items;
        return events.some((e) => e.involvedObject?.name === w.name && /no free IPv[46] address/.test(e.message ?? ""));
      },
      { timeoutMs: 60_000, everyMs: 250, message: `${w.name} refused; events ${JSON.stringify(events.slice(-3))}` },
    );
  }

  expect(problems(alive, doomed)).toEqual([]);
  const services = stored();
  // The overflow Services hold nothing; every address in use is some Service's ingress, and the other way round.
  for (const w of overflow) {
    const svc = services.find((s) => key(s.metadata ?? {}) === key(w));
    expect({ w: w.name, record: recordOf(svc!), ingress: ingressOf(svc!) }).toEqual({
      w: w.name,
      record: [],
      ingress: [],
    });
  }
  expect([...new Set(services.flatMap(recordOf))].sort()).toEqual([...new Set(services.flatMap(ingressOf))].sort());
  expect(inUse((ip) => ip.startsWith("198.51.100.")).size).toBe(TEAM_A_POOL);
  expect(inUse((ip) => ip.includes(":")).size).toBe(V6_POOL);
  // Freed addresses came back: late and fill Services hold addresses the deleted ones held.
  const reused = [...late, ...fill].flatMap((w) => recordOf(services.find((s) => key(s.metadata ?? {}) === key(w))!));
  expect(reused.filter((ip) => freed.has(ip)).length).toBeGreaterThan(50);
  // Each restart rebuilt the allocations from the Services' records.
  for (const m of managers.slice(1)) expect(m.output()).toMatch(/load balancers: [1-9]\d* allocations restored/);
  expect(manager().proc.exitCode).toBeNull();

  // Nodes: from the inventory where there is an entry, from their own report where not; none left tainted.
  const nodes = async () => (await client.list<Node>(Resources.nodes)).items;
  const uninitialized = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
  await poll(async () => !(await nodes()).some(uninitialized), { message: "nodes initialised" });
  const seen = (await nodes()).map((n) => [n.metadata?.name, n.spec?.providerID, n.metadata?.labels?.[Labels.zone]]);
  expect(seen).toEqual([
    ["node-1", "metal://rack1-slot1", "rack-1"],
    ["node-2", "metal://node-2", "rack-2"],
    ["node-3", "metal://node-3", undefined],
  ]);
  console.log(
    `metal e2e: ${Date.now() - started}ms; ${atKill1} Services recorded at the first SIGKILL, ${atKill2} of ` +
      `${doomed.length} deleted ones still present at the second; ${alive.length} served at the end`,
  );
}, 420_000);
