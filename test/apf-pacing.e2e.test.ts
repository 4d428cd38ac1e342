/**
 * APF-aware pacing end to end: the compiled manager against an API emulator that answers with API
 * Priority and Fairness's headers (as kube-apiserver ≥ 1.20 does) or is told not to. The log names the mode in
 * force and why, once; `/metrics` shows it as `cloud_controller_manager_client_pacing{mode}`; explicit flags win.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { pollFor } from "../scripts/lib/processes.ts";
import { type InProcessCluster, startInProcessCluster } from "./support/in-process.ts";
import { METRICS_TOKENS, metricsAuthorizer, scrapeMetrics } from "./support/metrics-reader.ts";
import { freePort, poll, type RunningProcess, spawnManager } from "./support/processes.ts";

setDefaultTimeout(120_000);

const running: Array<{ cluster: InProcessCluster; manager: RunningProcess }> = [];
afterAll(async () => {
  for (const { cluster, manager } of running) {
    manager.proc.kill("SIGKILL");
    await manager.exited;
    await cluster.stop();
  }
});

const pacingSample = (text: string, mode: string): number | undefined => {
  const series = `cloud_controller_manager_client_pacing{mode="${mode}"}`;
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

const cases = [
  {
    name: "an API server with APF and no qps/burst flags: the server's flow control paces the manager",
    headers: true,
    flags: [] as string[],
    mode: "apf",
    log: "Kubernetes client pacing: the API server's flow control (APF headers seen, --kube-api-qps/--kube-api-burst not set)",
  },
  {
    name: "an API server without APF: upstream's client-side defaults hold",
    headers: false,
    flags: [] as string[],
    mode: "client-side",
    log: "Kubernetes client pacing: client-side token bucket at upstream's defaults --kube-api-qps=20 --kube-api-burst=30 (the API server answered without APF headers)",
  },
  {
    name: "an API server with APF and --kube-api-qps set: the flag wins",
    headers: true,
    flags: ["--kube-api-qps=20"],
    mode: "explicit",
    log: "Kubernetes client pacing: client-side token bucket at --kube-api-qps=20 --kube-api-burst=30, set explicitly",
  },
];

describe("APF-aware pacing, compiled, against the API emulator", () => {
  for (const c of cases) {
    test(c.name, async () => {
      const cluster = await startInProcessCluster({
        name: "apf-pacing",
        machines: 2,
        api: { tokens: METRICS_TOKENS, authorizer: metricsAuthorizer, flowControlHeaders: c.headers },
        managerUser: "cloud-controller-manager",
      });
      const port = freePort();
      const base = `https://127.0.0.1:${port}`;
      const manager = await spawnManager(cluster.files, [
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        "--controllers=cloud-node",
        ...c.flags,
      ]);
      running.push({ cluster, manager });
      await poll(() => manager.output().includes("Kubernetes client pacing:"), {
        timeoutMs: 60_000,
        message: "the pacing line in the manager's log",
      });
      const text = await pollFor(
        `cloud_controller_manager_client_pacing{mode="${c.mode}"} 1`,
        async () => {
          const t = await scrapeMetrics(base);
          return pacingSample(t, c.mode) === 1 ? t : undefined;
        },
        { alive: () => manager.proc.exitCode === null },
      );
      for (const other of ["explicit", "client-side", "apf"].filter((m) => m !== c.mode)) {
        expect(pacingSample(text, other)).toBe(0);
      }
      const lines = manager
        .output()
        .split("\n")
        .filter((l) => l.includes("Kubernetes client pacing:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(c.log);
    });
  }
});

describe("a priority level that rejects, compiled, against the API emulator", () => {
  test("every Node is initialised; the manager narrows its flows instead of overrunning the level", async () => {
    const machines = 60;
    const cluster = await startInProcessCluster({
      name: "apf-rejecting",
      machines,
      api: { tokens: METRICS_TOKENS, authorizer: metricsAuthorizer },
      managerUser: "cloud-controller-manager",
    });
    // Two seats, and Node requests slow enough that the manager's 32 workers would hold many at once.
    cluster.api.faults.delay(20, { path: "/api/v1/nodes" });
    cluster.api.flowControlSeats = 2;
    const manager = await spawnManager(cluster.files, ["--controllers=cloud-node"]);
    running.push({ cluster, manager });
    const tainted = () =>
      // The emulator's own store: the test's reads take no seat.
      cluster.api.store
        .list<Node>(Resources.nodes)
        .items.filter((n) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized)).length;
    await poll(() => tainted() === 0, {
      timeoutMs: 90_000,
      message: `all ${machines} Nodes initialised under a two-seat level`,
    });
    const rejected = cluster.api.flowControlRejected;
    // The level did say no, and the manager did not answer by sending every Node's writes into it: before the
    // windows, 32 workers drew a rejection for about every Node (1022 for 1000 on kube-apiserver 1.20).
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThan(machines);
  });
});
