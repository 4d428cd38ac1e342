import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseV8Snapshot } from "../scripts/bench/heap-snapshot.ts";
import { type HeapStatsBody, parseProcKb } from "./heap-debug.ts";
import { createMetricsRegistry } from "./metrics.ts";
import { type Serving, startServing } from "./serving.ts";
import { EmulatorKubeClient, type RecordedRequest } from "./testing/emulator-client.ts";
import { captureLogger } from "./testing/logger.ts";

const USERS: Record<string, string> = {
  "ops-token": "ops",
  "reader-token": "metrics-reader",
  "auditor-token": "auditor",
};

/** `ops` may do anything under /debug/heap/, `metrics-reader` only get /metrics; nobody is in system:masters. */
const reviewingClient = () => {
  const client = new EmulatorKubeClient();
  client.react({ method: "create", resource: "tokenreviews" }, (r: RecordedRequest) => {
    const body = r.body as { spec: { token: string } };
    const user = USERS[body.spec.token];
    return { ...body, status: user ? { authenticated: true, user: { username: user, groups: [] } } : {} };
  });
  client.react({ method: "create", resource: "subjectaccessreviews" }, (r: RecordedRequest) => {
    const body = r.body as { spec: { user: string; nonResourceAttributes: { path: string; verb: string } } };
    const { user, nonResourceAttributes: a } = body.spec;
    const allowed =
      (user === "ops" && a.path.startsWith("/debug/heap/")) ||
      (user === "metrics-reader" && a.path === "/metrics" && a.verb === "get");
    return { ...body, status: { allowed } };
  });
  return client;
};

const get = (serving: Serving, path: string, token?: string, method = "GET") =>
  fetch(`${serving.url}${path}`, {
    method,
    tls: { rejectUnauthorized: false },
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe("the heap's debug paths with --profiling and --heap-snapshot", () => {
  const client = reviewingClient();
  let serving: Serving;
  beforeAll(async () => {
    serving = await startServing({
      bindAddress: "127.0.0.1",
      port: 0,
      client,
      profiling: true,
      heapSnapshot: true,
      checks: [],
      registry: createMetricsRegistry({ defaultMetrics: false }),
      logger: captureLogger().logger,
      now: Date.now,
    });
  });
  afterAll(() => serving.stop());

  test.each([
    ["/debug/heap/stats", undefined, 401],
    ["/debug/heap/stats", "made-up-token", 401],
    ["/debug/heap/stats", "reader-token", 403],
    ["/debug/heap/snapshot", undefined, 401],
    ["/debug/heap/snapshot", "reader-token", 403],
    ["/debug/heap/stats", "ops-token", 200],
    ["/debug/heap/snapshot?format=yaml", "ops-token", 400],
    ["/debug/heap/other", "ops-token", 404],
  ])("%s with token %s answers %i", async (path, token, status) => {
    expect((await get(serving, path, token)).status).toBe(status);
  });

  test("the access review asks for get on the path itself", async () => {
    client.clearRequests();
    await get(serving, "/debug/heap/stats?gc=1", "auditor-token");
    const review = client.requestsMatching({ resource: "subjectaccessreviews" })[0]?.body as {
      spec: { nonResourceAttributes: unknown };
    };
    expect(review.spec.nonResourceAttributes).toEqual({ path: "/debug/heap/stats", verb: "get" });
  });

  test("a method other than GET answers 405 to a user allowed to use it", async () => {
    expect((await get(serving, "/debug/heap/stats", "ops-token", "POST")).status).toBe(405);
  });

  test("stats: the JS heap, the allocator, process.memoryUsage and the kernel's resident set", async () => {
    const response = await get(serving, "/debug/heap/stats?gc=1", "ops-token");
    expect(response.headers.get("content-type")).toBe("application/json");
    const body = (await response.json()) as HeapStatsBody;
    expect(body.collected).toBeTrue();
    expect(body.jsc.heapCapacity).toBeGreaterThanOrEqual(body.jsc.heapSize);
    expect(body.jsc.heapSize).toBeGreaterThan(body.jsc.extraMemorySize);
    expect(body.jsc.objectTypeCounts.Object).toBeGreaterThan(0);
    expect(body.allocator.currentCommit).toBeGreaterThan(0);
    expect(body.process.rss).toBeGreaterThan(body.jsc.heapSize);
    if (process.platform === "linux") {
      const { VmRSS = 0, RssAnon = 0, RssFile = 0, RssShmem = 0 } = body.proc;
      expect(RssAnon + RssFile + RssShmem).toBe(VmRSS);
      expect(body.proc.Pss).toBeGreaterThan(0);
    }
  });

  test.each([
    ["v8, the default, which Chrome DevTools and the analyser read", "", ".heapsnapshot"],
    ["jsc, for Safari's Web Inspector", "?format=jsc", ".json"],
  ])("snapshot: %s", async (_, query, extension) => {
    const response = await get(serving, `/debug/heap/snapshot${query}`, "ops-token");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toEndWith(`${extension}"`);
    const json = (await response.json()) as Record<string, unknown>;
    if (query === "") {
      const summary = parseV8Snapshot(json);
      expect(summary.nodeCount).toBeGreaterThan(1000);
      expect(summary.totalSelfSize).toBeGreaterThan(0);
    } else {
      expect(json).toMatchObject({ type: "Inspector" });
      expect((json.nodeClassNames as string[]).length).toBeGreaterThan(10);
    }
  });
});

describe("which heap paths each flag serves", () => {
  const cases = [
    {
      name: "the defaults (profiling alone): stats, never the snapshot",
      profiling: true,
      heapSnapshot: false,
      stats: 200,
      snapshot: 404,
    },
    {
      name: "--heap-snapshot alone: the snapshot only",
      profiling: false,
      heapSnapshot: true,
      stats: 404,
      snapshot: 200,
    },
    { name: "--profiling=false: neither", profiling: false, heapSnapshot: false, stats: 404, snapshot: 404 },
  ];
  test.each(cases)("$name", async (c) => {
    const serving = await startServing({
      bindAddress: "127.0.0.1",
      port: 0,
      client: reviewingClient(),
      profiling: c.profiling,
      heapSnapshot: c.heapSnapshot,
      checks: [],
      registry: createMetricsRegistry({ defaultMetrics: false }),
      logger: captureLogger().logger,
      now: Date.now,
    });
    try {
      expect((await get(serving, "/debug/heap/stats", "ops-token")).status).toBe(c.stats);
      expect((await get(serving, "/debug/heap/snapshot?format=yaml", "ops-token")).status).toBe(
        c.snapshot === 200 ? 400 : 404,
      );
    } finally {
      await serving.stop();
    }
  });
});

describe("reading /proc memory lines", () => {
  test.each([
    [
      "status lines, in bytes",
      "VmRSS:\t    1924 kB\nRssAnon:\t     144 kB\nName:\tbun\n",
      { VmRSS: 1970176, RssAnon: 147456 },
    ],
    ["names not asked for are left out", "Pss:  10 kB\nSwap:  5 kB\n", { Pss: 10240 }],
    ["an empty file gives nothing", "", {}],
  ])("%s", (_, text, want) => {
    expect(parseProcKb(text, ["VmRSS", "RssAnon", "Pss"])).toEqual(want);
  });
});
