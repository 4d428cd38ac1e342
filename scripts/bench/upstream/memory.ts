/**
 * Where each manager's resident memory is, taken the same way for both from the outside and then from each runtime's
 * own figures, as an operator could take them:
 *
 * - both: `/proc/<pid>/status` and `smaps_rollup` (RSS split into RssAnon, the process's own heap and stacks, and
 *   RssFile, pages of the executable and libraries: file-backed, shared with any other process mapping the same file,
 *   and dropped under memory pressure without a write, so they are not the process's cost the way RssAnon is);
 * - ours: `/debug/heap/stats?gc=1` (the JavaScript heap after a full collection: live size, capacity, the
 *   `extraMemorySize` of strings and buffers held outside it, mimalloc's committed bytes) and `/debug/heap/snapshot`
 *   summarised by `../heap-snapshot.ts`;
 * - upstream: Go's own `go_memstats_*` from its `/metrics` (heap in use, idle, released, stacks, sys).
 *
 * The resident figures are read first, before any request that could allocate or collect; the snapshot last.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HeapStatsBody } from "../../../platform/heap-debug.ts";
import { type ProcMemory, procMemory } from "../../../platform/heap-debug.ts";
import { parseV8Snapshot, type TypeFigure, topTypes } from "../heap-snapshot.ts";

export interface MemoryBreakdown {
  readonly proc: ProcMemory;
  /** Ours: the JS heap after a full collection and mimalloc's committed bytes. */
  readonly jsc?: HeapStatsBody["jsc"] & { readonly mimallocCommit: number };
  /** Ours: the snapshot's object count, total self size and the top types by self size. */
  readonly snapshot?: { readonly objects: number; readonly selfSize: number; readonly top: readonly TypeFigure[] };
  /** Upstream: go_memstats_* and go_goroutines, by name without the prefix. */
  readonly go?: Readonly<Record<string, number>>;
}

const GO_FIELDS = [
  "heap_alloc_bytes",
  "heap_inuse_bytes",
  "heap_idle_bytes",
  "heap_released_bytes",
  "heap_objects",
  "stack_inuse_bytes",
  "sys_bytes",
  "next_gc_bytes",
] as const;

const authed = (url: string, token: string) =>
  fetch(url, { tls: { rejectUnauthorized: false }, keepalive: false, headers: { authorization: `Bearer ${token}` } });

async function ok(response: Response, what: string): Promise<Response> {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

/** Go's runtime figures from a Prometheus text page. */
export function parseGoMemstats(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^go_(memstats_(\w+)|goroutines) ([\d.e+-]+)$/.exec(line);
    if (!m) continue;
    const name = m[2] ?? "goroutines";
    if (name === "goroutines" || (GO_FIELDS as readonly string[]).includes(name)) out[name] = Number(m[3]);
  }
  return out;
}

/** Upstream: the kernel's split, then Go's own figures from /metrics. */
export async function upstreamMemory(pid: number, url: string, token: string): Promise<MemoryBreakdown> {
  const proc = procMemory(pid);
  const text = await (await ok(await authed(`${url}/metrics`, token), "upstream /metrics")).text();
  return { proc, go: parseGoMemstats(text) };
}

/**
 * Ours: the kernel's split, then the heap's figures after a full collection, then a snapshot (kept in `keepDir`
 * as `<label>.heapsnapshot` when given, to open in Chrome DevTools).
 */
export async function oursMemory(
  pid: number,
  url: string,
  token: string,
  label: string,
  keepDir?: string,
): Promise<MemoryBreakdown> {
  const proc = procMemory(pid);
  const stats = (await (
    await ok(await authed(`${url}/debug/heap/stats?gc=1`, token), "ours /debug/heap/stats")
  ).json()) as HeapStatsBody;
  const bytes = await (
    await ok(await authed(`${url}/debug/heap/snapshot`, token), "ours /debug/heap/snapshot")
  ).bytes();
  if (keepDir) {
    await mkdir(keepDir, { recursive: true });
    await writeFile(join(keepDir, `${label}.heapsnapshot`), bytes);
  }
  const summary = parseV8Snapshot(JSON.parse(new TextDecoder().decode(bytes)));
  return {
    proc,
    jsc: { ...stats.jsc, mimallocCommit: stats.allocator.currentCommit },
    snapshot: {
      objects: summary.nodeCount,
      selfSize: summary.totalSelfSize,
      top: topTypes(summary, 8).bySize,
    },
  };
}

const MiB = 1048576;
const mib = (b: number | undefined) => (b === undefined ? "–" : `${(b / MiB).toFixed(1)}`);

export interface Scenario {
  /** e.g. "idle", "1000 nodes, --kube-api-qps=1000 --kube-api-burst=1000". */
  readonly label: string;
  readonly nodes: number;
  readonly upstream?: MemoryBreakdown | undefined;
  readonly ours?: MemoryBreakdown | undefined;
}

/** The breakdown as Markdown: one table of figures (MiB) per scenario, per-node costs, then ours' top types. */
export function breakdownMarkdown(scenarios: readonly Scenario[]): string {
  const idle = scenarios.find((s) => s.nodes === 0);
  const cols = scenarios.map((s) => s.label);
  const out = [`| MiB | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---|").join("")}`];
  const row = (name: string, get: (s: Scenario) => number | undefined) =>
    out.push(`| ${name} | ${scenarios.map((s) => mib(get(s))).join(" | ")} |`);
  const perNode = (name: string, get: (s: Scenario) => number | undefined) =>
    out.push(
      `| ${name} | ${scenarios
        .map((s) => {
          const at = get(s);
          const base = idle ? get(idle) : undefined;
          return s.nodes === 0 || at === undefined || base === undefined
            ? "–"
            : `${((at - base) / s.nodes / 1024).toFixed(1)} KiB`;
        })
        .join(" | ")} |`,
    );
  row("upstream: RSS", (s) => s.upstream?.proc.VmRSS);
  row("upstream: RssAnon (its own)", (s) => s.upstream?.proc.RssAnon);
  row("upstream: RssFile (the executable's pages, shared, reclaimable)", (s) => s.upstream?.proc.RssFile);
  row("upstream: Go heap in use", (s) => s.upstream?.go?.heap_inuse_bytes);
  row("upstream: Go heap live (alloc)", (s) => s.upstream?.go?.heap_alloc_bytes);
  row("upstream: Go heap idle (free spans, kept or released)", (s) => s.upstream?.go?.heap_idle_bytes);
  row("upstream: Go heap released to the OS (of idle)", (s) => s.upstream?.go?.heap_released_bytes);
  row("upstream: Go stacks", (s) => s.upstream?.go?.stack_inuse_bytes);
  row("upstream: Go sys (all the runtime mapped)", (s) => s.upstream?.go?.sys_bytes);
  perNode("upstream: RSS per node over idle", (s) => s.upstream?.proc.VmRSS);
  perNode("upstream: RssAnon per node over idle", (s) => s.upstream?.proc.RssAnon);
  row("ours: RSS", (s) => s.ours?.proc.VmRSS);
  row("ours: RssAnon (its own)", (s) => s.ours?.proc.RssAnon);
  row("ours: RssFile (the executable's pages, shared, reclaimable)", (s) => s.ours?.proc.RssFile);
  row("ours: JS heap live after a full GC (heapSize)", (s) => s.ours?.jsc?.heapSize);
  row("ours: of which extraMemorySize (strings, buffers)", (s) => s.ours?.jsc?.extraMemorySize);
  row("ours: JS heap capacity", (s) => s.ours?.jsc?.heapCapacity);
  row("ours: mimalloc committed (address space, not all resident)", (s) => s.ours?.jsc?.mimallocCommit);
  row("ours: snapshot, all objects' self size", (s) => s.ours?.snapshot?.selfSize);
  perNode("ours: RSS per node over idle", (s) => s.ours?.proc.VmRSS);
  perNode("ours: RssAnon per node over idle", (s) => s.ours?.proc.RssAnon);
  perNode("ours: JS heap live per node over idle", (s) => s.ours?.jsc?.heapSize);
  out.push("");
  for (const s of scenarios) {
    const snap = s.ours?.snapshot;
    if (!snap) continue;
    out.push(
      `Ours, ${s.label}: ${snap.objects} objects in the snapshot, ${mib(snap.selfSize)} MiB; top by self size: ${snap.top
        .map((t) => `${t.name} ${mib(t.selfSize)} MiB (${t.count})`)
        .join(", ")}`,
      "",
    );
  }
  return out.join("\n");
}
