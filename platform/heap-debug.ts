/**
 * The runtime's answer to upstream's `/debug/pprof/*`: where the process's memory is, served on the secure port behind
 * the same delegated authentication and authorisation as `/metrics`. The figures come with `--profiling` (on by
 * default, as upstream's); the snapshot only with `--heap-snapshot` (ours, off by default), because it holds every
 * secret in the process in clear while pprof's profiles hold none, and an RBAC rule for `/debug/*`, which pprof
 * scrapers commonly get, would grant it.
 *
 * - `GET /debug/heap/stats` — JSON: the JavaScript heap (`heapStats()` of `bun:jsc`, object counts by type), the
 *   allocator outside it (`memoryUsage()` of `bun:jsc`: mimalloc's committed bytes), `process.memoryUsage()`, and
 *   the kernel's view of the resident set (`/proc/self/status`: VmRSS, RssAnon, RssFile, RssShmem; and
 *   `/proc/self/smaps_rollup`: Pss, private and shared pages). `?gc=1` runs a full collection first, as pprof's
 *   `heap?gc=1` does, so the heap figures are the live data, not garbage waiting for the collector.
 * - `GET /debug/heap/snapshot` — a heap snapshot in V8's `.heapsnapshot` format (`Bun.generateHeapSnapshot("v8")`),
 *   which Chrome DevTools (Memory tab, Load), VS Code and `scripts/bench/heap-snapshot.ts` read; `?format=jsc` gives
 *   JavaScriptCore's own format instead, for Safari's Web Inspector. Writing one stops the process for as long as
 *   it takes to walk the heap and holds the snapshot in memory once (44 MB at 5000 kubelet-shaped Nodes before the
 *   informer keep-lists). A snapshot holds values, credentials included, not only sizes: off unless the operator
 *   asks for it, and then the authoriser decides who may take one, as it does for every path here.
 *
 * RssFile is mostly the executable's own pages (code and the embedded sources): file-backed, shared with every other
 * process that maps the same file and dropped by the kernel under pressure without writing anything, unlike RssAnon.
 */

import { heapStats, memoryUsage } from "bun:jsc";
import { readFileSync } from "node:fs";
import type { RouteHandler } from "./serving.ts";

/** The paths served: stats with `--profiling`, the snapshot with `--heap-snapshot`. */
export const HEAP_STATS_PATH = "/debug/heap/stats";
export const HEAP_SNAPSHOT_PATH = "/debug/heap/snapshot";

/** Fields of `/proc/<pid>/status` and `/proc/<pid>/smaps_rollup`, in bytes; a field the kernel lacks is left out. */
export type ProcMemory = Partial<Record<(typeof STATUS_FIELDS)[number] | (typeof ROLLUP_FIELDS)[number], number>>;

const STATUS_FIELDS = ["VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"] as const;
const ROLLUP_FIELDS = [
  "Pss",
  "Pss_Anon",
  "Pss_File",
  "Pss_Shmem",
  "Shared_Clean",
  "Shared_Dirty",
  "Private_Clean",
  "Private_Dirty",
  "Anonymous",
] as const;

/** `Name:   123 kB` lines of a /proc file, the listed names only, in bytes. */
export function parseProcKb(text: string, names: readonly string[]): Record<string, number> {
  const wanted = new Set(names);
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^(\w+):\s+(\d+) kB$/.exec(line.trim());
    if (m && wanted.has(m[1] as string)) out[m[1] as string] = Number(m[2]) * 1024;
  }
  return out;
}

const readOr = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return ""; // not Linux, or a kernel without smaps_rollup (before 4.14): the figures are left out
  }
};

/** The kernel's figures for a process (`self` or a pid), in bytes. */
export function procMemory(pid: number | "self" = "self"): ProcMemory {
  return {
    ...parseProcKb(readOr(`/proc/${pid}/status`), STATUS_FIELDS),
    ...parseProcKb(readOr(`/proc/${pid}/smaps_rollup`), ROLLUP_FIELDS),
  };
}

export interface HeapStatsBody {
  /** `bun:jsc` heapStats(), bytes and counts; `objectTypeCounts` the `top` most common types. */
  readonly jsc: {
    readonly heapSize: number;
    readonly heapCapacity: number;
    readonly extraMemorySize: number;
    readonly objectCount: number;
    readonly protectedObjectCount: number;
    readonly objectTypeCounts: Record<string, number>;
  };
  /** `bun:jsc` memoryUsage(): RSS now and at its peak, and mimalloc's committed bytes (memory outside the JS heap). */
  readonly allocator: { readonly current: number; readonly peak: number; readonly currentCommit: number };
  readonly process: NodeJS.MemoryUsage;
  readonly proc: ProcMemory;
  /** True when a full collection ran first (`?gc=1`). */
  readonly collected: boolean;
}

const TOP_TYPES = 40;

export function heapStatsBody(collect: boolean): HeapStatsBody {
  if (collect) Bun.gc(true);
  const h = heapStats();
  const m = memoryUsage();
  const top = Object.entries(h.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_TYPES);
  return {
    jsc: {
      heapSize: h.heapSize,
      heapCapacity: h.heapCapacity,
      extraMemorySize: h.extraMemorySize,
      objectCount: h.objectCount,
      protectedObjectCount: h.protectedObjectCount,
      objectTypeCounts: Object.fromEntries(top),
    },
    allocator: { current: m.current, peak: m.peak, currentCommit: m.currentCommit },
    process: process.memoryUsage(),
    proc: procMemory(),
    collected: collect,
  };
}

const NO_CACHE = { "cache-control": "no-cache, private" };
const truthy = (v: string | null) => v !== null && v !== "0" && v !== "false";

/** The routes each of `stats` and `snapshot` turns on; a method other than GET answers 405. */
export function heapDebugRoutes(serve: { stats: boolean; snapshot: boolean }): Record<string, RouteHandler> {
  const onlyGet = (handler: (url: URL) => Response): RouteHandler => {
    return (request) =>
      request.method === "GET"
        ? handler(new URL(request.url))
        : new Response("405 method not allowed\n", { status: 405, headers: { allow: "GET" } });
  };
  const routes: Record<string, RouteHandler> = {};
  if (serve.stats)
    routes[HEAP_STATS_PATH] = onlyGet(
      (url) =>
        new Response(`${JSON.stringify(heapStatsBody(truthy(url.searchParams.get("gc"))), null, 2)}\n`, {
          headers: { "content-type": "application/json", ...NO_CACHE },
        }),
    );
  if (serve.snapshot)
    routes[HEAP_SNAPSHOT_PATH] = onlyGet((url) => {
      const format = url.searchParams.get("format") ?? "v8";
      if (format !== "v8" && format !== "jsc") {
        return new Response(`format must be v8 (Chrome DevTools) or jsc (Safari Web Inspector), got "${format}"\n`, {
          status: 400,
          headers: { "content-type": "text/plain" },
        });
      }
      const body =
        format === "v8" ? Bun.generateHeapSnapshot("v8", "arraybuffer") : JSON.stringify(Bun.generateHeapSnapshot());
      const name = `cloud-controller-manager-${process.pid}-${Date.now()}.${format === "v8" ? "heapsnapshot" : "json"}`;
      return new Response(body, {
        headers: {
          "content-type": "application/json",
          "content-disposition": `attachment; filename="${name}"`,
          ...NO_CACHE,
        },
      });
    });
  return routes;
}
