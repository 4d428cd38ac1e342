/**
 * The compiled executable under measurement: built once per bench run with scripts/build.ts, started with
 * operator flags against a bench cluster, observed from outside (its HTTPS `/healthz` and `/metrics`, and
 * /proc/<pid>/status and /proc/<pid>/stat for memory and CPU time).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { build } from "../build.ts";
import { collectOutput, freePort } from "../lib/processes.ts";
import { type BenchCluster, waitUntil } from "./cluster.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
export const BIN_DIR = join(ROOT, "build", "bench-bin");
const HOST = `${process.platform}-${process.arch}`;

/** The host all-in-one in build/bench-bin, built from the working tree unless `reuse` and it exists. */
export async function benchExecutable(reuse: boolean): Promise<string> {
  const exe = join(BIN_DIR, `cloud-controller-manager-${HOST}`);
  if (reuse && existsSync(exe)) return exe;
  // build() reports on stdout; keep stdout for the table.
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  try {
    await build([`--target=${HOST}`, `--outdir=${BIN_DIR}`, "--provider=sandbox", "--version=v0.0.0-bench"]);
  } finally {
    console.log = log;
  }
  return exe;
}

export interface Ccm {
  readonly pid: number;
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** `performance.now()` when it was spawned. */
  readonly startedAt: number;
  /** Milliseconds from spawn to the first `200` from `/healthz` (set once `healthy()` resolved). */
  readonly startupMs: number | undefined;
  output(): string;
  /** Resolves once `/healthz` answers 200; rejects if the process exits or `timeoutMs` passes. */
  healthy(timeoutMs?: number): Promise<number>;
  /** Resolves once the output contains `text`. */
  logged(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Resident memory now and at its peak, in MiB (VmRSS, VmHWM). */
  memory(): { rssMiB: number; hwmMiB: number };
  /** CPU time used so far (user + system), in milliseconds. */
  cpuMs(): number;
  /** The Prometheus text of `/metrics` (the bench allows that path without authentication). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** Lifts the client-side limit (default --kube-api-qps=20, burst 30) so the controllers' own speed shows. */
export const UNTHROTTLED = ["--kube-api-qps=1000", "--kube-api-burst=1000"];

/** The flags every bench run uses, before `extra`. */
export function baseFlags(cluster: BenchCluster, port: number): string[] {
  return [
    "--cloud-provider=sandbox",
    `--cloud-config=${cluster.cloudConfig}`,
    `--kubeconfig=${cluster.kubeconfig}`,
    "--cluster-cidr=10.128.0.0/9",
    "--leader-elect=false",
    "--bind-address=127.0.0.1",
    `--secure-port=${port}`,
    "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
  ];
}

export function startCcm(exe: string, cluster: BenchCluster, extra: string[] = []): Ccm {
  const port = freePort();
  const url = `https://127.0.0.1:${port}`;
  const started = performance.now();
  const proc: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn([exe, ...baseFlags(cluster, port), ...extra], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin" },
  });
  const output = collectOutput(proc);
  let exited: number | undefined;
  void proc.exited.then((code) => {
    exited = code;
  });
  let startupMs: number | undefined;
  const get = (path: string) =>
    fetch(`${url}${path}`, { tls: { rejectUnauthorized: false }, signal: AbortSignal.timeout(5000) });

  const until = async <T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (exited !== undefined)
        throw new Error(`the executable exited with ${exited} before ${what}:\n${output.text()}`);
      if (performance.now() > deadline)
        throw new Error(`timed out waiting for ${what}:\n${output.text().slice(-4000)}`);
      await Bun.sleep(2);
    }
  };

  return {
    pid: proc.pid,
    url,
    startedAt: started,
    get startupMs() {
      return startupMs;
    },
    output: output.text,
    healthy: (timeoutMs = 30_000) =>
      until("/healthz", timeoutMs, async () => {
        try {
          const res = await get("/healthz");
          await res.arrayBuffer();
          if (res.status !== 200) return undefined;
          startupMs ??= performance.now() - started;
          return startupMs;
        } catch {
          return undefined;
        }
      }),
    logged: (text, timeoutMs = 60_000) =>
      until(`the log line ${String(text)}`, timeoutMs, async () => {
        const m =
          typeof text === "string" ? (output.text().includes(text) ? text : null) : text.exec(output.text())?.[0];
        return m ?? undefined;
      }),
    memory: () => {
      const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
      return { rssMiB: kb("VmRSS") / 1024, hwmMiB: kb("VmHWM") / 1024 };
    },
    cpuMs: () => cpuMsOf(proc.pid),
    metrics: async () => {
      const res = await get("/metrics");
      if (!res.ok) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
      return res.text();
    },
    stop: async () => {
      proc.kill("SIGTERM");
      const done = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => undefined)]);
      if (done === undefined) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 on Linux for /proc/<pid>/stat

/** utime + stime of a process, in milliseconds. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may contain spaces; the fields after it are space-separated (utime is field 14 overall).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Sum of a metric's samples whose labels contain every `labels` pair (`workqueue_depth{name="Nodes"}`). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** What `withCloudManager`'s body gets: a way to fail naming the manager's last words. */
export interface CloudManagerOutput {
  /** Rethrows `err` with the last 4000 characters of the manager's output. */
  explain(err: unknown): never;
}

/**
 * A cloud's manager as its users run it: the compiled executable with that cloud CCM's flags and only `env` (and a
 * PATH) in its environment, against the bench cluster. `body` runs once the service controller has started; the
 * manager is stopped when it ends.
 */
export async function withCloudManager<T>(
  exe: string,
  cluster: BenchCluster,
  flags: readonly string[],
  env: Readonly<Record<string, string>>,
  body: (output: CloudManagerOutput) => Promise<T>,
): Promise<T> {
  const proc = Bun.spawn(
    [exe, ...flags, `--kubeconfig=${cluster.kubeconfig}`, "--bind-address=127.0.0.1", `--secure-port=${freePort()}`],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin", ...env } },
  );
  const collected = collectOutput(proc);
  const output: CloudManagerOutput = {
    explain: (err) => {
      throw new Error(`${(err as Error)?.message ?? String(err)}; the manager said:\n${collected.text().slice(-4000)}`);
    },
  };
  try {
    await waitUntil(() => collected.text().includes('started "service-lb-controller"'), "the service controller", {
      timeoutMs: 60_000,
    });
    return await body(output);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}
