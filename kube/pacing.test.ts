import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createKubeClient } from "./client.ts";
import { Resources } from "./client-types.ts";
import {
  type Answer,
  createPacing,
  DEFAULT_BURST,
  DEFAULT_QPS,
  type Pacing,
  type PacingMode,
  type PacingOptions,
} from "./pacing.ts";
import { apiFailure, fakeClock } from "./testdata/helpers.ts";
import type { Transport } from "./transport.ts";

const APF = {
  "X-Kubernetes-PF-FlowSchema-UID": "8e1b7c3f-fs",
  "X-Kubernetes-PF-PriorityLevel-UID": "2f6d0a1e-pl",
};
const answer = (status: number, headers: Record<string, string> = {}, longRunning = false): Answer => ({
  status,
  headers: new Headers(headers),
  longRunning,
});

function setup(over: Partial<PacingOptions> = {}) {
  const clock = fakeClock();
  const logs: string[] = [];
  const registry = new Registry();
  const pacing = createPacing({
    qps: DEFAULT_QPS,
    burst: DEFAULT_BURST,
    explicit: false,
    now: clock.now,
    sleep: clock.sleep,
    log: (m) => void logs.push(m),
    registry,
    ...over,
  });
  return { clock, logs, registry, pacing };
}

/** Admits `n` requests one after another on a fresh pacer, each answered with `a`; the ms slept waiting. */
async function runRequests(pacing: Pacing, n: number, a: Answer | undefined, sleeps: number[]): Promise<number> {
  const pacer = pacing.pacer();
  const before = sleeps.length;
  for (let i = 0; i < n; i++) (await pacer.admit()).done(a);
  return sleeps.slice(before).reduce((x, y) => x + y, 0);
}

async function gaugeOf(registry: Registry): Promise<Record<string, number>> {
  const m = await registry.getSingleMetric("cloud_controller_manager_client_pacing")?.get();
  return Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels.mode), v.value]));
}

describe("the pacing decision", () => {
  const cases: ReadonlyArray<{
    name: string;
    explicit: boolean;
    headers: Record<string, string>;
    mode: PacingMode;
    limited: boolean;
    log: RegExp;
  }> = [
    {
      name: "flags not set, APF headers seen: the token bucket is lifted",
      explicit: false,
      headers: APF,
      mode: "apf",
      limited: false,
      log: /API server's flow control \(APF headers seen, --kube-api-qps\/--kube-api-burst not set\)/,
    },
    {
      name: "flags not set, no APF headers: upstream's defaults hold",
      explicit: false,
      headers: {},
      mode: "client-side",
      limited: true,
      log: /upstream's defaults --kube-api-qps=20 --kube-api-burst=30 \(the API server answered without APF headers\)/,
    },
    {
      name: "flags set, APF headers seen: the flags win",
      explicit: true,
      headers: APF,
      mode: "explicit",
      limited: true,
      log: /--kube-api-qps=20 --kube-api-burst=30, set explicitly/,
    },
    {
      name: "flags set, no APF headers: the flags hold",
      explicit: true,
      headers: {},
      mode: "explicit",
      limited: true,
      log: /set explicitly/,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { clock, logs, registry, pacing } = setup({ explicit: c.explicit });
      // The first answer decides; 100 more requests then show whether the bucket (20/s after 30) still holds.
      await runRequests(pacing, 1, answer(200, c.headers), clock.sleeps);
      expect(pacing.mode).toBe(c.mode);
      const waited = await runRequests(pacing, 100, answer(200, c.headers), clock.sleeps);
      if (c.limited) expect(waited).toBeGreaterThanOrEqual(((100 - DEFAULT_BURST) / DEFAULT_QPS) * 1000 - 1);
      else expect(waited).toBe(0);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(c.log);
      const gauge = await gaugeOf(registry);
      expect(gauge).toEqual({ explicit: 0, "client-side": 0, apf: 0, [c.mode]: 1 });
    });
  }

  test("before any answer the upstream defaults hold and nothing is logged", async () => {
    const { clock, logs, registry, pacing } = setup();
    const waited = await runRequests(pacing, 50, undefined, clock.sleeps);
    expect(pacing.mode).toBe("client-side");
    expect(waited).toBeGreaterThan(0);
    expect(logs).toEqual([]);
    expect(await gaugeOf(registry)).toEqual({ explicit: 0, "client-side": 1, apf: 0 });
  });

  test("a watch, an error or an unauthenticated answer without headers decides nothing", async () => {
    const { clock, logs, pacing } = setup();
    await runRequests(pacing, 1, answer(200, {}, true), clock.sleeps);
    await runRequests(pacing, 1, answer(401), clock.sleeps);
    await runRequests(pacing, 1, answer(500), clock.sleeps);
    expect(logs).toEqual([]);
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    expect(pacing.mode).toBe("apf");
    expect(logs).toHaveLength(1);
  });

  test("APF seen after client-side was decided switches to APF, logged once more; never back", async () => {
    const { clock, logs, pacing } = setup();
    await runRequests(pacing, 1, answer(200), clock.sleeps);
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    await runRequests(pacing, 5, answer(200), clock.sleeps);
    expect(pacing.mode).toBe("apf");
    expect(logs.map((l) => (l.includes("APF headers seen") ? "apf" : "client-side"))).toEqual(["client-side", "apf"]);
  });

  test("the mode is shared by every client of the pacing", async () => {
    const { clock, pacing } = setup();
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    expect(await runRequests(pacing, 100, answer(200, APF), clock.sleeps)).toBe(0);
  });
});

describe("the server's answers pace us", () => {
  const cases: ReadonlyArray<{ name: string; explicit: boolean; retryAfter?: string; pauseMs: number }> = [
    { name: "429 with Retry-After: 3 pauses every client 3 s (APF)", explicit: false, retryAfter: "3", pauseMs: 3000 },
    { name: "429 without Retry-After pauses 1 s (APF's own rejection)", explicit: false, pauseMs: 1000 },
    {
      name: "429 with Retry-After: 2 pauses 2 s with explicit flags too",
      explicit: true,
      retryAfter: "2",
      pauseMs: 2000,
    },
    { name: "an absurd Retry-After is capped at 60 s", explicit: false, retryAfter: "86400", pauseMs: 60_000 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      // qps high enough that the bucket itself never makes anyone wait here.
      const { clock, pacing } = setup({ explicit: c.explicit, qps: c.explicit ? 1e6 : DEFAULT_QPS });
      const headers = { ...APF, ...(c.retryAfter && { "Retry-After": c.retryAfter }) };
      await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
      await runRequests(pacing, 1, answer(429, headers), clock.sleeps);
      const other = pacing.pacer();
      const at = clock.now();
      (await other.admit()).done(answer(200, APF));
      expect(clock.now() - at).toBe(c.pauseMs);
      // The pause is over: the next request goes at once.
      const next = clock.now();
      (await other.admit()).done(answer(200, APF));
      expect(clock.now()).toBe(next);
    });
  }

  test("a 429 to the event recorder's (background) client pauses only it; Node writes go on", async () => {
    const { clock, pacing } = setup();
    const events = pacing.pacer({ scope: "background" });
    const nodes = pacing.pacer();
    (await events.admit()).done(answer(429, { ...APF, "Retry-After": "5" }));
    const at = clock.now();
    (await nodes.admit()).done(answer(200, APF));
    expect(clock.now()).toBe(at);
    (await events.admit()).done(answer(201, APF));
    expect(clock.now() - at).toBe(5000);
  });

  test("leader election (isolated) never waits out the others' pause; its own 429 pauses only itself", async () => {
    const { clock, pacing } = setup();
    const lease = pacing.pacer({ scope: "isolated" });
    const nodes = pacing.pacer();
    (await nodes.admit()).done(answer(429, { ...APF, "Retry-After": "30" }));
    const at = clock.now();
    (await lease.admit()).done(answer(429, { ...APF, "Retry-After": "2" }));
    expect(clock.now()).toBe(at);
    (await lease.admit()).done(answer(200, APF));
    expect(clock.now() - at).toBe(2000);
    // The nodes' pause (30 s from `at`) still holds for them, and was not lengthened by the lease's 429.
    (await nodes.admit()).done(answer(200, APF));
    expect(clock.now() - at).toBe(30_000);
  });

  test("a 429 to a Node-writing client pauses the event recorder's too", async () => {
    const { clock, pacing } = setup();
    const events = pacing.pacer({ scope: "background" });
    const nodes = pacing.pacer();
    (await nodes.admit()).done(answer(429, { ...APF, "Retry-After": "2" }));
    const at = clock.now();
    (await events.admit()).done(answer(201, APF));
    expect(clock.now() - at).toBe(2000);
  });

  test("at most maxInFlight requests of one client are out at once under APF", async () => {
    const { clock, pacing } = setup({ maxInFlight: 3 });
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    const pacer = pacing.pacer();
    const first = await Promise.all([pacer.admit(), pacer.admit(), pacer.admit()]);
    let fourthIn = false;
    const fourth = pacer.admit().then((a) => {
      fourthIn = true;
      return a;
    });
    await Bun.sleep(0);
    expect(fourthIn).toBe(false);
    // Another client has its own bound.
    (await pacing.pacer().admit()).done(answer(200, APF));
    first[0]?.done(answer(200, APF));
    (await fourth).done(answer(200, APF));
    expect(fourthIn).toBe(true);
    for (const a of first.slice(1)) a.done(answer(200, APF));
  });

  test("a 429 halves the client's in-flight bound", async () => {
    const { clock, pacing } = setup({ maxInFlight: 4, sleep: async () => {} });
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    const pacer = pacing.pacer();
    (await pacer.admit()).done(answer(429, { ...APF, "Retry-After": "0" }));
    const held = [await pacer.admit(), await pacer.admit()];
    let third = false;
    const p = pacer.admit().then((a) => {
      third = true;
      return a;
    });
    await Bun.sleep(0);
    expect(third).toBe(false);
    held[0]?.done(answer(200, APF));
    (await p).done(answer(200, APF));
    held[1]?.done(answer(200, APF));
    expect(third).toBe(true);
  });

  test("an aborted wait for a slot gives up with the signal's reason and holds no slot", async () => {
    const { clock, pacing } = setup({ maxInFlight: 1 });
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    const pacer = pacing.pacer();
    const held = await pacer.admit();
    const ac = new AbortController();
    const waiting = pacer.admit(ac.signal);
    ac.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    held.done(answer(200, APF));
    (await pacer.admit()).done(answer(200, APF));
  });
});

describe("the client feeds its answers to the pacing", () => {
  let server: ReturnType<typeof Bun.serve>;
  let apf = true;
  let throttle = false;
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        const headers: Record<string, string> = { "content-type": "application/json", ...(apf ? APF : {}) };
        if (throttle) {
          headers["retry-after"] = "4";
          return new Response(
            JSON.stringify({ kind: "Status", status: "Failure", reason: "TooManyRequests", code: 429 }),
            {
              status: 429,
              headers,
            },
          );
        }
        return new Response(JSON.stringify({ kind: "NodeList", items: [], metadata: { resourceVersion: "1" } }), {
          headers,
        });
      },
    });
  });
  afterAll(() => server?.stop(true));
  const transport = (): Transport => ({
    server: `http://127.0.0.1:${server.port}`,
    source: "test",
    namespace: undefined,
    identity: "anonymous",
    settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
    unauthorized() {},
  });

  test.each([
    [true, "apf"],
    [false, "client-side"],
  ] as const)("APF headers %p ⇒ mode %s", async (withHeaders, mode) => {
    apf = withHeaders;
    throttle = false;
    const { pacing } = setup();
    const client = createKubeClient(transport(), { qps: 20, burst: 30, userAgent: "pacing-test", pacing });
    await client.list(Resources.nodes);
    expect(pacing.mode).toBe(mode);
  });

  test("a 429 reaches the caller with its Retry-After and pauses the next request", async () => {
    apf = true;
    throttle = true;
    const { clock, pacing } = setup();
    const client = createKubeClient(transport(), { qps: 20, burst: 30, userAgent: "pacing-test", pacing });
    const err = await apiFailure(client.list(Resources.nodes));
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(4000);
    throttle = false;
    const at = clock.now();
    await client.list(Resources.nodes);
    expect(clock.now() - at).toBe(4000);
  });
});
