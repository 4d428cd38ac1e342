/**
 * The cluster a benchmark runs the compiled executable against: the sandbox's Kubernetes API emulator and
 * simulated cloud, both in the bench process, so the bench can count what the executable asks of them.
 *
 * API requests are counted at the emulator's request entry: every HTTP request it receives passes through
 * `faults.check(method, pathAndQuery)` before authentication and routing, so the bench wraps that method on the
 * running instance. The bench itself changes and reads the cluster through the in-process store, which bypasses
 * HTTP, so only the executable's requests are counted. Cloud calls come from the cloud's own counters.
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KubeObject } from "../../kube/objects.ts";
import { type ApiServer, startApiServer } from "../../sandbox/apiserver/server.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../../sandbox/cloud/server.ts";

export interface RequestCounts {
  readonly total: number;
  /** POST, PUT, PATCH and DELETE. */
  readonly writes: number;
  /** Writes other than Events (events are counted apart: they are notices, not changes to nodes or services). */
  readonly objectWrites: number;
  /** Requests by `METHOD resource[/subresource]`, GETs split into `GET` (one object), `LIST` and `WATCH`. */
  readonly byKey: Readonly<Record<string, number>>;
}

export class RequestCounter {
  #byKey = new Map<string, number>();
  #last = 0;

  record(method: string, pathAndQuery: string): void {
    const key = requestKey(method, pathAndQuery);
    this.#byKey.set(key, (this.#byKey.get(key) ?? 0) + 1);
    this.#last = performance.now();
  }

  /** `performance.now()` of the latest request (0 before the first). */
  get lastAt(): number {
    return this.#last;
  }

  reset(): void {
    this.#byKey = new Map();
  }

  snapshot(): RequestCounts {
    let total = 0;
    let writes = 0;
    let objectWrites = 0;
    for (const [key, n] of this.#byKey) {
      total += n;
      if (!/^(POST|PUT|PATCH|DELETE) /.test(key)) continue;
      writes += n;
      if (!/ events(\/|$)/.test(key)) objectWrites += n;
    }
    return { total, writes, objectWrites, byKey: Object.fromEntries([...this.#byKey].sort()) };
  }
}

/** `PATCH nodes/status`, `LIST services`, `WATCH nodes`, `GET healthz`. */
export function requestKey(method: string, pathAndQuery: string): string {
  const [path = "", query = ""] = pathAndQuery.split("?", 2);
  const parts = path.split("/").filter((p) => p !== "");
  // /api/v1/… or /apis/<group>/<version>/…
  const rest = parts[0] === "api" ? parts.slice(2) : parts[0] === "apis" ? parts.slice(3) : undefined;
  if (!rest || rest.length === 0) return `${method} ${path || "/"}`;
  const scoped = rest[0] === "namespaces" && rest.length > 2 ? rest.slice(2) : rest;
  const [resource, name, sub] = scoped;
  let verb = method;
  if (method === "GET") verb = /(^|&)watch=(true|1)(&|$)/.test(query) ? "WATCH" : name ? "GET" : "LIST";
  return `${verb} ${resource}${sub ? `/${sub}` : ""}`;
}

export interface BenchCluster {
  readonly api: ApiServer;
  readonly cloud: SimulatedCloud;
  readonly requests: RequestCounter;
  readonly kubeconfig: string;
  readonly cloudConfig: string;
  /** Resets the API request and cloud call counters together. */
  resetCounters(): void;
  /** Cloud calls since the last reset: all, and the ones that change something (POST, PUT, PATCH, DELETE). */
  cloudCalls(): { total: number; writes: number; byRoute: Record<string, number> };
  stop(): Promise<void>;
}

export async function startCluster(opts: { dir: string; addressPool?: string }): Promise<BenchCluster> {
  await mkdir(opts.dir, { recursive: true });
  const api = await startApiServer({});
  const requests = new RequestCounter();
  const check = api.faults.check.bind(api.faults);
  api.faults.check = (method, pathAndQuery) => {
    requests.record(method, pathAndQuery);
    return check(method, pathAndQuery);
  };
  const token = randomBytes(16).toString("hex");
  const cloud = startSimulatedCloud({
    token,
    ...(opts.addressPool ? { addressPool: opts.addressPool } : {}),
  });
  const kubeconfig = await api.writeKubeconfig(join(opts.dir, "kubeconfig"));
  const cloudConfig = join(opts.dir, "cloud.yaml");
  await writeFile(cloudConfig, `url: ${cloud.url}\ntoken: ${token}\n`, { mode: 0o600 });
  return {
    api,
    cloud,
    requests,
    kubeconfig,
    cloudConfig,
    resetCounters() {
      requests.reset();
      cloud.calls.reset();
    },
    cloudCalls() {
      const stats = cloud.calls.snapshot();
      let writes = 0;
      const byRoute: Record<string, number> = {};
      for (const [key, entry] of Object.entries(stats.byRoute)) {
        byRoute[key] = entry.calls;
        if (!key.startsWith("GET ")) writes += entry.calls;
      }
      return { total: stats.total, writes, byRoute };
    },
    async stop() {
      await cloud.stop();
      await api.stop();
    },
  };
}

/** Polls `ready` (every `intervalMs`) until it is true; returns the milliseconds waited. Throws after `timeoutMs`. */
export async function waitUntil(
  ready: () => boolean | Promise<boolean>,
  what: string,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<number> {
  const started = performance.now();
  while (!(await ready())) {
    if (performance.now() - started > opts.timeoutMs) throw new Error(`timed out after ${opts.timeoutMs} ms: ${what}`);
    await Bun.sleep(opts.intervalMs ?? 20);
  }
  return performance.now() - started;
}

/**
 * Waits until neither the API nor the cloud has seen a request for `quietMs` (or `maxMs` passed); returns the
 * `performance.now()` of the last request seen (cloud calls to within the 25 ms polling step), or of the call.
 */
export async function waitQuiet(cluster: BenchCluster, quietMs: number, maxMs: number): Promise<number> {
  const started = performance.now();
  let calls = cluster.cloud.calls.snapshot().total;
  let cloudAt = 0;
  for (;;) {
    const last = Math.max(cloudAt, cluster.requests.lastAt);
    const now = performance.now();
    if (now - Math.max(last, started) >= quietMs || now - started >= maxMs) return Math.max(last, started);
    await Bun.sleep(25);
    const c = cluster.cloud.calls.snapshot().total;
    if (c !== calls) {
      calls = c;
      cloudAt = performance.now();
    }
  }
}

/** Every object of a kind, read in-process (not counted). */
export function listAll<T extends KubeObject>(
  cluster: BenchCluster,
  ref: { group: string; plural: string },
  namespace?: string,
): T[] {
  return cluster.api.store.list<T>(ref, namespace ? { namespace } : {}).items;
}
