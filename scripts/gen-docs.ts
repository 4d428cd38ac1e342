/**
 * `npx bun scripts/gen-docs.ts`: writes the reference pages generated from the code itself — docs/flags.md from the
 * command's flag table and docs/metrics.md from the metrics registry — so they cannot drift (a test compares).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Registry } from "prom-client";
import { FEATURE_GATES, GATES_UPSTREAM_VERSION } from "../cmd/feature-gates.ts";
import { FLAGS, SECTIONS } from "../cmd/flags.ts";
import { uninitializedNodesMetric } from "../controllers/node/uninitialized-metric.ts";
import { cidrSetMetrics } from "../controllers/node-ipam/metrics.ts";
import { controllerMetrics, workqueueMetrics } from "../controllers/runtime/metrics.ts";
import { pendingLoadBalancersMetric } from "../controllers/service/pending-metric.ts";
import { kubeClientMetrics } from "../kube/metrics.ts";
import { pacingMetric } from "../kube/pacing.ts";
import { eventRecorderMetrics } from "../platform/events-metrics.ts";
import { leaderElectionMetrics } from "../platform/leader-election-metrics.ts";
import { createMetricsRegistry } from "../platform/metrics.ts";
import { providerApiMetrics, providerMetricPrefix } from "../providers/kit/metrics.ts";
import { discoverProviders } from "./build.ts";
import { PROVIDER_PAGES } from "./provider-pages.ts";

const ROOT = resolve(import.meta.dir, "..");
const cell = (s: string) => s.replaceAll("|", "\\|");

export function flagsReference(): string {
  const out = [
    "# Flags",
    "",
    "Generated from `cmd/flags.ts` by `npx bun scripts/gen-docs.ts`; do not edit by hand (a test fails when it is stale).",
    "",
    "Every upstream `cloud-controller-manager` flag is accepted. Those marked *compatibility only* are parsed and",
    "checked but have no effect here, each for the reason it names; the command names any that were given in one",
    "warning at start. Those marked *ours* are not upstream's: flags this implementation adds.",
    "",
  ];
  for (const section of SECTIONS) {
    const flags = FLAGS.filter((f) => f.section === section);
    if (flags.length === 0) continue;
    out.push(
      `## ${section[0]?.toUpperCase()}${section.slice(1)}`,
      "",
      "| flag | type | default | meaning |",
      "|---|---|---|---|",
    );
    for (const f of flags) {
      const notes = [
        f.effect === "none" ? `*compatibility only*: ${f.reason}` : "",
        f.origin === "ours" ? "*ours*" : "",
        f.deprecated ? `*deprecated: ${f.deprecated}*` : "",
      ];
      const meaning = [f.help, ...notes.filter(Boolean)].join(" ");
      out.push(`| \`--${f.name}\` | ${f.kind} | ${f.default === "" ? "" : `\`${f.default}\``} | ${cell(meaning)} |`);
    }
    out.push("");
  }
  out.push(...featureGatesReference());
  return out.join("\n");
}

/** The gates `--feature-gates` accepts, from `cmd/feature-gates.ts`. */
function featureGatesReference(): string[] {
  return [
    "## Feature gates",
    "",
    `\`--feature-gates\` accepts every gate upstream's cloud-controller-manager ${GATES_UPSTREAM_VERSION} registers, with its stage and`,
    "default, so a manifest written for it starts this one; an unknown gate is an error, as upstream. `AllAlpha=true` and",
    "`AllBeta=true` set every alpha or beta gate not named explicitly. A *locked* gate refuses any value but its default;",
    "setting a GA or deprecated gate logs a warning, and the start-up warning names the gates given that have no effect.",
    "",
    "| gate | stage | default | here |",
    "|---|---|---|---|",
    ...FEATURE_GATES.map((g) => {
      const def = `\`${g.default}\`${g.locked ? " (locked)" : ""}`;
      const here = g.effect === "none" ? `*compatibility only*. ${g.here}` : g.here;
      return `| \`${g.name}\` | ${g.stage} | ${def} | ${cell(here)} |`;
    }),
    "",
  ];
}

/** The registry of everything the manager exports but process metrics, as `cmd/manager.ts` and the runtime fill it. */
export function documentedRegistry(): Registry {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  controllerMetrics(registry);
  workqueueMetrics(registry);
  eventRecorderMetrics(registry);
  kubeClientMetrics(registry);
  pacingMetric(registry);
  leaderElectionMetrics(registry);
  uninitializedNodesMetric(registry);
  pendingLoadBalancersMetric(registry);
  cidrSetMetrics(registry);
  return registry;
}

const labelsOf = (m: { labelNames?: readonly string[] }) =>
  (m.labelNames ?? []).length === 0 ? "" : (m.labelNames ?? []).map((l) => `\`${l}\``).join(", ");

/** Default collectors that never have a sample under Bun (`npm run test:monitoring` found them empty). */
const EMPTY_UNDER_BUN = [
  "nodejs_active_handles",
  "nodejs_active_requests",
  "nodejs_active_resources",
  "nodejs_gc_duration_seconds",
];

export async function metricsReference(): Promise<string> {
  const metrics = documentedRegistry()
    .getMetricsAsArray()
    .map((m) => m as unknown as { name: string; type: string; help: string; labelNames?: readonly string[] })
    .sort((a, b) => a.name.localeCompare(b.name));
  const process = createMetricsRegistry({ defaultMetrics: true });
  const processNames = (await process.getMetricsAsJSON())
    .map((m) => m.name)
    .filter((n) => !EMPTY_UNDER_BUN.includes(n))
    .sort();
  const out = [
    "# Metrics",
    "",
    "Generated from `controllers/runtime/metrics.ts`, `controllers/node/uninitialized-metric.ts`,",
    "`controllers/service/pending-metric.ts`, `platform/events-metrics.ts`, `platform/leader-election-metrics.ts`, `kube/metrics.ts`, `kube/pacing.ts` and `providers/kit/metrics.ts` by `npx bun scripts/gen-docs.ts`; do not edit by hand.",
    "",
    "Served at `/metrics` on `--secure-port` (Prometheus text format) to callers the API server authenticates and",
    "authorises (`get` on the non-resource path `/metrics`). Names, types, labels and buckets are upstream's",
    "(`k8s.io/cloud-provider`, `client-go`'s work queue, REST client and leader election), so dashboards and alerts",
    "written for kube-controller-manager read them; `deploy/monitoring/` has alerts and a dashboard over them.",
    "",
    "| metric | type | labels | help |",
    "|---|---|---|---|",
  ];
  for (const m of metrics) out.push(`| \`${m.name}\` | ${m.type} | ${labelsOf(m)} | ${cell(m.help)} |`);
  out.push(
    "",
    "## Process metrics",
    "",
    "prom-client's default collectors, on every registry the manager serves:",
    "",
    ...processNames.map((n) => `- \`${n}\``),
    "",
    `prom-client also registers ${EMPTY_UNDER_BUN.map((n) => `\`${n}\``).join(", ")}, which stay empty under Bun`,
    "(it exposes neither the active handle, request and resource lists nor garbage-collection events).",
    "",
    ...(await providerMetricsSection()),
  );
  return `${out.join("\n")}\n`;
}

/** The per-call metrics of providers' cloud APIs (providers/kit/metrics.ts), and the names each shipped provider has. */
async function providerMetricsSection(): Promise<string[]> {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  providerApiMetrics(registry, "PROVIDER");
  const generic = (text: string) => text.replaceAll("PROVIDER", "<provider>");
  const metrics = (await registry.getMetricsAsJSON()).sort((a, b) => a.name.localeCompare(b.name));
  // The composite calls no cloud API of its own: its parts record theirs under their own names.
  const providers = (await discoverProviders(ROOT)).filter((p) => p.shippable && !p.composesOthers).map((p) => p.name);
  return [
    "## Provider metrics",
    "",
    "Recorded for every call a provider makes to its cloud's API, by the cloud-API kit (`providers/kit/http/`) or",
    "`instrumented()` (`providers/kit/metrics.ts`), and named as upstream's in-tree clouds name theirs",
    "(`cloudprovider_aws_api_request_duration_seconds`). `<provider>` is the provider's name with `-` as `_`; the",
    "label `request` is the operation (`getMachine`, `listServers`). A call is one observation, its retries and the",
    "waits between them included, so `_count` is the number of calls; a 429 the kit waited out counts as throttled.",
    "",
    "| metric | type | labels | help |",
    "|---|---|---|---|",
    ...metrics.map((m) => `| \`${generic(m.name)}\` | ${m.type} | \`request\` | ${cell(generic(m.help))} |`),
    "",
    "The providers built here record them under these names:",
    "",
    "| provider | metrics |",
    "|---|---|",
    ...providers.map((p) => {
      const names = metrics.map((m) => `\`${m.name.replace("cloudprovider_PROVIDER_", providerMetricPrefix(p))}\``);
      return `| \`${p}\` | ${names.join(", ")} |`;
    }),
  ];
}

/**
 * deploy/monitoring/prometheusrule.yaml: the groups of deploy/monitoring/rules.yaml (the file promtool checks and
 * tests) as a prometheus-operator PrometheusRule, indented under `spec:` as they are.
 */
export async function prometheusRule(): Promise<string> {
  const rules = await readFile(join(ROOT, "deploy", "monitoring", "rules.yaml"), "utf8");
  const body = rules.slice(rules.indexOf("\ngroups:") + 1).trimEnd();
  return [
    "# Generated from rules.yaml by `npx bun scripts/gen-docs.ts`; do not edit by hand (a test fails when it is stale).",
    "apiVersion: monitoring.coreos.com/v1",
    "kind: PrometheusRule",
    "metadata:",
    "  name: cloud-controller-manager",
    "  namespace: kube-system",
    "  labels:",
    "    app.kubernetes.io/name: cloud-controller-manager",
    "spec:",
    ...body.split("\n").map((l) => (l === "" ? "" : `  ${l}`)),
    "",
  ].join("\n");
}

export const GENERATED = {
  "docs/flags.md": async () => flagsReference(),
  "docs/metrics.md": metricsReference,
  "deploy/monitoring/prometheusrule.yaml": prometheusRule,
  ...PROVIDER_PAGES,
} as const;

if (import.meta.main) {
  for (const [path, make] of Object.entries(GENERATED)) {
    await writeFile(join(ROOT, path), await make());
    console.log(`wrote ${path}`);
  }
}
