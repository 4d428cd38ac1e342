/** The metrics docs/metrics.md documents, as the monitoring tier expects to find them in Prometheus. */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");

export interface DocumentedMetric {
  readonly name: string;
  /** undefined for process metrics, whose types the page does not give. */
  readonly type: string | undefined;
}

/** docs/metrics.md's metrics: the main table, the process metrics list, and the sandbox provider's names. */
export async function documentedMetrics(): Promise<DocumentedMetric[]> {
  const doc = await readFile(join(ROOT, "docs", "metrics.md"), "utf8");
  const out: DocumentedMetric[] = [];
  for (const m of doc.matchAll(/^\| `([a-z_:][a-z0-9_:]*)` \| (counter|gauge|histogram|summary) \|/gm))
    out.push({ name: m[1] as string, type: m[2] });
  const processSection = doc.slice(doc.indexOf("## Process metrics"), doc.indexOf("## Provider metrics"));
  for (const m of processSection.matchAll(/^- `([a-z_:][a-z0-9_:]*)`$/gm))
    out.push({ name: m[1] as string, type: undefined });
  const sandboxRow = /^\| `sandbox` \| (.*) \|$/m.exec(doc)?.[1] ?? "";
  for (const m of sandboxRow.matchAll(/`([a-z_:][a-z0-9_:]*)`/g)) {
    const name = m[1] as string;
    out.push({ name, type: name.endsWith("_duration_seconds") ? "histogram" : "counter" });
  }
  return out;
}
