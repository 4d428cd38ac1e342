/**
 * `npm run test:monitoring`: deploy/monitoring/ tested for real. Prometheus from Debian's package (installed with apt
 * when missing, which needs root) checks and unit-tests the rules with promtool, then scrapes the compiled manager
 * running against the sandbox's API emulator and simulated cloud (in this process, test/support/in-process.ts).
 * The checks: every metric docs/metrics.md documents has data (those that cannot in any scenario here are skips
 * that say why); no alert is pending or firing while the cluster is healthy; and each alert made to fire here fires
 * and resolves: nodes stuck uninitialised, cloud API errors, cloud API throttling, a Service without ingress.
 * Ends with `N passed, N failed, N skipped`.
 */
import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Lease, Node, Service } from "../../kube/objects.ts";
import { type CloudApi, cloudApi } from "../../test/support/cluster.ts";
import { executablesDir } from "../../test/support/executables.ts";
import { startInProcessCluster } from "../../test/support/in-process.ts";
import { METRICS_TOKENS, metricsAuthorizer } from "../../test/support/metrics-reader.ts";
import { freePort, type RunningProcess, spawnManager } from "../../test/support/processes.ts";
import { aptInstall } from "../lib/apt.ts";
import { exitsZero, Tally } from "../lib/test-tally.ts";
import { documentedMetrics } from "./documented.ts";
import { JOB, type Prometheus, RULES, startPrometheus } from "./prometheus.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const log = (line: string) => console.log(`monitoring: ${line}`);
const tally = new Tally();

/** Documented metrics no scenario here can give a series, and why: each is counted as a skip. */
const NO_SCENARIO: Readonly<Record<string, string>> = {
  event_recorder_dropped_events_total: "counted only when an event is dropped (a full queue or a failed write)",
};

try {
  await run();
} catch (err) {
  console.log(`FAIL the monitoring tier stopped: ${(err as Error).stack ?? err}`);
  tally.failed++;
}
console.log(tally.summary({ skipped: true }));
process.exit(tally.failed === 0 ? 0 : 1);

async function run(): Promise<void> {
  const tools = await tally.check("prometheus and promtool (apt: prometheus)", () =>
    aptInstall(["prometheus"], log).then(() => true as const),
  );
  if (!tools) return;
  await tally.check("promtool check rules deploy/monitoring/rules.yaml", () =>
    exitsZero($`promtool check rules ${RULES}`.cwd(ROOT)),
  );
  const tests = [...new Bun.Glob("deploy/monitoring/tests/*.yaml").scanSync({ cwd: ROOT })].sort();
  await tally.check(`promtool test rules (${tests.join(", ")})`, async () => {
    if (tests.length === 0) throw new Error("no rule tests in deploy/monitoring/tests/");
    return exitsZero($`promtool test rules ${tests}`.cwd(ROOT));
  });

  // The compiled executables (test/support/executables.ts): CCM_TEST_BIN_DIR's, or a build of this tree made here.
  const bins = await executablesDir();
  const cluster = await startInProcessCluster({
    name: "monitoring",
    machines: 2,
    api: { tokens: METRICS_TOKENS, authorizer: metricsAuthorizer },
    managerUser: "cloud-controller-manager",
  });
  const cloud = cloudApi(cluster.cloud.url, cluster.cloudToken);
  const port = freePort();
  const webhookPort = freePort();
  let manager: RunningProcess | undefined;
  let prometheus: Prometheus | undefined;
  try {
    manager = await spawnManager(cluster.files, [
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
      "--leader-elect=true",
      "--controllers=*",
      // The node IPAM controller too, so its documented metrics have data.
      "--allocate-node-cidrs=true",
      // And the sandbox provider's webhook, for the cloud_provider_webhook_* metrics.
      "--feature-gates=CloudControllerManagerWebhook=true",
      "--webhooks=*",
      `--webhook-secure-port=${webhookPort}`,
      "--webhook-bind-address=127.0.0.1",
    ]);
    prometheus = await startPrometheus({ port, token: "reader-token" });
    const scenario = new Scenario(prometheus, cluster.client, cloud, manager, webhookPort);
    await scenario.all();
  } finally {
    if (manager) {
      manager.proc.kill("SIGKILL");
      await manager.exited;
    }
    await prometheus?.stop();
    await cluster.stop();
    if (!process.env.CCM_TEST_BIN_DIR) await rm(bins, { recursive: true, force: true });
  }
}

class Scenario {
  constructor(
    private readonly prometheus: Prometheus,
    private readonly client: KubeClient,
    private readonly cloud: CloudApi,
    private readonly manager: RunningProcess,
    private readonly webhookPort: number,
  ) {}

  async all(): Promise<void> {
    const { prometheus } = this;
    const scraped = await tally.check("Prometheus scrapes the compiled manager with the reader's token", () =>
      this.until("up == 1", async () => (await this.value(`up{job="${JOB}"}`)) === 1),
    );
    if (!scraped) {
      console.log(`manager output:\n${this.manager.output().slice(-3000)}`);
      return;
    }
    await tally.check("healthy: both nodes initialised, a leader, and no alert pending or firing", async () => {
      await this.until("the nodes initialised and a leader elected", async () => {
        const [stuck, leader] = await Promise.all([
          this.value(`max(cloud_node_controller_uninitialized_nodes{job="${JOB}"})`),
          this.value(`max(leader_election_master_status{job="${JOB}"})`),
        ]);
        return stuck === 0 && leader === 1;
      });
      // Twenty rule evaluations after that (more than the longest compressed `for:`), ALERTS has no sample at all.
      const start = await this.evaluations();
      await this.until("20 rule evaluations", async () => (await this.evaluations()) >= start + 20, 120_000);
      // The window starts after the nodes were initialised, with a margin: pending alerts of the start-up are older.
      const alerts = await prometheus.query("count_over_time(ALERTS[15s])");
      const names = alerts.map((a) => `${a.metric.alertname} (${a.metric.alertstate})`);
      if (names.length > 0) throw new Error(`alerts while healthy: ${names.join(", ")}`);
    });

    await tally.check("node IPAM: a Node without pod CIDRs gets one, and gives it back when deleted", async () => {
      await this.client.create<Node>(Resources.nodes, { metadata: { name: "ipam-1" }, spec: {} });
      // Ready, so the lifecycle controller, finding no machine for it, does not delete it first.
      const ready = {
        type: "Ready",
        status: "True",
        reason: "KubeletReady",
        lastHeartbeatTime: new Date().toISOString(),
      };
      await this.client.patch(
        Resources.nodes,
        "ipam-1",
        "strategic",
        { status: { conditions: [ready] } },
        {
          subresource: "status",
        },
      );
      await this.until("ipam-1 given a pod CIDR", async () => {
        const node = await this.client.get<Node>(Resources.nodes, "ipam-1");
        return (node.spec?.podCIDRs ?? []).length > 0;
      });
      await this.client.delete(Resources.nodes, "ipam-1");
      await this.until(
        "its subnet released",
        async () =>
          ((await this.value(`sum(node_ipam_controller_cidrset_cidrs_releases_total{job="${JOB}"})`)) ?? 0) > 0,
      );
    });

    await this.fires(
      "a Node whose machine's metadata the cloud cannot give yet",
      "CloudControllerManagerNodesUninitialized",
      async () => {
        // The simulated kubelets register the machine as a tainted Node; the cloud answers "cannot tell yet".
        const { machine } = await this.cloud.call<{ machine: { id: string } }>("POST", "/v1/machines", {
          name: "pending-1",
          metadataPending: true,
        });
        return async () => {
          await this.cloud.call("PATCH", `/v1/machines/${machine.id}`, { metadataPending: false });
          // The node is tried again on its next update.
          await this.until("the Node pending-1 registered", async () => {
            await this.client.patch(Resources.nodes, "pending-1", "merge", {
              metadata: { labels: { "monitoring-tier/retry": String(Date.now()) } },
            });
            return true;
          });
        };
      },
    );
    await this.fires("every cloud API call failing", "CloudControllerManagerCloudAPIErrors", async () => {
      await this.cloud.setFaults({ errorRate: 1 });
      return () => this.cloud.setFaults({});
    });
    await this.fires("the cloud throttling every call", "CloudControllerManagerCloudAPIThrottled", async () => {
      await this.cloud.setFaults({ rateLimit: { qps: 0.2, burst: 1 } });
      return () => this.cloud.setFaults({});
    });
    await this.fires(
      "a LoadBalancer Service the cloud refuses a load balancer",
      "CloudControllerManagerServicesWithoutIngress",
      async () => {
        await this.cloud.setFaults({
          failNext: [{ method: "PUT", pathPrefix: "/v1/load-balancers", status: 400, count: 100_000 }],
        });
        await this.client.create<Service>(Resources.services, lbService("refused"));
        return () => this.cloud.setFaults({});
      },
    );

    await tally.check(
      "the service-annotations webhook refuses an invalid annotation and answers 400 to a non-review",
      () => this.reviews(),
    );

    // A write to the Lease by someone else: the leader's next optimistic renewal conflicts and takes the slow path.
    const lease = await this.client.get<Lease>(Resources.leases, "cloud-controller-manager", {
      namespace: "kube-system",
    });
    await this.client.update<Lease>(
      Resources.leases,
      { ...lease, metadata: { ...lease.metadata, annotations: { "monitoring-tier/touched": "yes" } } },
      { namespace: "kube-system" },
    );
    await this.documentedMetricsHaveData();
    await this.dashboardQueriesRun();
  }

  /** Reviews posted to the webhook port as the API server would (the self-signed certificate is not checked here). */
  async reviews(): Promise<true> {
    const post = (body: string) =>
      fetch(`https://127.0.0.1:${this.webhookPort}/service-annotations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        tls: { rejectUnauthorized: false },
        keepalive: false,
      });
    const service = lbService("annotated");
    service.metadata = { ...service.metadata, annotations: { "sandbox.ccm.dev/load-balancer-algorithm": "fastest" } };
    const review = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "monitoring",
        kind: { group: "", version: "v1", kind: "Service" },
        operation: "CREATE",
        object: service,
      },
    };
    const answer = (await (await post(JSON.stringify(review))).json()) as { response: { allowed: boolean } };
    if (answer.response.allowed) throw new Error("the webhook allowed an invalid algorithm");
    const malformed = await post("{");
    if (malformed.status !== 400) throw new Error(`a malformed review got HTTP ${malformed.status}, not 400`);
    await this.until(
      "both answers counted",
      async () => ((await this.value(`count(cloud_provider_webhook_request_total{job="${JOB}"})`)) ?? 0) >= 2,
    );
    return true;
  }

  /** Every query of the Grafana dashboard, its job variable set, is valid PromQL here; most return data. */
  async dashboardQueriesRun(): Promise<void> {
    const dashboard = JSON.parse(await readFile(join(ROOT, "deploy", "monitoring", "grafana-dashboard.json"), "utf8"));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) =>
      (p.targets ?? []).map((t) => t.expr.replaceAll("$job", JOB)),
    );
    await tally.check(
      `the dashboard's ${exprs.length} queries are valid PromQL against the live Prometheus`,
      async () => {
        let empty = 0;
        for (const expr of exprs) {
          // A parse or evaluation error rejects, naming the query.
          const result = await this.prometheus.query(expr).catch((err: Error) => {
            throw new Error(`${expr}: ${err.message}`);
          });
          if (result.length === 0) empty++;
        }
        log(`${exprs.length - empty} of ${exprs.length} dashboard queries return data now`);
        return true;
      },
    );
  }

  /** Every metric docs/metrics.md documents (the sandbox provider's among the provider metrics) has a series. */
  async documentedMetricsHaveData(): Promise<void> {
    const metrics = await documentedMetrics();
    const expected = metrics.filter((m) => !(m.name in NO_SCENARIO));
    for (const [name, why] of Object.entries(NO_SCENARIO)) {
      if (!metrics.some((m) => m.name === name)) continue;
      console.log(`skip ${name} has no series here: ${why}`);
      tally.skipped++;
    }
    await tally.check(`every other documented metric (${expected.length}) has data`, async () => {
      let missing: string[] = [];
      await this.until(
        "every documented metric",
        async () => {
          missing = [];
          for (const m of expected) {
            // A process metric's type is not documented: a histogram or summary among them has `_count`.
            const series = m.type === "histogram" ? `${m.name}_count` : m.type ? m.name : `${m.name}(_count)?`;
            const found = await this.prometheus.query(`count({__name__=~"${series}", job="${JOB}"})`);
            if (found.length === 0) missing.push(m.name);
          }
          return missing.length === 0;
        },
        60_000,
      ).catch(() => {
        throw new Error(`no series for: ${missing.join(", ")}`);
      });
    });
  }

  /** Brings about a fault with `cause` (which answers how to undo it); the alert must fire, then resolve once undone. */
  async fires(what: string, alert: string, cause: () => Promise<() => Promise<void>>): Promise<void> {
    let undo: (() => Promise<void>) | undefined;
    await tally.check(`${alert} fires for ${what}`, async () => {
      undo = await cause();
      await this.until(`${alert} firing`, async () => (await this.state(alert)) === "firing");
    });
    await tally.check(`${alert} resolves once ${what} ends`, async () => {
      await undo?.();
      await this.until(`${alert} resolved`, async () => (await this.state(alert)) === undefined);
    });
  }

  private async state(alert: string): Promise<string | undefined> {
    return (await this.prometheus.alerts()).find((a) => a.labels.alertname === alert)?.state;
  }

  private async evaluations(): Promise<number> {
    return (await this.value(`sum(prometheus_rule_group_iterations_total{job="prometheus"})`)) ?? 0;
  }

  private async value(expr: string): Promise<number | undefined> {
    const [first] = await this.prometheus.query(expr);
    return first ? Number(first.value[1]) : undefined;
  }

  /** Polls `condition` every half second until it holds; fails after `timeoutMs` or when the manager has exited. */
  private async until(what: string, condition: () => Promise<boolean>, timeoutMs = 90_000): Promise<true> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await condition().catch(() => false)) return true;
      if (this.manager.proc.exitCode !== null)
        throw new Error(`the manager exited (${this.manager.proc.exitCode}) waiting for ${what}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
      await Bun.sleep(500);
    }
  }
}

function lbService(name: string): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ name: "http", port: 80, protocol: "TCP" }] },
  };
}
