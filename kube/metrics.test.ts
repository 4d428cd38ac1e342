import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createKubeClient } from "./client.ts";
import { Resources } from "./client-types.ts";
import { hostLabel, kubeClientMetrics } from "./metrics.ts";
import { FakeApiServer } from "./testdata/fake-apiserver.ts";
import { apiFailure, fakeClock, plainTransport } from "./testdata/helpers.ts";

/** prom-client names a histogram's series (`_count`, `_sum`) on the value, outside its declared type. */
const nameOf = (v: object): string => (v as { metricName?: string }).metricName ?? "";

let server: FakeApiServer;
beforeAll(async () => {
  server = await FakeApiServer.start();
});
afterAll(() => server.close());

/** A client over the fake server recording into a fresh registry; its rate limiter on a clock the test steps. */
function instrumented(qps = 0, burst = 0) {
  const registry = new Registry();
  const clock = fakeClock();
  const client = createKubeClient(plainTransport(server.url), {
    qps,
    burst,
    userAgent: "test",
    now: clock.now,
    sleep: clock.sleep,
    metrics: kubeClientMetrics(registry),
  });
  const series = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return { registry, client, series };
}

describe("rest_client metrics", () => {
  const host = () => hostLabel(server.url);

  test("counts every answer by code, method and host, and times it by verb and host", async () => {
    const { client, series } = instrumented();
    await client.list(Resources.nodes);
    await client.list(Resources.nodes);
    await apiFailure(client.get(Resources.nodes, "absent"));
    const counts = await series("rest_client_requests_total");
    expect(counts.map((v) => [v.labels, v.value])).toEqual([
      [{ code: "200", method: "GET", host: host() }, 2],
      [{ code: "404", method: "GET", host: host() }, 1],
    ]);
    const durations = await series("rest_client_request_duration_seconds");
    expect(durations.find((v) => nameOf(v).endsWith("_count"))).toMatchObject({
      labels: { verb: "GET", host: host() },
      value: 3,
    });
  });

  test("a request that gets no answer counts with code <error>", async () => {
    const registry = new Registry();
    const client = createKubeClient(plainTransport("http://127.0.0.1:1"), {
      qps: 0,
      burst: 0,
      userAgent: "test",
      metrics: kubeClientMetrics(registry),
    });
    await apiFailure(client.get(Resources.nodes, "n1"));
    const counts = (await registry.getSingleMetric("rest_client_requests_total")?.get())?.values ?? [];
    expect(counts.map((v) => [v.labels, v.value])).toEqual([
      [{ code: "<error>", method: "GET", host: "127.0.0.1:1" }, 1],
    ]);
  });

  test("the client-side rate limiter's wait is observed, throttled requests in the upper buckets", async () => {
    const { client, series } = instrumented(1, 1);
    await client.list(Resources.nodes); // the burst's one token
    await client.list(Resources.nodes); // waits a second for the next
    const waits = await series("rest_client_rate_limiter_duration_seconds");
    const sum = waits.find((v) => nameOf(v).endsWith("_sum"));
    const count = waits.find((v) => nameOf(v).endsWith("_count"));
    expect(count).toMatchObject({ labels: { verb: "GET", host: host() }, value: 2 });
    expect(sum?.value).toBeCloseTo(1, 3);
  });

  test("one set of metrics per registry, however many clients share it", () => {
    const registry = new Registry();
    expect(kubeClientMetrics(registry)).toBe(kubeClientMetrics(registry));
    expect(registry.getMetricsAsArray().map((m) => m.name)).toEqual([
      "rest_client_requests_total",
      "rest_client_request_duration_seconds",
      "rest_client_rate_limiter_duration_seconds",
    ]);
  });

  test.each([
    ["https://10.0.0.1:6443", "10.0.0.1:6443"],
    ["https://[fd00::1]:6443/prefix", "[fd00::1]:6443"],
    ["http://localhost", "localhost"],
  ])("labels %s as host %s", (url, label) => {
    expect(hostLabel(url)).toBe(label);
  });
});
