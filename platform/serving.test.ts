import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Counter, Gauge, Histogram } from "prom-client";
import { waitFor } from "../kube/testdata/fake-clock.ts";
import { namedCheck } from "./healthz.ts";
import { alpha, beta, createMetricsRegistry } from "./metrics.ts";
import { generateSelfSignedCert, ServingCertError } from "./self-signed.ts";
import { type Serving, startServing } from "./serving.ts";
import { EmulatorKubeClient, type RecordedRequest } from "./testing/emulator-client.ts";
import { captureLogger } from "./testing/logger.ts";

const USERS: Record<string, { username: string; groups: string[] }> = {
  "admin-token": { username: "admin", groups: ["system:masters"] },
  "alice-token": { username: "alice", groups: ["system:authenticated"] },
  "bob-token": { username: "bob", groups: ["system:authenticated"] },
};

const reviewingClient = () => {
  const client = new EmulatorKubeClient();
  client.react({ method: "create", resource: "tokenreviews" }, (r: RecordedRequest) => {
    const body = r.body as { spec: { token: string } };
    const user = USERS[body.spec.token];
    return { ...body, status: user ? { authenticated: true, user } : { authenticated: false } };
  });
  client.react({ method: "create", resource: "subjectaccessreviews" }, (r: RecordedRequest) => {
    const body = r.body as { spec: { user: string; nonResourceAttributes: { path: string; verb: string } } };
    const { user, nonResourceAttributes: attrs } = body.spec;
    const allowed = user === "alice" && attrs.path === "/metrics" && attrs.verb === "get";
    return { ...body, status: allowed ? { allowed: true } : { allowed: false, reason: "no RBAC policy matched" } };
  });
  return client;
};

const get = (serving: Serving, path: string, token?: string) =>
  fetch(`${serving.url}${path}`, {
    tls: { rejectUnauthorized: false },
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe("serving with delegated auth", () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  let leaderHealthy = true;
  const client = reviewingClient();
  const registry = createMetricsRegistry();
  let serving: Serving;

  beforeAll(async () => {
    const registers = [registry];
    new Gauge({ name: "test_running", help: beta("A gauge the test sets"), labelNames: ["name"], registers }).set(
      { name: "cloud-node" },
      1,
    );
    new Histogram({ name: "test_delay_seconds", help: alpha("A histogram"), buckets: [1, 16384], registers });
    new Counter({ name: "test_total", help: alpha("A counter"), registers });
    serving = await startServing({
      bindAddress: "127.0.0.1",
      port: 0,
      client,
      checks: [namedCheck("leaderElection", () => leaderHealthy, "failed election to renew leadership")],
      registry,
      logger: captureLogger().logger,
      now: () => now,
    });
  });
  afterAll(() => serving.stop());

  test.each([
    ["/healthz", undefined, 200],
    ["/readyz", undefined, 200],
    ["/livez", "garbage", 200],
    ["/metrics", undefined, 401],
    ["/metrics", "garbage", 401],
    ["/metrics", "bob-token", 403],
    ["/metrics", "alice-token", 200],
    ["/metrics", "admin-token", 200],
    ["/healthz/ping", undefined, 401],
    ["/healthz/ping", "admin-token", 200],
    ["/configz", "alice-token", 403],
    ["/nothing-here", "admin-token", 404],
    // --profiling=false: the heap's paths are not served, as upstream's /debug/pprof/ (heap-debug.test.ts: on).
    ["/debug/heap/stats", "admin-token", 404],
    ["/debug/heap/snapshot", "admin-token", 404],
  ])("%s with token %s answers %i", async (path, token, status) => {
    const response = await get(serving, path, token);
    expect(response.status).toBe(status);
  });

  test("a denial names the user, verb and path", async () => {
    const body = (await (await get(serving, "/metrics", "bob-token")).json()) as { message: string; code: number };
    expect(body).toMatchObject({ code: 403 });
    expect(body.message).toBe('forbidden: User "bob" cannot get path "/metrics": no RBAC policy matched');
  });

  test("metrics are the Prometheus text of the registry, with its own and process metrics", async () => {
    const response = await get(serving, "/metrics", "alice-token");
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await response.text();
    expect(text).toContain("# HELP test_running [BETA] A gauge the test sets");
    expect(text).toContain('test_running{name="cloud-node"} 1');
    expect(text).toContain("# TYPE test_delay_seconds histogram");
    expect(text).toContain('test_delay_seconds_bucket{le="16384"} 0');
    expect(text).toContain("test_total 0");
    expect(text).toContain("process_cpu_user_seconds_total");
  });

  test("token and access reviews are cached until the TTL passes", async () => {
    client.clearRequests();
    await get(serving, "/metrics", "alice-token");
    await get(serving, "/metrics", "alice-token");
    now += 10_001;
    await get(serving, "/metrics", "alice-token");
    const reviews = client.requestsMatching({ method: "create" }).map((r) => r.resource);
    expect(reviews).toEqual(["tokenreviews", "subjectaccessreviews"]);
    await get(serving, "/metrics", "alice-token");
    expect(client.requestsMatching({ method: "create" })).toHaveLength(2);
    now += 10_001;
    await get(serving, "/metrics", "alice-token");
    expect(client.requestsMatching({ method: "create" })).toHaveLength(4);
  });

  test("system:masters skips the access review", async () => {
    client.clearRequests();
    now += 60_000;
    expect((await get(serving, "/metrics", "admin-token")).status).toBe(200);
    expect(client.requestsMatching({ resource: "subjectaccessreviews" })).toHaveLength(0);
  });

  test("healthz verbose lists every check and reports a failing one with 500", async () => {
    const ok = await get(serving, "/healthz?verbose");
    expect(await ok.text()).toBe("[+]ping ok\n[+]leaderElection ok\nhealthz check passed\n");
    leaderHealthy = false;
    try {
      const failing = await get(serving, "/readyz?verbose");
      expect(failing.status).toBe(500);
      expect(await failing.text()).toBe("[+]ping ok\n[-]leaderElection failed: reason withheld\nreadyz check failed\n");
      const excluded = await get(serving, "/healthz?exclude=leaderElection");
      expect(excluded.status).toBe(200);
      const single = await get(serving, "/healthz/leaderElection", "admin-token");
      expect(single.status).toBe(500);
      expect(await single.text()).toBe("internal server error: failed election to renew leadership\n");
    } finally {
      leaderHealthy = true;
    }
  });
});

describe("serving without a client", () => {
  test.each([
    [false, 403],
    [true, 200],
  ])("allowAllWithoutClient=%p answers /metrics with %i", async (allowAll, status) => {
    const serving = await startServing({
      bindAddress: "127.0.0.1",
      port: 0,
      allowAllWithoutClient: allowAll,
      checks: [],
      registry: createMetricsRegistry({ defaultMetrics: false }),
      logger: captureLogger().logger,
      now: Date.now,
    });
    try {
      expect((await get(serving, "/metrics")).status).toBe(status);
      expect((await get(serving, "/healthz")).status).toBe(200);
    } finally {
      await serving.stop();
    }
  });
});

describe("serving certificates", () => {
  test("the generated certificate is for localhost and 127.0.0.1 and verifies against itself", async () => {
    const pair = await generateSelfSignedCert({ now: Date.now });
    const x509 = new X509Certificate(pair.cert);
    expect(x509.subjectAltName).toContain("DNS:localhost");
    expect(x509.subjectAltName).toContain("IP Address:127.0.0.1");
    const dir = await mkdtemp(join(tmpdir(), "serving-test-"));
    try {
      await writeFile(join(dir, "tls.crt"), pair.cert);
      await writeFile(join(dir, "tls.key"), pair.key);
      const serving = await startServing({
        bindAddress: "127.0.0.1",
        port: 0,
        certFile: join(dir, "tls.crt"),
        keyFile: join(dir, "tls.key"),
        checks: [],
        registry: createMetricsRegistry({ defaultMetrics: false }),
        logger: captureLogger().logger,
        now: Date.now,
      });
      try {
        expect(serving.selfSigned).toBeFalse();
        const response = await fetch(`https://localhost:${serving.port}/healthz`, { tls: { ca: pair.cert } });
        expect(await response.text()).toBe("ok");
      } finally {
        await serving.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("serves a new certificate as soon as its files change, and keeps the old one while the new pair is broken", async () => {
    const [first, second] = [
      await generateSelfSignedCert({ now: Date.now }),
      await generateSelfSignedCert({ now: Date.now }),
    ];
    const dir = await mkdtemp(join(tmpdir(), "serving-reload-"));
    const { logger, logs } = captureLogger();
    const files = { cert: join(dir, "tls.crt"), key: join(dir, "tls.key") };
    await writeFile(files.cert, first.cert);
    await writeFile(files.key, first.key);
    const serving = await startServing({
      bindAddress: "127.0.0.1",
      port: 0,
      certFile: files.cert,
      keyFile: files.key,
      checks: [],
      registry: createMetricsRegistry({ defaultMetrics: false }),
      logger,
      now: Date.now,
    });
    const trusts = (ca: string) =>
      fetch(`https://localhost:${serving.port}/healthz`, { tls: { ca }, keepalive: false }).then(
        (r) => r.ok,
        () => false,
      );
    try {
      expect(await trusts(first.cert)).toBeTrue();
      await writeFile(files.cert, second.cert); // half a rotation: the key does not match yet
      await waitFor(() => logs.some((l) => l.message.includes("the new one does not load")));
      expect(await trusts(first.cert)).toBeTrue();
      await writeFile(files.key, second.key);
      await waitFor(() => trusts(second.cert), { message: "the new certificate to be served" });
      expect(await trusts(first.cert)).toBeFalse();
    } finally {
      await serving.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a certificate without its key is an error", async () => {
    const start = startServing({
      port: 0,
      certFile: "/nonexistent.crt",
      checks: [],
      registry: createMetricsRegistry({ defaultMetrics: false }),
      logger: captureLogger().logger,
      now: Date.now,
    });
    expect(await start.catch((e: unknown) => e)).toBeInstanceOf(ServingCertError);
  });
});
