/**
 * Leader fencing with `metal` end to end: two compiled `metal-cloud-controller-manager`s with `--leader-elect=true`
 * and short timings share the API emulator (in this process), each through a recording proxy of its own
 * (support/api-proxy.ts) so every Kubernetes request is attributed to the manager that sent it. Service writes are
 * held 100ms on their way and the managers' clients are rate limited, with six times more Services than workers, so
 * when the leader is paused (SIGSTOP, right after a renewal, past its lease) it has Services queued whose writes are
 * due the moment it runs again, before its renew loop's next turn.
 *
 * Proved: the old leader's term is ended by the synchronous check of its first write after SIGCONT (the renew
 * deadline on the wall clock), every write it had in hand is refused, none is sent from the standby's acquire time on,
 * and it exits 1; at no moment does an address belong to two Services, checked at every version of every Service
 * through a watch (ingress, the allocation record, the kube-vip annotation). Figures are printed. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Lease, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { KubeVipAnnotations, MetalAnnotations } from "../providers/metal/annotations.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { type ApiProxy, startApiProxy } from "./support/api-proxy.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

const SERVICES = 24;
const WORKERS = 4;
const SERVICE_WRITE_DELAY_MS = 100;
const LE_FLAGS = [
  "--leader-elect=true",
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=1s",
  "--controllers=cloud-node,service",
  `--concurrent-service-syncs=${WORKERS}`,
  // Writes queue on the client's rate limiter, as they do on a busy manager: when the paused leader runs again,
  // the first thing to run may be a worker whose turn came during the pause, not the renew loop.
  "--kube-api-qps=4",
  "--kube-api-burst=1",
  // Debug: a write refused while stopping is logged at this level.
  "--v=4",
];
const cloudConfig = `
loadBalancer:
  global: { addresses: [192.0.2.1-192.0.2.200] }
`;
const LEASE = { namespace: "kube-system", name: "cloud-controller-manager" };
const isLeaseWrite = (path: string) => path.startsWith("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/");
const isServiceWrite = (method: string, path: string) =>
  method !== "GET" && /^\/api\/v1\/namespaces\/[^/]+\/services\//.test(path);

let api: ApiServer;
let client: KubeClient;
let dir = "";
const managers: { process: RunningProcess; proxy: ApiProxy }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-fence-metal-"));
  api = await startApiServer({ bookmarkIntervalMs: 2_000 });
  const kubeconfig = await api.writeKubeconfig(join(dir, "kubeconfig"));
  client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  for (const [i, name] of ["node-1", "node-2"].entries()) {
    const machine = { id: `m-${i}`, name, providerID: "", zone: "", region: "", instanceType: "" };
    await client.create(Resources.nodes, registrationOf({ ...machine, addresses: [], state: "running" }, new Date()));
  }
  await writeFile(join(dir, "metal.yaml"), cloudConfig, { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  for (const m of managers) if (m.process.proc.exitCode === null) m.process.proc.kill("SIGKILL");
  await Promise.all(managers.map((m) => m.process.exited));
  await Promise.all(managers.map((m) => m.proxy.stop()));
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A metal manager whose Kubernetes requests all go through a proxy of its own. */
async function startManager(n: number): Promise<{ process: RunningProcess; proxy: ApiProxy }> {
  const proxy = startApiProxy(api.url, {
    delayMs: (method, path) => (isServiceWrite(method, path) ? SERVICE_WRITE_DELAY_MS : 0),
  });
  const kubeconfig = join(dir, `kubeconfig-${n}`);
  await writeFile(kubeconfig, api.kubeconfig().replace(api.url, proxy.url), { mode: 0o600 });
  const files = { kubeconfig, cloudConfig: join(dir, "metal.yaml") };
  const process = spawnCollecting(await managerCommand(files, LE_FLAGS, { provider: "metal", clusterCIDR: "" }));
  const m = { process, proxy };
  managers.push(m);
  return m;
}

const lease = () => api.store.get<Lease>(Resources.leases, LEASE.name, { namespace: LEASE.namespace });
const holder = () => {
  try {
    return lease().spec?.holderIdentity ?? "";
  } catch {
    return "";
  }
};
const split = (s: string | undefined) => (s ? s.split(",").filter((ip) => ip !== "") : []);
const keyOf = (s: Service) => `${s.metadata?.namespace}/${s.metadata?.name}`;

/** Every address a Service claims in any of the places that announce or record one. */
function claimed(s: Service): Set<string> {
  const annotations = s.metadata?.annotations ?? {};
  return new Set([
    ...(s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? ""),
    ...split(annotations[MetalAnnotations.allocatedIPs]),
    ...split(annotations[KubeVipAnnotations.loadBalancerIPs]),
  ]);
}

/**
 * Watches every Service from `resourceVersion` and checks, after each event, that no address is claimed by two
 * Services in the state the event leaves: every version the API server went through is seen, none is skipped.
 */
function watchForSharedAddresses(resourceVersion: string, initial: Service[], signal: AbortSignal) {
  const current = new Map(initial.map((s) => [keyOf(s), s]));
  const violations: string[] = [];
  let events = 0;
  const check = (rv: string) => {
    const by = new Map<string, string>();
    for (const [key, s] of current) {
      for (const ip of claimed(s)) {
        const other = by.get(ip);
        if (other) violations.push(`at version ${rv}: ${ip} held by ${other} and ${key}`);
        else by.set(ip, key);
      }
    }
  };
  const done = (async () => {
    let rv = resourceVersion;
    while (!signal.aborted) {
      try {
        for await (const e of client.watch<Service>(Resources.services, { resourceVersion: rv, signal })) {
          if (e.type === "ERROR") throw new Error(`watch error: ${JSON.stringify(e.object)}`);
          rv = e.object.metadata?.resourceVersion ?? rv;
          if (e.type === "BOOKMARK") continue;
          events++;
          if (e.type === "DELETED") current.delete(keyOf(e.object));
          else current.set(keyOf(e.object), e.object);
          check(rv);
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    }
  })();
  return { violations, events: () => events, current, done };
}

const serviceOf = (i: number): Service => ({
  metadata: { name: `svc-${i}`, namespace: "default" },
  spec: {
    type: "LoadBalancer",
    selector: { app: `svc-${i}` },
    ports: [{ name: "p", port: 80, targetPort: 8080, protocol: "TCP" }],
  },
});

test(`metal: a leader paused with ${SERVICES} Services in hand writes nothing once the standby holds the lease, and no address is ever held by two Services`, async () => {
  const a = await startManager(1);
  const b = await startManager(2);
  await poll(() => holder() !== "" && [a, b].some((m) => m.process.output().includes("became leader")), {
    timeoutMs: 60_000,
    message: `a leader:\n${a.process.output()}\n---\n${b.process.output()}`,
  });
  const [leader, standby] = a.process.output().includes("became leader") ? [a, b] : [b, a];
  const leaderId = holder();
  await poll(() => standby.process.output().includes(`new leader elected: ${leaderId}`), {
    timeoutMs: 30_000,
    message: `the standby to see ${leaderId}:\n${standby.process.output()}`,
  });
  await poll(() => leader.process.output().includes('started "service-lb-controller"'), {
    timeoutMs: 30_000,
    message: `the leader's service controller:\n${leader.process.output()}`,
  });

  const watching = new AbortController();
  const start = api.store.list<Service>(Resources.services);
  const watch = watchForSharedAddresses(start.resourceVersion, start.items, watching.signal);
  for (let i = 0; i < SERVICES; i++) await client.create(Resources.services, serviceOf(i), { namespace: "default" });

  // Pause the leader in the middle of its work (a few Services recorded, the rest queued on its rate limiter), right
  // after it renewed: its renew loop's next turn is then due after the queued writes', so a write runs first.
  const recorded = () =>
    api.store
      .list<Service>(Resources.services)
      .items.filter((s) => s.metadata?.annotations?.[MetalAnnotations.allocatedIPs]).length;
  await poll(() => recorded() >= 2, {
    timeoutMs: 60_000,
    everyMs: 20,
    message: `the leader's first allocations:\n${leader.process.output().slice(-3000)}`,
  });
  const renewals = () => leader.proxy.writes().filter((w) => isLeaseWrite(w.path) && w.status === 200).length;
  const before = renewals();
  await poll(() => renewals() > before, { timeoutMs: 10_000, everyMs: 5, message: "the leader's next renewal" });
  leader.process.proc.kill("SIGSTOP");
  const pausedAt = Date.now();
  const inFlightAtPause = leader.proxy.writes().filter((w) => w.answeredAt === 0).length;
  const recordedAtPause = recorded();

  await poll(() => holder() !== "" && holder() !== leaderId, {
    timeoutMs: 30_000,
    message: "the standby to take over",
  });
  const heldSince = Date.parse(lease().spec?.acquireTime ?? "");
  expect(Number.isFinite(heldSince)).toBeTrue();
  // The new leader at work on the same Services the old one still has in hand.
  await poll(() => standby.proxy.writes().some((w) => isServiceWrite(w.method, w.path) && w.receivedAt >= heldSince), {
    timeoutMs: 30_000,
    message: `the new leader's first Service write:\n${standby.process.output().slice(-3000)}`,
  });
  const resumeOutputFrom = leader.process.output().length;
  leader.process.proc.kill("SIGCONT");
  const resumedAt = Date.now();
  const code = await leader.process.exited;

  // Everything served once, by the new leader.
  await poll(
    () => {
      const items = api.store.list<Service>(Resources.services).items;
      return items.length === SERVICES && items.every((s) => (s.status?.loadBalancer?.ingress ?? []).length === 1);
    },
    { timeoutMs: 120_000, everyMs: 250, message: `every Service served:\n${standby.process.output().slice(-3000)}` },
  );
  watching.abort();
  await watch.done;

  const after = leader.process.output().slice(resumeOutputFrom);
  const refused = after.match(/ refused: /g)?.length ?? 0;
  const late = leader.proxy.writes().filter((w) => w.receivedAt >= heldSince);
  const ended = /leadership lost: [^\n]*/.exec(after)?.[0] ?? /failed to renew lease[^\n]*/.exec(after)?.[0] ?? "?";
  console.log(
    `metal pause: paused ${resumedAt - pausedAt}ms with ${recordedAtPause} of ${SERVICES} Services recorded and ` +
      `${inFlightAtPause} of the leader's writes in flight; after SIGCONT ${refused} writes refused by the fence, ` +
      `${late.length} sent after the standby's acquire time (${leader.proxy.writes().length} writes in all); ` +
      `the new leader made ${standby.proxy.writes().length}; ${watch.events()} Service versions watched, ${watch.violations.length} with an address held twice; ` +
      `the term ended with "${ended}"`,
  );
  expect(late.map((w) => `${w.method} ${w.path}`)).toEqual([]);
  expect(watch.violations).toEqual([]);
  expect(code).toBe(1);
  expect(after).toContain("exiting: leaderelection lost");
  // Work was in hand when the leader woke, and its writes were refused at the write: the term was ended by the first
  // write's own check of the renew deadline (not by the renew loop's overdue turn), and more than one write was
  // refused after it.
  expect(SERVICES - recordedAtPause).toBeGreaterThan(WORKERS);
  expect(ended).toMatch(/^leadership lost: not renewed for [\d.]+s, past the renew deadline of 3s/);
  expect(refused).toBeGreaterThanOrEqual(2);
  // Every Service holds an address of its own at the end, agreed by the record and the status.
  const final = api.store.list<Service>(Resources.services).items;
  const ips = final.map((s) => s.status?.loadBalancer?.ingress?.[0]?.ip ?? "");
  expect(new Set(ips).size).toBe(SERVICES);
  for (const s of final)
    expect(split(s.metadata?.annotations?.[MetalAnnotations.allocatedIPs])).toEqual([
      s.status?.loadBalancer?.ingress?.[0]?.ip ?? "",
    ]);
}, 240_000);
