/**
 * The memory request and limit the shipped manifests give the manager's container: deploy/kubernetes/'s Deployment
 * and DaemonSet and the chart's default `resources`, read from the files so a test follows them when they change.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");

export const MANIFESTS = {
  deployment: "deploy/kubernetes/deployment/deployment.yaml",
  daemonset: "deploy/kubernetes/daemonset/daemonset.yaml",
  chart: "deploy/helm/cloud-controller-manager/values.yaml",
} as const;

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A Kubernetes memory quantity (`256Mi`, `1G`, `134217728`) in bytes; throws on any other form. */
export function quantityBytes(quantity: unknown): number {
  const m = typeof quantity === "string" ? /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity) : null;
  const unit = m?.[2] ?? "";
  const scale = BINARY[unit] ?? DECIMAL[unit];
  if (!m || scale === undefined) {
    throw new Error(`not a memory quantity this test reads: ${JSON.stringify(quantity)} (want e.g. 256Mi or 1G)`);
  }
  return Number(m[1]) * scale;
}

export interface MemoryResources {
  /** As written (`256Mi`), for messages. */
  readonly request: string;
  readonly limit: string;
  readonly requestBytes: number;
  readonly limitBytes: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed manifest, read field by field with checks
type Doc = any;

/** `resources.requests.memory` and `resources.limits.memory`; throws naming `where` when either is missing. */
export function memoryResources(resources: Doc, where: string): MemoryResources {
  const request = resources?.requests?.memory;
  const limit = resources?.limits?.memory;
  if (typeof request !== "string" || typeof limit !== "string") {
    throw new Error(`${where}: resources.requests.memory and resources.limits.memory must both be set`);
  }
  return { request, limit, requestBytes: quantityBytes(request), limitBytes: quantityBytes(limit) };
}

const docs = async (file: string): Promise<Doc[]> =>
  (await readFile(resolve(ROOT, file), "utf8"))
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d) as Doc)
    .filter((d) => d);

/** The manager's container in a workload manifest (the container named `cloud-controller-manager`). */
async function workloadResources(file: string, kind: string): Promise<MemoryResources> {
  const workload = (await docs(file)).find((d) => d.kind === kind);
  const container = workload?.spec?.template?.spec?.containers?.find(
    (c: Doc) => c?.name === "cloud-controller-manager",
  );
  if (!container) throw new Error(`${file}: no ${kind} with a container named cloud-controller-manager`);
  return memoryResources(container.resources, `${file} (${kind}, container cloud-controller-manager)`);
}

/** Each manifest's figures, keyed as `MANIFESTS`. */
export async function manifestMemory(): Promise<Record<keyof typeof MANIFESTS, MemoryResources>> {
  const [values] = await docs(MANIFESTS.chart);
  return {
    deployment: await workloadResources(MANIFESTS.deployment, "Deployment"),
    daemonset: await workloadResources(MANIFESTS.daemonset, "DaemonSet"),
    chart: memoryResources(values?.resources, `${MANIFESTS.chart} (resources)`),
  };
}
