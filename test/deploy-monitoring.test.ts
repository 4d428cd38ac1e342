/**
 * deploy/monitoring/ agrees with the code and the workloads: every metric its alerts and dashboard read is one
 * docs/metrics.md documents, the PodMonitor scrapes the port the workloads serve under the job the rules select,
 * the scrape identity may read /metrics and nothing else, and the kustomization renders. promtool's own checks and
 * the rules firing against a live Prometheus are `npm run test:monitoring` (scripts/monitoring-tier/).
 */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { kustomize, noKubectl } from "./support/kustomize.ts";

const ROOT = resolve(import.meta.dir, "..");
const DIR = join(ROOT, "deploy", "monitoring");
// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Doc = any;

const yamlDocs = async (path: string): Promise<Doc[]> =>
  (await readFile(path, "utf8"))
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d) as Doc)
    .filter((d) => d);

const rules = (await yamlDocs(join(DIR, "rules.yaml")))[0];
const alerts: { alert: string; expr: string }[] = rules.groups.flatMap((g: Doc) => g.rules);
const dashboard = JSON.parse(await readFile(join(DIR, "grafana-dashboard.json"), "utf8"));
const metricsDoc = await readFile(join(ROOT, "docs", "metrics.md"), "utf8");
const documented = new Set([...metricsDoc.matchAll(/`([a-z_:][a-z0-9_:<>]*)`/g)].map((m) => m[1] as string));

/** Metric names a PromQL expression reads (plain selectors, and `__name__` patterns as written). */
function metricsIn(expr: string): string[] {
  const noStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const words = [...noStrings.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=\{|\[|\)|$|\s)/g)].map((m) => m[1] as string);
  const keywords = new Set([
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "le",
  ]);
  const names = [...expr.matchAll(/__name__=~"([^"]+)"/g)].map((m) => m[1] as string);
  return [...words.filter((w) => (w.includes("_") || w === "up") && !keywords.has(w)), ...names];
}

/** A name docs/metrics.md documents: itself, a histogram's series, or a provider metric pattern. */
function isDocumented(name: string): boolean {
  // Prometheus's own scrape health.
  if (name === "up") return true;
  const plain = name.replace("cloudprovider_.+_", "cloudprovider_<provider>_");
  return documented.has(plain) || documented.has(plain.replace(/_(bucket|count|sum)$/, ""));
}

const dashboardExprs: string[] = dashboard.panels.flatMap((p: Doc) => (p.targets ?? []).map((t: Doc) => t.expr));

describe("deploy/monitoring", () => {
  test.each(alerts.map((a) => [a.alert, a.expr]))(
    "%s reads only documented metrics of the job the PodMonitor sets",
    (_, expr) => {
      const names = metricsIn(expr);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((n) => !isDocumented(n))).toEqual([]);
      expect(expr).toContain('job="cloud-controller-manager"');
    },
  );

  test("every dashboard query reads documented metrics, filtered by the job variable", () => {
    expect(dashboardExprs.length).toBeGreaterThan(10);
    for (const expr of dashboardExprs) {
      expect({ expr, undocumented: metricsIn(expr).filter((n) => !isDocumented(n)) }).toEqual({
        expr,
        undocumented: [],
      });
      expect(expr).toContain('job=~"$job"');
    }
  });

  test("the alerts cover leadership, stuck nodes, Services without ingress, the cloud API and work queues", () => {
    const read = new Set(alerts.flatMap((a) => metricsIn(a.expr)));
    for (const needed of [
      "leader_election_master_status",
      "cloud_node_controller_uninitialized_nodes",
      "cloud_service_controller_pending_load_balancers",
      "cloudprovider_.+_api_request_errors",
      "cloudprovider_.+_api_throttled_requests_total",
      "workqueue_depth",
    ])
      expect(read).toContain(needed);
    for (const a of alerts) expect(a.alert).toStartWith("CloudControllerManager");
  });

  test("the PodMonitor scrapes the workloads' serving port under the job the rules select, with the reader's token", async () => {
    const [podMonitor] = await yamlDocs(join(DIR, "podmonitor.yaml"));
    const [deployment] = await yamlDocs(join(ROOT, "deploy", "kubernetes", "deployment", "deployment.yaml"));
    const pod = deployment.spec.template;
    expect(podMonitor.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(pod.metadata.labels[podMonitor.spec.jobLabel]).toBe("cloud-controller-manager");
    const [endpoint] = podMonitor.spec.podMetricsEndpoints;
    expect(pod.spec.containers[0].ports.map((p: Doc) => p.name)).toContain(endpoint.port);
    expect([endpoint.scheme, endpoint.path]).toEqual(["https", "/metrics"]);
    const reader = await yamlDocs(join(DIR, "metrics-reader.yaml"));
    const secret = reader.find((d) => d.kind === "Secret");
    expect(endpoint.authorization.credentials).toEqual({ name: secret.metadata.name, key: "token" });
    expect(reader.find((d) => d.kind === "ClusterRole").rules).toEqual([
      { nonResourceURLs: ["/metrics"], verbs: ["get"] },
    ]);
  });

  test.skipIf(noKubectl !== undefined)(
    `the kustomization renders the PodMonitor, the PrometheusRule and the dashboard${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
    () => {
      const { code, stderr, docs } = kustomize(DIR);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(docs.map((d) => d.kind).sort()).toEqual(
        [
          "ClusterRole",
          "ClusterRoleBinding",
          "ConfigMap",
          "PodMonitor",
          "PrometheusRule",
          "Secret",
          "ServiceAccount",
        ].sort(),
      );
      const rule = docs.find((d) => d.kind === "PrometheusRule");
      expect(rule.spec).toEqual(rules);
      const dashboardMap = docs.find((d) => d.kind === "ConfigMap");
      expect(dashboardMap.metadata.labels).toEqual({ grafana_dashboard: "1" });
      expect(JSON.parse(dashboardMap.data["grafana-dashboard.json"])).toEqual(dashboard);
    },
  );
});
