/**
 * `npx bun scripts/bench/upstream/index.ts`: ours beside upstream's Go cloud-controller-manager 1.20 (with its fake
 * cloud, built by ./build.ts from Debian's source package) on the same real kube-apiserver 1.20.2 of the `test:real`
 * tier, alternating run by run. A benchmark, not a test. Prints a Markdown table (docs/performance.md keeps one).
 *
 *   npx bun scripts/bench/upstream/index.ts                     start-up, idle RSS, 200 and 1000 joins
 *   npx bun scripts/bench/upstream/index.ts --sizes=200 --runs=1 --services=0
 *   npx bun scripts/bench/upstream/index.ts --sizes= --runs=1 --services=100   only the load balancers
 *   npx bun scripts/bench/upstream/index.ts --only-ours --sizes=5000 --runs=1 --services=0   ours alone (no Go build)
 *
 * Ours runs the sandbox provider against the simulated cloud over HTTP (the fake provider is not shippable), so it
 * does more work per node than the Go side. Joins: the Nodes are created as kubelets register them (tainted), then
 * the manager is spawned; the clock runs from the spawn to no Node carrying the uninitialized taint. 429 answers are
 * counted from the server's `apiserver_request_total{code="429"}`. RSS from /proc/<pid>/status. Both managers run as
 * the user `ccm-bench` (bound to cluster-admin), not the admin: system:masters is APF's exempt priority level, a
 * cloud-controller-manager's identity is not.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { createKubeClient } from "../../../kube/client.ts";
import { type KubeClient, Resources } from "../../../kube/client-types.ts";
import type { Node, Service } from "../../../kube/objects.ts";
import { kubeletNode } from "../../../kube/testdata/kubelet-node.ts";
import { loadTransport } from "../../../kube/transport.ts";
import { Taints } from "../../../kube/well-known.ts";
import { createMachines } from "../../../sandbox/cloud/fixtures.ts";
import { startSimulatedCloud } from "../../../sandbox/cloud/server.ts";
import { collectOutput, freePort } from "../../lib/processes.ts";
import { ensureKubeApiserver } from "../../real-apiserver/build.ts";
import { type RealApiServer, startRealApiServer } from "../../real-apiserver/server.ts";
import { benchExecutable } from "../ccm.ts";
import { hasIngress, loadBalancerService } from "../fixtures.ts";
import { ensureUpstreamCcm } from "./build.ts";
import { breakdownMarkdown, type MemoryBreakdown, oursMemory, type Scenario, upstreamMemory } from "./memory.ts";
import { type SyncLag, watchSyncLag } from "./sync-lag.ts";

const QPS_1000 = ["--kube-api-qps=1000", "--kube-api-burst=1000"];
const log = (line: string) => console.error(`bench: ${line}`);

type Side = "upstream" | "ours";
interface Running {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

export interface AgainstUpstreamOptions {
  /** Node counts to join (default 200 and 1000). */
  readonly sizes: readonly number[];
  /** Start-up runs per side, the median taken (default 3). */
  readonly runs: number;
  /** Keep build/bench-bin as it is. */
  readonly reuse: boolean;
  /** LoadBalancer Services created at once (0: none), with 3 Nodes and only the service controller. */
  readonly services: number;
  /** Our executable to measure instead of building build/bench-bin from the working tree. */
  readonly ours?: string | undefined;
  /** A folder to keep our heap snapshots in (`<scenario>.heapsnapshot`), for Chrome DevTools. */
  readonly keepSnapshots?: string | undefined;
  /** Measure ours alone: upstream is neither built nor run (its column shows "–"), for checking a change of ours. */
  readonly onlyOurs?: boolean | undefined;
}

/** Upstream at default flags joins at 20 requests/s: 5000 Nodes would take ~750 s, so sizes above this skip it. */
const UPSTREAM_DEFAULT_FLAGS_MAX_NODES = 1000;

/** Runs every figure, alternating upstream and ours, and prints the Markdown table on stdout. */
export async function runAgainstUpstream(options: AgainstUpstreamOptions): Promise<void> {
  const { sizes, runs, reuse, services } = options;
  const apiserver = await ensureKubeApiserver(log);
  const upstreamBin = options.onlyOurs ? "" : await ensureUpstreamCcm(log);
  const sides: readonly Side[] = options.onlyOurs ? ["ours"] : ["upstream", "ours"];
  const oursBin = options.ours ?? (await benchExecutable(reuse));
  const dir = await mkdtemp(join(tmpdir(), "ccm-bench-upstream-"));
  // Not the admin (system:masters is APF's exempt level): a user whose requests APF classifies as a CCM's would be.
  const benchToken = randomBytes(16).toString("hex");
  const server: RealApiServer = await startRealApiServer({
    binary: apiserver,
    tokens: [{ token: benchToken, user: "ccm-bench" }],
  });
  const binding = await server.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "ccm-bench" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "ccm-bench" }],
  });
  if (binding.status !== 201)
    throw new Error(`ClusterRoleBinding ccm-bench: ${binding.status} ${await binding.text()}`);
  const cloudToken = randomBytes(16).toString("hex");
  const cloud = startSimulatedCloud({ token: cloudToken });
  const kubeconfig = await server.writeKubeconfig(join(dir, "ccm-bench.kubeconfig"), {
    name: "ccm-bench",
    token: benchToken,
  });
  const cloudConfig = join(dir, "cloud.yaml");
  await writeFile(cloudConfig, `url: ${cloud.url}\ntoken: ${cloudToken}\n`, { mode: 0o600 });
  const client: KubeClient = createKubeClient(loadTransport({ kubeconfig: server.kubeconfig }), {
    qps: 0,
    burst: 0,
    userAgent: "bench",
  });
  const machines = createMachines(cloud.state, Math.max(3, ...sizes));

  function spawn(side: Side, extra: string[]): Running {
    const port = freePort();
    const common = [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
      "--leader-elect=false",
      "--configure-cloud-routes=false",
    ];
    const cmd =
      side === "upstream"
        ? [upstreamBin, "--cloud-provider=bench", "--port=0", ...common, ...extra]
        : [oursBin, "--cloud-provider=sandbox", `--cloud-config=${cloudConfig}`, ...common, ...extra];
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } });
    const output = collectOutput(proc).text;
    return {
      proc,
      url: `https://127.0.0.1:${port}`,
      output,
      async stop() {
        proc.kill("SIGTERM");
        const done = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => undefined)]);
        if (done === undefined) proc.kill("SIGKILL");
        await proc.exited;
      },
    };
  }

  const rssMiB = (pid: number): number => {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return Number(kb) / 1024;
  };

  async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50) {
    const deadline = performance.now() + timeoutMs;
    while (!(await cond())) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await Bun.sleep(everyMs);
    }
  }

  const healthy = async (url: string) => {
    try {
      const r = await fetch(`${url}/healthz`, { tls: { rejectUnauthorized: false }, keepalive: false });
      return r.status === 200;
    } catch {
      return false;
    }
  };

  async function throttledCount(): Promise<number> {
    const text = await (await server.request("GET", "/metrics")).text();
    let n = 0;
    for (const line of text.split("\n")) {
      if (line.startsWith("apiserver_request_total{") && line.includes('code="429"'))
        n += Number(line.split(" ").pop());
    }
    return n;
  }

  async function clearNodes(): Promise<void> {
    await server.request("DELETE", "/api/v1/nodes");
    await until("no Nodes left", async () => (await client.list(Resources.nodes)).items.length === 0, 120_000, 200);
  }

  /**
   * n kubelet-shaped Nodes (kube/testdata/kubelet-node.ts: 30 images with digests, capacity, five conditions, node
   * info, daemon endpoints, volumes; 8.2 KiB of JSON as sent), tainted uninitialized, the same for both managers; what
   * the server sets itself (uid, resourceVersion, creationTimestamp, managedFields) is left to it.
   */
  async function registerNodes(n: number): Promise<void> {
    const todo = machines.slice(0, n);
    const registration = (name: string, i: number): Node => {
      const node = kubeletNode(name, i);
      const {
        uid: _u,
        resourceVersion: _r,
        creationTimestamp: _c,
        managedFields: _m,
        ...metadata
      } = node.metadata ?? {};
      return { ...node, metadata };
    };
    for (let i = 0; i < todo.length; i += 50) {
      await Promise.all(
        todo.slice(i, i + 50).map((m, j) => client.create(Resources.nodes, registration(m.name, i + j))),
      );
    }
  }

  /** Ours' `event_recorder_dropped_events_total{reason}` from its /metrics (reasons never counted are absent). */
  async function droppedEvents(url: string): Promise<Record<string, number>> {
    const r = await fetch(`${url}/metrics`, {
      tls: { rejectUnauthorized: false },
      keepalive: false,
      headers: { authorization: `Bearer ${benchToken}` },
    });
    if (r.status !== 200) throw new Error(`ours /metrics: ${r.status} ${await r.text()}`);
    const out: Record<string, number> = {};
    for (const m of (await r.text()).matchAll(/^event_recorder_dropped_events_total\{reason="(\w+)"\} (\S+)$/gm)) {
      out[m[1] as string] = Number(m[2]);
    }
    return out;
  }

  const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

  /** Where the bytes are, read from outside (/proc) and from the runtime's own figures; see ./memory.ts. */
  const breakdown = (side: Side, ccm: Running, label: string): Promise<MemoryBreakdown> =>
    side === "upstream"
      ? upstreamMemory(ccm.proc.pid, ccm.url, benchToken)
      : oursMemory(ccm.proc.pid, ccm.url, benchToken, label.replaceAll(/[^\w.-]+/g, "-"), options.keepSnapshots);

  /** Start-up to /healthz (ms) and RSS 10 s later (MiB), with no Nodes. */
  async function startup(side: Side): Promise<{ ms: number; rss: number; memory: MemoryBreakdown }> {
    const t0 = performance.now();
    const ccm = spawn(side, []);
    try {
      await until(`${side} /healthz`, () => healthy(ccm.url), 60_000, 5);
      const ms = performance.now() - t0;
      await Bun.sleep(10_000);
      const rss = rssMiB(ccm.proc.pid);
      return { ms, rss, memory: await breakdown(side, ccm, "idle") };
    } finally {
      await ccm.stop();
    }
  }

  /** Seconds from spawn to every Node initialised, 429s counted, RSS 10 s after. */
  /** Seconds from spawn to every Service with an ingress; then the Services are deleted while it still runs. */
  async function loadBalancers(side: Side, n: number, extra: string[]): Promise<{ s: number; throttled: number }> {
    const namespace = "default";
    for (let i = 1; i <= n; i++) await client.create(Resources.services, loadBalancerService(i), { namespace });
    const before = await throttledCount();
    const t0 = performance.now();
    const ccm = spawn(side, ["--controllers=service", ...extra]);
    try {
      await until(
        `${n} Services with ingress from ${side}`,
        async () => {
          if (ccm.proc.exitCode !== null) throw new Error(`${side} exited:\n${ccm.output().slice(-2000)}`);
          const all = (await client.list<Service>(Resources.services, { namespace })).items;
          return all.filter((x) => x.spec?.type === "LoadBalancer" && hasIngress(x)).length === n;
        },
        600_000,
        100,
      );
      const s = (performance.now() - t0) / 1000;
      const throttled = (await throttledCount()) - before;
      for (let i = 1; i <= n; i++) await client.delete(Resources.services, `lb-${i}`, { namespace });
      await until(
        "the Services gone (finalizers removed)",
        async () =>
          (await client.list<Service>(Resources.services, { namespace })).items.every(
            (x) => !x.metadata?.name?.startsWith("lb-"),
          ),
        600_000,
        200,
      );
      return { s, throttled };
    } finally {
      await ccm.stop();
    }
  }

  interface Joined {
    readonly s: number;
    readonly throttled: number;
    readonly rss: number;
    readonly memory: MemoryBreakdown;
    readonly lag: SyncLag;
    /** Ours: `event_recorder_dropped_events_total` by reason, read once the lag watch finished. */
    readonly dropped?: Readonly<Record<string, number>>;
  }
  /** Seconds from spawn to every Node initialised, 429s counted, RSS and the breakdown 10 s after, Synced lag. */
  async function join_(side: Side, n: number, extra: string[], label: string): Promise<Joined> {
    await clearNodes();
    await registerNodes(n);
    const lagWatch = await watchSyncLag(client);
    const before = await throttledCount();
    const t0 = performance.now();
    const ccm = spawn(side, extra);
    try {
      await until(
        `${n} Nodes initialised by ${side}`,
        async () => {
          if (ccm.proc.exitCode !== null) throw new Error(`${side} exited:\n${ccm.output().slice(-2000)}`);
          const nodes = (await client.list<Node>(Resources.nodes)).items;
          return nodes.length === n && !nodes.some(tainted);
        },
        600_000,
        100,
      );
      const s = (performance.now() - t0) / 1000;
      const pacing = /Kubernetes client pacing: (.*)/.exec(ccm.output())?.[1];
      if (pacing) log(`${side}: ${pacing}`);
      const throttled = (await throttledCount()) - before;
      await Bun.sleep(10_000);
      const rss = rssMiB(ccm.proc.pid);
      const memory = await breakdown(side, ccm, `${n} nodes, ${label}`);
      // Events wait behind the client's pacing; 3 minutes is far more than either needs at these sizes.
      const lag = await lagWatch.finish(n, 180_000);
      if (lag.synced < n) log(`${side}: only ${lag.synced} of ${n} Synced events seen`);
      if (side === "upstream") return { s, throttled, rss, memory, lag };
      const dropped = await droppedEvents(ccm.url);
      log(`ours: events dropped by the recorder: ${JSON.stringify(dropped)}`);
      return { s, throttled, rss, memory, lag, dropped };
    } finally {
      await ccm.stop();
    }
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
  };
  const rows: Array<[string, number, number, string]> = [];
  const scenarios: Scenario[] = [];
  const put = (figure: string, up: number, ours: number, unit: string) => rows.push([figure, up, ours, unit]);

  try {
    const idleMemory: Partial<Record<Side, MemoryBreakdown>> = {};
    const boot: Record<Side, { ms: number[]; rss: number[] }> = {
      upstream: { ms: [], rss: [] },
      ours: { ms: [], rss: [] },
    };
    await clearNodes();
    for (let i = 0; i < runs; i++) {
      for (const side of sides) {
        const r = await startup(side);
        log(`start-up ${side}: ${r.ms.toFixed(0)} ms, idle RSS ${r.rss.toFixed(1)} MiB`);
        boot[side].ms.push(r.ms);
        boot[side].rss.push(r.rss);
        idleMemory[side] = r.memory; // the last run's: its figures agree with each other, not with the median
      }
    }
    put("start-up to /healthz", median(boot.upstream.ms), median(boot.ours.ms), "ms");
    put("idle RSS (10 s after /healthz)", median(boot.upstream.rss), median(boot.ours.rss), "MiB");
    scenarios.push({ label: "idle", nodes: 0, ...idleMemory });
    for (const n of sizes) {
      for (const [label, extra] of [
        ["default flags", [] as string[]],
        ["--kube-api-qps=1000 --kube-api-burst=1000", QPS_1000],
      ] as const) {
        const got: Partial<Record<Side, Joined>> = {};
        for (const side of sides) {
          if (side === "upstream" && extra.length === 0 && n > UPSTREAM_DEFAULT_FLAGS_MAX_NODES) {
            // Three requests a Node (the update, the status patch, the Synced event) at 20 a second: 150 s for 1000.
            log(`${n} joins, ${label}, upstream: skipped (20 requests/s: about ${Math.round((3 * n) / 20)} s)`);
            continue;
          }
          const r = await join_(side, n, [...extra], label);
          got[side] = r;
          log(
            `${n} joins, ${label}, ${side}: ${r.s.toFixed(2)} s, ${r.throttled} × 429, RSS ${r.rss.toFixed(1)} MiB, ` +
              `Synced lag median ${r.lag.medianS.toFixed(2)} s max ${r.lag.maxS.toFixed(2)} s (${r.lag.synced}/${n})`,
          );
        }
        scenarios.push({
          label: `${n} nodes, ${label}`,
          nodes: n,
          upstream: got.upstream?.memory,
          ours: got.ours?.memory,
        });
        put(`${n} nodes joining, ${label}`, got.upstream?.s ?? Number.NaN, got.ours?.s ?? Number.NaN, "s");
        put(
          `429 answers during those ${n} joins, ${label}`,
          got.upstream?.throttled ?? Number.NaN,
          got.ours?.throttled ?? Number.NaN,
          "",
        );
        put(`RSS with ${n} nodes, ${label}`, got.upstream?.rss ?? Number.NaN, got.ours?.rss ?? Number.NaN, "MiB");
        put(
          `Synced event after initialisation, median, ${n} nodes, ${label}`,
          got.upstream?.lag.medianS ?? Number.NaN,
          got.ours?.lag.medianS ?? Number.NaN,
          "s",
        );
        put(
          `Synced event after initialisation, max, ${n} nodes, ${label}`,
          got.upstream?.lag.maxS ?? Number.NaN,
          got.ours?.lag.maxS ?? Number.NaN,
          "s",
        );
        put(
          `Synced events seen within 3 min, ${n} nodes, ${label}`,
          got.upstream?.lag.synced ?? Number.NaN,
          got.ours?.lag.synced ?? Number.NaN,
          "",
        );
      }
    }
    if (services > 0) {
      await clearNodes();
      await registerNodes(3);
      for (const [label, extra] of [
        ["default flags", [] as string[]],
        ["--kube-api-qps=1000 --kube-api-burst=1000", QPS_1000],
      ] as const) {
        const got: Partial<Record<Side, { s: number; throttled: number }>> = {};
        for (const side of sides) {
          got[side] = await loadBalancers(side, services, [...extra]);
          log(`${services} Services, ${label}, ${side}: ${got[side]?.s.toFixed(2)} s, ${got[side]?.throttled} × 429`);
        }
        put(
          `${services} LoadBalancer Services, ${label}`,
          got.upstream?.s ?? Number.NaN,
          got.ours?.s ?? Number.NaN,
          "s",
        );
        put(`429 answers during those Services, ${label}`, got.upstream?.throttled ?? 0, got.ours?.throttled ?? 0, "");
      }
    }
  } finally {
    await server.stop();
    await cloud.stop();
    await rm(dir, { recursive: true, force: true });
  }

  const fmt = (x: number, unit: string) =>
    Number.isNaN(x)
      ? "–"
      : unit === "ms"
        ? `${x.toFixed(0)} ms`
        : unit === ""
          ? String(x)
          : `${x.toFixed(unit === "s" ? 2 : 1)} ${unit}`;
  console.log("| figure | upstream Go CCM 1.20 | ours | ours ÷ upstream |");
  console.log("|---|---|---|---|");
  for (const [figure, up, ours, unit] of rows) {
    const ratio = unit === "" || Number.isNaN(ours / up) ? "" : `${(ours / up).toFixed(2)}×`;
    console.log(`| ${figure} | ${fmt(up, unit)} | ${fmt(ours, unit)} | ${ratio} |`);
  }
  if (scenarios.length > 0) console.log(`\nWhere the bytes are:\n\n${breakdownMarkdown(scenarios)}`);
}

/** `--sizes=1000,5000 --runs=3 --reuse-build` (and `--ours`, `--keep-snapshots`) as the options, or an error. */
export function againstUpstreamOptions(
  sizesFlag: string,
  runsFlag: string,
  reuse: boolean,
  servicesFlag = "100",
  paths: {
    readonly ours?: string | undefined;
    readonly keepSnapshots?: string | undefined;
    readonly onlyOurs?: boolean | undefined;
  } = {},
): AgainstUpstreamOptions {
  const sizes = sizesFlag === "" ? [] : sizesFlag.split(",").map(Number);
  const runs = Number(runsFlag);
  const services = Number(servicesFlag);
  if (!Number.isInteger(services) || services < 0) {
    throw new Error(`--services must be a whole number ≥ 0, got "${servicesFlag}"`);
  }
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`--sizes must be whole numbers ≥ 1 separated by commas, got "${sizesFlag}"`);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, got "${runsFlag}"`);
  if (paths.ours !== undefined && !existsSync(paths.ours)) {
    throw new Error(`--ours must name our compiled executable, "${paths.ours}" does not exist (npm run build)`);
  }
  return {
    sizes,
    runs,
    reuse,
    services,
    ours: paths.ours,
    keepSnapshots: paths.keepSnapshots,
    onlyOurs: paths.onlyOurs,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "1000,5000" },
      runs: { type: "string", default: "3" },
      services: { type: "string", default: "100" },
      "reuse-build": { type: "boolean", default: false },
      ours: { type: "string" },
      "keep-snapshots": { type: "string" },
      "only-ours": { type: "boolean", default: false },
    },
  });
  await runAgainstUpstream(
    againstUpstreamOptions(values.sizes, values.runs, values["reuse-build"], values.services, {
      ours: values.ours,
      keepSnapshots: values["keep-snapshots"],
      onlyOurs: values["only-ours"],
    }),
  );
}
