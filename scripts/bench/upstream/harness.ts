/**
 * What every scenario of the side-by-side bench runs on: one real kube-apiserver (the `test:real` tier's) with the
 * user `ccm-bench` bound to cluster-admin, one simulated cloud with a machine for every Node a scenario may join, and
 * a way to spawn either manager against them with the same common flags. Both managers authenticate as
 * `ccm-bench`, not the admin: system:masters is APF's exempt priority level, a cloud-controller-manager's identity
 * is not.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createKubeClient } from "../../../kube/client.ts";
import { type KubeClient, Resources } from "../../../kube/client-types.ts";
import { registerKubeletNodes } from "../../../kube/testdata/kubelet-node.ts";
import { loadTransport } from "../../../kube/transport.ts";
import { createMachines } from "../../../sandbox/cloud/fixtures.ts";
import { startSimulatedCloud } from "../../../sandbox/cloud/server.ts";
import { collectOutput, freePort } from "../../lib/processes.ts";
import { ensureKubeApiserver } from "../../real-apiserver/build.ts";
import { type RealApiServer, startRealApiServer } from "../../real-apiserver/server.ts";
import { benchExecutable } from "../ccm.ts";
import { ensureUpstreamCcm } from "./build.ts";
import {
  clearLevels,
  enterLevel,
  type FlowControlCounts,
  type LevelKind,
  parseFlowControlCounts,
} from "./flow-control.ts";
import { type MemoryBreakdown, oursMemory, upstreamMemory } from "./memory.ts";
import type { AgainstUpstreamOptions } from "./options.ts";

export const log = (line: string) => console.error(`bench: ${line}`);

/** The two flag sets every join and load-balancer scenario runs with, labelled as the table rows name them. */
export const FLAG_SETS: ReadonlyArray<readonly [label: string, extra: readonly string[]]> = [
  ["default flags", []],
  ["--kube-api-qps=1000 --kube-api-burst=1000", ["--kube-api-qps=1000", "--kube-api-burst=1000"]],
];

export type Side = "upstream" | "ours";

export interface Running {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

export interface Harness {
  /** The admin's client (unpaced), for creating the Nodes and Services and watching them. */
  readonly client: KubeClient;
  /** A bare client (unpaced) as the managers' user `ccm-bench`, for the floor (./floor.ts). */
  readonly benchClient: KubeClient;
  /** The managers measured, upstream first unless `--only-ours`. */
  readonly sides: readonly Side[];
  /** Spawns one manager with the common flags and `extra`; `stop()` sends SIGTERM, then SIGKILL after 10 s. */
  spawn(side: Side, extra: string[]): Running;
  /** The server's counters of APF's rejections and 429 answers (./flow-control.ts), each summed. */
  flowControl(): Promise<FlowControlCounts>;
  /** Puts `ccm-bench` in a one-share priority level of `kind`; `undefined`: back in the suggested global-default. */
  priorityLevel(kind: LevelKind | undefined): Promise<void>;
  /** Deletes every Node and waits until none is left. */
  clearNodes(): Promise<void>;
  /** Registers the first n machines as kubelets would, tainted uninitialized; their names. */
  registerNodes(n: number): Promise<string[]>;
  /** Ours' `event_recorder_dropped_events_total{reason}` from its /metrics (reasons never counted are absent). */
  droppedEvents(url: string): Promise<Record<string, number>>;
  /** Where the bytes are, read from outside (/proc) and from the runtime's own figures; see ./memory.ts. */
  breakdown(side: Side, ccm: Running, label: string): Promise<MemoryBreakdown>;
  /** Stops the server and the cloud, removes the temporary folder. */
  stop(): Promise<void>;
}

/** Builds (or finds) both managers and the server, then starts the server and the cloud. */
export async function startHarness(options: AgainstUpstreamOptions): Promise<Harness> {
  const apiserver = await ensureKubeApiserver(log);
  const upstreamBin = options.onlyOurs ? "" : await ensureUpstreamCcm(log);
  const sides: readonly Side[] = options.onlyOurs ? ["ours"] : ["upstream", "ours"];
  const oursBin = options.ours ?? (await benchExecutable(options.reuse));
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
  const benchClient: KubeClient = createKubeClient(loadTransport({ kubeconfig }), {
    qps: 0,
    burst: 0,
    userAgent: "bench-floor",
  });
  const machines = createMachines(cloud.state, Math.max(3, ...options.sizes, options.levelNodes));

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
        : [
            oursBin,
            "--cloud-provider=sandbox",
            `--cloud-config=${cloudConfig}`,
            "--heap-snapshot",
            ...common,
            ...extra,
          ];
    // Ours records which functions it ran when asked (scripts/bytecode-order.ts); nothing else of the bench's env.
    const order = side === "ours" ? process.env.BUN_BYTECODE_ORDER_OUT : undefined;
    const env = { PATH: "/usr/bin:/bin", ...(order && { BUN_BYTECODE_ORDER_OUT: order }) };
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env });
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

  async function flowControl(): Promise<FlowControlCounts> {
    return parseFlowControlCounts(await (await server.request("GET", "/metrics")).text());
  }

  /** The priority level the server puts one of `ccm-bench`'s requests in (APF's response header). */
  async function levelOfBench(): Promise<string | null> {
    const r = await fetch(`${server.url}/api/v1/namespaces/default`, {
      tls: { rejectUnauthorized: false },
      headers: { authorization: `Bearer ${benchToken}` },
    });
    await r.arrayBuffer();
    return r.headers.get("x-kubernetes-pf-prioritylevel-uid");
  }

  async function priorityLevel(kind: LevelKind | undefined): Promise<void> {
    const request = (method: string, path: string, body?: unknown) => server.request(method, path, body);
    if (kind) await enterLevel(request, kind, "ccm-bench", levelOfBench);
    else await clearLevels(request);
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
  async function registerNodes(n: number): Promise<string[]> {
    const names = machines.slice(0, n).map((m) => m.name);
    await registerKubeletNodes(client, names);
    return names;
  }

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

  const breakdown = (side: Side, ccm: Running, label: string): Promise<MemoryBreakdown> =>
    side === "upstream"
      ? upstreamMemory(ccm.proc.pid, ccm.url, benchToken)
      : oursMemory(ccm.proc.pid, ccm.url, benchToken, label.replaceAll(/[^\w.-]+/g, "-"), options.keepSnapshots);

  async function stop(): Promise<void> {
    await server.stop();
    await cloud.stop();
    await rm(dir, { recursive: true, force: true });
  }

  return {
    client,
    benchClient,
    sides,
    spawn,
    flowControl,
    priorityLevel,
    clearNodes,
    registerNodes,
    droppedEvents,
    breakdown,
    stop,
  };
}

/** What a container limit meets, from /proc/<pid>/status, in MiB: the resident set, its peak, its anonymous part. */
export interface Resident {
  /** VmRSS. */
  readonly rss: number;
  /** VmHWM: the peak resident set since the process started. */
  readonly peak: number;
  /** RssAnon: the process's own pages (heap, stacks), not the executable's shared, reclaimable ones. */
  readonly anon: number;
}

export const residentMiB = (pid: number): Resident => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM"), anon: kb("RssAnon") };
};

/** Polls `cond` every `everyMs` until it holds; throws naming `what` once `timeoutMs` passed. */
export async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50) {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
