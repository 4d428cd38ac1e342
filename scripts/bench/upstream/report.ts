/**
 * The side-by-side table as the scenarios fill it, row by row in the order they ran, and its Markdown on stdout:
 * one row a figure (upstream, ours, their ratio), then ./memory.ts's breakdown of each scenario.
 */
import { breakdownMarkdown, type Scenario } from "./memory.ts";

/** "" for a count: printed as it is, with no ratio; "×" for a multiple (of the floor), with no ratio either. */
export type Unit = "ms" | "s" | "MiB" | "" | "×";

export interface Report {
  /** One row; NaN (a side not run) prints as "–". */
  put(figure: string, upstream: number, ours: number, unit: Unit): void;
  /** One column of the memory breakdown. */
  scenario(scenario: Scenario): void;
  /** The table, then the breakdown when any scenario was added. */
  print(): void;
}

export function createReport(): Report {
  const rows: Array<[string, number, number, Unit]> = [];
  const scenarios: Scenario[] = [];
  return {
    put: (figure, up, ours, unit) => rows.push([figure, up, ours, unit]),
    scenario: (scenario) => scenarios.push(scenario),
    print() {
      console.log("| figure | upstream Go CCM 1.20 | ours | ours ÷ upstream |");
      console.log("|---|---|---|---|");
      for (const [figure, up, ours, unit] of rows) {
        const ratio = unit === "" || unit === "×" || Number.isNaN(ours / up) ? "" : `${(ours / up).toFixed(2)}×`;
        console.log(`| ${figure} | ${fmt(up, unit)} | ${fmt(ours, unit)} | ${ratio} |`);
      }
      if (scenarios.length > 0) console.log(`\nWhere the bytes are:\n\n${breakdownMarkdown(scenarios)}`);
    },
  };
}

const fmt = (x: number, unit: Unit) =>
  Number.isNaN(x)
    ? "–"
    : unit === "ms"
      ? `${x.toFixed(0)} ms`
      : unit === ""
        ? String(x)
        : unit === "×"
          ? `${x.toFixed(1)}×`
          : `${x.toFixed(unit === "s" ? 2 : 1)} ${unit}`;
