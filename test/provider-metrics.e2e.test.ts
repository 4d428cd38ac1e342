/**
 * Provider metrics end to end: the compiled manager runs the sandbox provider against an API emulator and
 * a simulated cloud started here; kubelets register machines as Nodes and the test creates a LoadBalancer Service.
 * Its `/metrics` (scraped with a token the emulator authorises) must show the cloud-API kit's per-call metrics for
 * the calls the controllers made, and the errors and throttles of faults injected through the cloud's fault API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import type { SimulatedCloud } from "../sandbox/cloud/server.ts";
import { pollFor } from "../scripts/lib/processes.ts";
import { cloudApi } from "./support/cluster.ts";
import { type InProcessCluster, startInProcessCluster } from "./support/in-process.ts";
import { METRICS_TOKENS, metricsAuthorizer, scrapeMetrics } from "./support/metrics-reader.ts";
import { freePort, poll, type RunningProcess, spawnManager } from "./support/processes.ts";

let cluster: InProcessCluster;
let cloud: SimulatedCloud;
let client: KubeClient;
let manager: RunningProcess | undefined;
let base = "";

beforeAll(async () => {
  cluster = await startInProcessCluster({
    name: "provider-metrics",
    machines: 2,
    api: { tokens: METRICS_TOKENS, authorizer: metricsAuthorizer },
    managerUser: "cloud-controller-manager",
  });
  ({ cloud, client } = cluster);
  const port = freePort();
  base = `https://127.0.0.1:${port}`;
  manager = await spawnManager(cluster.files, [
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    "--controllers=service,cloud-node",
  ]);
}, 120_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await cluster?.stop();
});

/** The manager's `/metrics`, or "" while it does not serve yet. */
const scrape = () => scrapeMetrics(base);

/** A sample's value in a scrape; 0 when absent. */
const sample = (text: string, series: string): number =>
  Number(
    text
      .split("\n")
      .find((line) => line.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

/** Waits until the series is above `floor` in a scrape, and answers that scrape. */
const untilAbove = (series: string, floor = 0): Promise<string> =>
  pollFor(
    `${series} > ${floor} in /metrics`,
    async () => {
      const text = await scrape();
      return sample(text, series) > floor ? text : undefined;
    },
    { everyMs: 250, alive: () => manager?.proc.exitCode === null },
  );

const lbService = (name: string): Service => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "default" },
  spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ name: "http", port: 80, protocol: "TCP" }] },
});

const duration = (request: string) => `cloudprovider_sandbox_api_request_duration_seconds_count{request="${request}"}`;
const errors = (request: string) => `cloudprovider_sandbox_api_request_errors{request="${request}"}`;
const throttled = (request: string) => `cloudprovider_sandbox_api_throttled_requests_total{request="${request}"}`;

describe("the compiled manager's /metrics after a sandbox run", () => {
  test("counts the machine lookups the node controller made", async () => {
    const text = await untilAbove(duration("listMachines"));
    expect(text).toContain("# TYPE cloudprovider_sandbox_api_request_duration_seconds histogram");
    expect(text).toContain("# HELP cloudprovider_sandbox_api_request_errors [ALPHA] ");
  }, 90_000);

  test("counts the load balancer the service controller put", async () => {
    await client.create(Resources.services, lbService("web"));
    await poll(() => cloud.state.listLoadBalancers().some((lb) => lb.serviceName === "web"), { timeoutMs: 60_000 });
    await untilAbove(duration("putLoadBalancer"));
  }, 90_000);

  test("counts a throttle the kit waited out and an error the cloud's fault API injected", async () => {
    const before = await scrape();
    await cloudApi(cloud.url, cluster.cloudToken).setFaults({
      failNext: [
        { method: "PUT", pathPrefix: "/v1/load-balancers", status: 429, count: 1, retryAfterSeconds: 1 },
        { method: "PUT", pathPrefix: "/v1/load-balancers", status: 400, count: 1 },
      ],
    });
    await client.create(Resources.services, lbService("api"));
    const after = await untilAbove(errors("putLoadBalancer"), sample(before, errors("putLoadBalancer")));
    expect(sample(after, throttled("putLoadBalancer"))).toBeGreaterThan(sample(before, throttled("putLoadBalancer")));
    // The service controller tries again after the error, and the cloud no longer fails.
    await poll(() => cloud.state.listLoadBalancers().some((lb) => lb.serviceName === "api"), { timeoutMs: 60_000 });
  }, 90_000);
});
