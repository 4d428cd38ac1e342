/**
 * `npx bun scripts/bench/heap-snapshot.ts <file> [--top=20]`: what a heap snapshot holds — the object types and
 * classes with the most instances and with the most self size, and the totals. Reads V8's `.heapsnapshot` (what
 * `/debug/heap/snapshot` serves by default, `Bun.generateHeapSnapshot("v8")`) and JavaScriptCore's format
 * (`?format=jsc`). Not a test: the side-by-side benchmark (./upstream/) uses it for its memory breakdown.
 *
 * Grouping follows Chrome DevTools' "Summary" view: objects by their constructor's name (`Object`, `Array`, a class),
 * everything else by its kind: `(string)`, `(closure)`, `(code)`, `(hidden)` for the engine's own cells
 * (structures, executables), and so on. Self size is an object's own bytes, not what it keeps alive.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

export interface TypeFigure {
  readonly name: string;
  readonly count: number;
  readonly selfSize: number;
}

export interface SnapshotSummary {
  readonly format: "v8" | "jsc";
  readonly nodeCount: number;
  readonly totalSelfSize: number;
  /** Every group, largest self size first. */
  readonly types: readonly TypeFigure[];
}

interface V8Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count?: number };
  nodes: number[];
  strings: string[];
}

const isV8 = (x: unknown): x is V8Snapshot =>
  typeof x === "object" && x !== null && "snapshot" in x && "nodes" in x && "strings" in x;

interface JscSnapshot {
  type: string;
  nodes: number[];
  nodeClassNames: string[];
}

const isJsc = (x: unknown): x is JscSnapshot =>
  typeof x === "object" && x !== null && "nodeClassNames" in x && "nodes" in x;

/** The group a V8 node counts under: objects (and native objects) by name, the rest by kind. */
const v8Group = (type: string, name: string): string => {
  if (type === "object" || type === "native") return name === "" ? `(${type})` : name;
  if (type === "concatenated string" || type === "sliced string") return "(string)";
  return `(${type})`;
};

function summarise(format: "v8" | "jsc", groups: Map<string, { count: number; selfSize: number }>): SnapshotSummary {
  let nodeCount = 0;
  let totalSelfSize = 0;
  const types: TypeFigure[] = [];
  for (const [name, g] of groups) {
    nodeCount += g.count;
    totalSelfSize += g.selfSize;
    types.push({ name, ...g });
  }
  types.sort((a, b) => b.selfSize - a.selfSize || b.count - a.count);
  return { format, nodeCount, totalSelfSize, types };
}

/** A parsed V8 `.heapsnapshot` as counts and self sizes per group. */
export function parseV8Snapshot(json: unknown): SnapshotSummary {
  if (!isV8(json)) throw new Error("not a V8 heap snapshot: no snapshot, nodes and strings fields");
  const fields = json.snapshot.meta.node_fields;
  const kinds = json.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  if (typeAt < 0 || nameAt < 0 || sizeAt < 0) {
    throw new Error(`a V8 heap snapshot without type, name or self_size in node_fields: ${fields.join(",")}`);
  }
  const groups = new Map<string, { count: number; selfSize: number }>();
  const { nodes, strings } = json;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const key = v8Group(kinds[nodes[i + typeAt] as number] ?? "?", strings[nodes[i + nameAt] as number] ?? "");
    const g = groups.get(key) ?? { count: 0, selfSize: 0 };
    g.count++;
    g.selfSize += nodes[i + sizeAt] as number;
    groups.set(key, g);
  }
  return summarise("v8", groups);
}

/** JavaScriptCore's Inspector snapshot: nodes are [id, size, classNameIndex, flags] (more with GC debugging). */
export function parseJscSnapshot(json: unknown): SnapshotSummary {
  if (!isJsc(json)) throw new Error("not a JavaScriptCore heap snapshot: no nodes and nodeClassNames fields");
  const width = json.type === "GCDebugging" ? 7 : 4;
  const groups = new Map<string, { count: number; selfSize: number }>();
  for (let i = 0; i < json.nodes.length; i += width) {
    const key = json.nodeClassNames[json.nodes[i + 2] as number] ?? "?";
    const g = groups.get(key) ?? { count: 0, selfSize: 0 };
    g.count++;
    g.selfSize += json.nodes[i + 1] as number;
    groups.set(key, g);
  }
  return summarise("jsc", groups);
}

/** Either format, told apart by its fields. */
export function parseSnapshot(json: unknown): SnapshotSummary {
  return isV8(json) ? parseV8Snapshot(json) : parseJscSnapshot(json);
}

/** The top `n` groups by self size and by count. */
export function topTypes(summary: SnapshotSummary, n: number): { bySize: TypeFigure[]; byCount: TypeFigure[] } {
  return {
    bySize: summary.types.slice(0, n),
    byCount: [...summary.types].sort((a, b) => b.count - a.count || b.selfSize - a.selfSize).slice(0, n),
  };
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MiB`;

/** Plain-text report: totals, then the two top lists side by side. */
export function formatSummary(summary: SnapshotSummary, n: number): string {
  const { bySize, byCount } = topTypes(summary, n);
  const pct = (x: number) => `${((100 * x) / (summary.totalSelfSize || 1)).toFixed(1)} %`;
  const lines = [
    `${summary.format} snapshot: ${summary.nodeCount} objects, ${mib(summary.totalSelfSize)} self size in all`,
    "",
    `top ${n} by self size:`,
    ...bySize.map(
      (t) =>
        `  ${mib(t.selfSize).padStart(10)}  ${pct(t.selfSize).padStart(6)}  ${String(t.count).padStart(8)}  ${t.name}`,
    ),
    "",
    `top ${n} by count:`,
    ...byCount.map((t) => `  ${String(t.count).padStart(8)}  ${mib(t.selfSize).padStart(10)}  ${t.name}`),
  ];
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "20" } },
  });
  const file = positionals[0];
  const top = Number(values.top);
  if (!file) {
    console.error("usage: npx bun scripts/bench/heap-snapshot.ts <snapshot file> [--top=20]");
    process.exit(2);
  }
  if (!Number.isInteger(top) || top < 1) {
    console.error(`--top must be a whole number ≥ 1, got "${values.top}"`);
    process.exit(2);
  }
  process.stdout.write(formatSummary(parseSnapshot(JSON.parse(readFileSync(file, "utf8"))), top));
}
