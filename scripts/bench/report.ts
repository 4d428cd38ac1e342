/**
 * What a benchmark reports: figures measured at a tenth of the size and at the full size, each with its unit,
 * the target it is held to (judged at the full size) and a note, printed as one table and written as JSON.
 */

export type Scale = "tenth" | "full";
export const SCALES: readonly Scale[] = ["tenth", "full"];

export interface Target {
  /** As the issue states it, e.g. `< 5 s`. */
  readonly text: string;
  readonly met: (value: number) => boolean;
}

export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly values: Partial<Record<Scale, number>>;
  readonly target?: Target;
  readonly note?: string;
}

export interface BenchResult {
  /** `nodes`, `services`, `startup`, `footprint`. */
  readonly id: string;
  readonly title: string;
  /** What each scale means for this benchmark, e.g. `{ tenth: "100 nodes", full: "1000 nodes" }`. */
  readonly sizes: Partial<Record<Scale, string>>;
  readonly figures: Figure[];
  /** Free-form facts worth keeping (worker counts, request breakdowns). */
  readonly details: Record<string, unknown>;
  readonly notes: string[];
}

export const below = (limit: number, text = `< ${limit}`): Target => ({ text, met: (v) => v < limit });
export const atMost = (limit: number, text = `≤ ${limit}`): Target => ({ text, met: (v) => v <= limit });
export const atLeast = (limit: number, text = `≥ ${limit}`): Target => ({ text, met: (v) => v >= limit });

/** Adds (or extends) the figure `name` with the value at `scale`. */
export function put(
  figures: Figure[],
  scale: Scale,
  name: string,
  unit: string,
  value: number,
  extra: { target?: Target; note?: string } = {},
): void {
  const i = figures.findIndex((f) => f.name === name);
  const prev = figures[i];
  const next: Figure = {
    name,
    unit,
    values: { ...prev?.values, [scale]: value },
    ...(prev?.target || extra.target ? { target: (extra.target ?? prev?.target) as Target } : {}),
    ...(prev?.note || extra.note ? { note: (extra.note ?? prev?.note) as string } : {}),
  };
  if (i >= 0) figures[i] = next;
  else figures.push(next);
}

const fmt = (v: number | undefined): string => {
  if (v === undefined || Number.isNaN(v)) return "–";
  const abs = Math.abs(v);
  if (Number.isInteger(v)) return String(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 0.1) return v.toFixed(2);
  return v.toPrecision(2);
};

/** `×N` from the tenth to the full size, or `–` when one side is missing or zero. */
export function growth(f: Figure): string {
  const a = f.values.tenth;
  const b = f.values.full;
  if (a === undefined || b === undefined) return "–";
  if (a === 0 && b === 0) return "same";
  if (a === 0) return "from 0";
  return `×${fmt(b / a)}`;
}

/** The verdict on the target, judged at the full size (or the only size measured). */
export function verdict(f: Figure): string {
  if (!f.target) return "";
  const v = f.values.full ?? f.values.tenth;
  if (v === undefined || Number.isNaN(v)) return "not measured";
  return f.target.met(v) ? "met" : "MISSED";
}

export function renderTable(results: readonly BenchResult[]): string {
  const rows: string[][] = [["benchmark", "figure", "unit", "1/10 size", "full size", "growth", "target", ""]];
  for (const r of results) {
    for (const f of r.figures) {
      rows.push([
        r.id,
        f.name,
        f.unit,
        fmt(f.values.tenth),
        fmt(f.values.full),
        growth(f),
        f.target?.text ?? "",
        verdict(f),
      ]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  const out = [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const row of rows.slice(1)) out.push(line(row));
  out.push("");
  for (const r of results) {
    out.push(`${r.id}: ${r.title} — sizes: 1/10 = ${r.sizes.tenth ?? "–"}; full = ${r.sizes.full ?? "–"}`);
    for (const n of r.notes) out.push(`  - ${n}`);
    for (const f of r.figures) if (f.note) out.push(`  - ${f.name}: ${f.note}`);
  }
  return out.join("\n");
}

/** JSON form: targets as text plus the verdict. */
export function toJson(results: readonly BenchResult[], machine: Record<string, unknown>): unknown {
  return {
    machine,
    results: results.map((r) => ({
      ...r,
      figures: r.figures.map((f) => ({
        name: f.name,
        unit: f.unit,
        values: f.values,
        growth: growth(f),
        ...(f.target ? { target: f.target.text, verdict: verdict(f) } : {}),
        ...(f.note ? { note: f.note } : {}),
      })),
    })),
  };
}

interface SavedFigure {
  name: string;
  unit: string;
  values: Partial<Record<Scale, number>>;
  growth: string;
  target?: string;
  verdict?: string;
}
interface Saved {
  machine: Record<string, unknown>;
  results: { id: string; title: string; sizes: Partial<Record<Scale, string>>; figures: SavedFigure[] }[];
}

/** Markdown tables, one per benchmark, from a saved results.json (for docs/performance.md). */
export function renderMarkdown(saved: Saved): string {
  const out: string[] = [];
  for (const r of saved.results) {
    out.push(`### ${r.title}`, "");
    out.push(`Sizes: 1/10 = ${r.sizes.tenth ?? "–"}; full = ${r.sizes.full ?? "–"}.`, "");
    out.push("| figure | unit | 1/10 size | full size | growth | target | |", "|---|---|--:|--:|---|---|---|");
    for (const f of r.figures) {
      const name = f.name.replace(/^ +/, "↳ ");
      const cells = [name, f.unit, fmt(f.values.tenth), fmt(f.values.full), f.growth, f.target ?? "", f.verdict ?? ""];
      out.push(`| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`);
    }
    out.push("");
  }
  return out.join("\n");
}
