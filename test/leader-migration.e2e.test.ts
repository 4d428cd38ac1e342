/**
 * Leader migration end to end: two compiled managers on one sandbox cluster, as during a switch from a
 * kube-controller-manager running cloud loops to this manager — each under a main lock of its own
 * (`--leader-elect-resource-name=kube-controller-manager` and the default `cloud-controller-manager`), both with
 * `--enable-leader-migration` and one `LeaderMigrationConfiguration` that migrates `service-lb-controller`. Both hold
 * their main lock at once; only the holder of the migration lock runs the service controller. The simulated cloud's
 * write log (docs/sandbox.md) attributes each write to a manager by its User-Agent (`… pid <pid>`), and each
 * manager's Kubernetes requests go through a recording proxy of its own (support/api-proxy.ts).
 *
 * - Handed over on SIGTERM: the holder's cloud writes in flight are answered before the other manager's first one;
 *   the other made none before it took the migration lock.
 * - Taken over from a holder paused (SIGSTOP) past its lease with writes in hand: once resumed it sends no cloud
 *   or Kubernetes write from the new holder's acquire time on, and it exits 1.
 *
 * Figures are printed, not asserted. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Lease, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { lbService } from "./scenarios/services.ts";
import { type ApiProxy, startApiProxy, writeProxiedConfig } from "./support/api-proxy.ts";
import { poll, type RunningProcess, spawnManager } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

const MIGRATION_LEASE = "ccm-e2e-migration";
const CONFIG = `kind: LeaderMigrationConfiguration
apiVersion: controllermanager.config.k8s.io/v1
leaderName: ${MIGRATION_LEASE}
controllerLeaders:
  - name: service-lb-controller
    component: "*"
`;
const LE_FLAGS = [
  "--leader-elect=true",
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=1s",
  "--controllers=service,cloud-node",
  "--enable-leader-migration",
];
/** Every cloud call takes this long: writes are in flight when the holder is stopped or paused. */
const CLOUD_LATENCY_MS = 400;

interface Write {
  method: string;
  path: string;
  status: number;
  userAgent: string;
  receivedAt: number;
  answeredAt: number;
}

const byPid = (pid: number) => (w: Write) => w.userAgent.endsWith(`pid ${pid})`);

describe("leader migration between two compiled managers", () => {
  let sandbox: Sandbox;
  let configFile = "";
  const started: RunningProcess[] = [];
  const proxies = new Map<RunningProcess, ApiProxy>();
  let serial = 0;
  let created = 0;
  const lease = async (name: string) =>
    sandbox.client.get<Lease>(Resources.leases, name, { namespace: "kube-system" }).catch(() => undefined);
  const holder = async (name: string) => (await lease(name))?.spec?.holderIdentity ?? "";
  const writes = async () => (await sandbox.cloud.call<{ writes: Write[] }>("GET", "/v1/calls/writes")).writes;
  const createServices = async (prefix: string, n: number) => {
    for (let i = 0; i < n; i++) await sandbox.client.create<Service>(Resources.services, lbService(`${prefix}-${i}`));
    created += n;
  };
  const migrated = (p: RunningProcess) => p.output().includes("leader migration: starting migrated controllers.");
  /**
   * Starts the "kube-controller-manager" and the "cloud-controller-manager", waits until each holds its main lock
   * and one holds the migration lock; resolves with [migration holder, the other].
   */
  const startBoth = async (extra: string[] = []): Promise<[RunningProcess, RunningProcess]> => {
    const flags = [...LE_FLAGS, `--leader-migration-config=${configFile}`, ...extra];
    const server = loadTransport({ kubeconfig: sandbox.kubeconfig }).server;
    const start = async (more: string[]) => {
      const proxy = startApiProxy(server);
      const kubeconfig = join(sandbox.dir, `kubeconfig-proxied-${serial++}`);
      await writeProxiedConfig(sandbox.kubeconfig, kubeconfig, server, proxy);
      const p = await spawnManager({ kubeconfig, cloudConfig: sandbox.cloudConfig }, [...flags, ...more]);
      proxies.set(p, proxy);
      return p;
    };
    const kcm = await start(["--leader-elect-resource-name=kube-controller-manager"]);
    const ccm = await start([]);
    started.push(kcm, ccm);
    const outputs = () => `${kcm.output()}\n---\n${ccm.output()}`;
    await poll(() => [kcm, ccm].every((p) => p.output().includes("leader migration: starting main controllers.")), {
      timeoutMs: 60_000,
      message: `both main locks held; outputs:\n${outputs()}`,
    });
    await poll(async () => (await holder(MIGRATION_LEASE)) !== "" && [kcm, ccm].some(migrated), {
      timeoutMs: 30_000,
      message: `a migration lock holder; outputs:\n${outputs()}`,
    });
    const [owner, other] = migrated(kcm) ? [kcm, ccm] : [ccm, kcm];
    expect(migrated(other)).toBeFalse();
    // Only the migration lock's holder runs the migrated controller; each main term runs cloud-node.
    await poll(
      () =>
        owner.output().includes('started "service-lb-controller"') &&
        [owner, other].every((p) => p.output().includes('started "cloud-node-controller"')),
      { timeoutMs: 30_000, message: `the controllers started; outputs:\n${outputs()}` },
    );
    expect(other.output()).not.toContain('started "service-lb-controller"');
    return [owner, other];
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ nodes: 2 });
    configFile = join(sandbox.dir, "leader-migration.yaml");
    await writeFile(configFile, CONFIG);
  }, 120_000);
  afterEach(async () => {
    for (const p of started) if (p.proc.exitCode === null) p.proc.kill("SIGKILL");
    await Promise.all(started.splice(0).map((p) => p.exited));
    await Promise.all([...proxies.values()].map((p) => p.stop()));
    proxies.clear();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  test("on SIGTERM the migration lock's holder hands the service controller over: its cloud and Service writes are answered before the other manager's first, which made none before", async () => {
    await sandbox.cloud.setFaults({ latencyMs: 3 * CLOUD_LATENCY_MS });
    await sandbox.cloud.call("DELETE", "/v1/calls");
    const [owner, other] = await startBoth();
    const ownerId = await holder(MIGRATION_LEASE);
    await createServices(`term${serial++}`, 4);
    await poll(async () => (await writes()).some(byPid(owner.proc.pid)), {
      timeoutMs: 30_000,
      message: `the migration holder at work:\n${owner.output()}`,
    });
    const start = performance.now();
    owner.proc.kill("SIGTERM");
    await poll(async () => ![ownerId, ""].includes(await holder(MIGRATION_LEASE)), {
      timeoutMs: 30_000,
      message: `the other manager to take the migration lock:\n${owner.output()}\n---\n${other.output()}`,
    });
    const handoverMs = performance.now() - start;
    const acquired = Date.parse((await lease(MIGRATION_LEASE))?.spec?.acquireTime ?? "");
    expect(await owner.exited).toBe(0);
    await poll(() => migrated(other), { timeoutMs: 30_000, message: `migrated controllers:\n${other.output()}` });
    // New work, so the new holder writes even if the old one finished everything.
    await createServices(`term${serial++}`, 2);
    await poll(async () => (await writes()).some(byPid(other.proc.pid)), {
      timeoutMs: 60_000,
      message: `the new holder's first cloud write:\n${other.output()}`,
    });
    const log = await writes();
    const oldLast = Math.max(...log.filter(byPid(owner.proc.pid)).map((w) => w.answeredAt));
    const newFirst = Math.min(...log.filter(byPid(other.proc.pid)).map((w) => w.receivedAt));
    console.log(
      `SIGTERM with ${3 * CLOUD_LATENCY_MS}ms cloud latency: migration lock handed over ${Math.round(handoverMs)}ms ` +
        `after the signal; the old holder's last write answered ${newFirst - oldLast}ms before the new holder's first`,
    );
    expect(newFirst).toBeGreaterThanOrEqual(oldLast);
    expect(newFirst).toBeGreaterThanOrEqual(acquired);
    // The same for the Service writes on the Kubernetes side (status, finalizers).
    const serviceWrites = (p: RunningProcess) =>
      (proxies.get(p)?.writes() ?? []).filter((w) => /\/services\//.test(w.path));
    expect(serviceWrites(owner).length).toBeGreaterThan(0);
    const oldKubeLast = Math.max(...serviceWrites(owner).map((w) => w.answeredAt));
    expect(serviceWrites(other).filter((w) => w.receivedAt < Math.max(acquired, oldKubeLast))).toEqual([]);
    expect(owner.output()).toContain(`successfully released lease kube-system/${MIGRATION_LEASE}`);
  }, 180_000);

  test("a migration lock holder resumed after a pause past its lease sends no cloud or Service write once the other manager holds the lock, and exits 1", async () => {
    await sandbox.cloud.setFaults({ latencyMs: CLOUD_LATENCY_MS });
    await sandbox.cloud.call("DELETE", "/v1/calls");
    // More Services than workers and a rate-limited client keep writes in hand when the holder is paused; --v=4 logs
    // each write the fence refuses.
    const [owner, other] = await startBoth([
      "--concurrent-service-syncs=4",
      "--kube-api-qps=4",
      "--kube-api-burst=1",
      "--v=4",
    ]);
    const ownerId = await holder(MIGRATION_LEASE);
    await createServices(`pause${serial++}`, 12);
    await poll(async () => (await writes()).filter(byPid(owner.proc.pid)).length >= 2, {
      timeoutMs: 30_000,
      message: `the holder's first cloud writes:\n${owner.output()}`,
    });
    // Right after a renewal of the migration lock, so the writes due first on waking run before its renew loop.
    const renewed = (await lease(MIGRATION_LEASE))?.spec?.renewTime;
    await poll(async () => (await lease(MIGRATION_LEASE))?.spec?.renewTime !== renewed, {
      timeoutMs: 10_000,
      everyMs: 5,
      message: "the holder's next renewal",
    });
    owner.proc.kill("SIGSTOP");
    const pausedAt = Date.now();
    await poll(async () => ![ownerId, ""].includes(await holder(MIGRATION_LEASE)), {
      timeoutMs: 30_000,
      message: `the other manager to take the migration lock:\n${other.output()}`,
    });
    const heldSince = Date.parse((await lease(MIGRATION_LEASE))?.spec?.acquireTime ?? "");
    expect(Number.isFinite(heldSince)).toBeTrue();
    await poll(async () => (await writes()).some((w) => byPid(other.proc.pid)(w) && w.receivedAt >= heldSince), {
      timeoutMs: 30_000,
      message: `the new holder's first cloud write:\n${other.output()}`,
    });
    const from = owner.output().length;
    owner.proc.kill("SIGCONT");
    const resumedAt = Date.now();
    const code = await owner.exited;
    const mine = (await writes()).filter(byPid(owner.proc.pid));
    const late = mine.filter((w) => w.receivedAt >= heldSince);
    const kube = proxies.get(owner)?.writes() ?? [];
    // The migrated controller's objects: cloud-node runs in both managers, each under its own main lock.
    const lateKube = kube.filter((w) => w.receivedAt >= heldSince && /\/services\//.test(w.path));
    const after = owner.output().slice(from);
    const ended = /leadership lost: [^\n]*/.exec(after)?.[0] ?? "?";
    console.log(
      `pause: paused ${resumedAt - pausedAt}ms; the old holder made ${mine.length} cloud and ${kube.length} ` +
        `Kubernetes writes, ${late.length} and ${lateKube.length} of Services after ` +
        `the other took the migration lock; ${after.match(/ refused: /g)?.length ?? 0} writes refused after SIGCONT; ` +
        `the term ended with "${ended}"`,
    );
    expect(late).toEqual([]);
    expect(lateKube.map((w) => `${w.method} ${w.path}`)).toEqual([]);
    expect(code).toBe(1);
    // Ended by the fence's synchronous check at its first write after SIGCONT, with writes in hand refused.
    expect(ended).toMatch(/^leadership lost: not renewed for [\d.]+s, past the renew deadline of 3s/);
    expect(after.match(/ refused: /g)?.length ?? 0).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/exiting: (migration )?leaderelection lost/);
    await poll(async () => (await sandbox.cloud.loadBalancers()).length === created, {
      timeoutMs: 60_000,
      message: `every load balancer from the new holder:\n${other.output().slice(-3000)}`,
    });
  }, 180_000);
});
