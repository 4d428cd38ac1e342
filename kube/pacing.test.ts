import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createKubeClient } from "./client.ts";
import { Resources } from "./client-types.ts";
import { INITIAL_WINDOW } from "./flow-window.ts";
import { APF_REJECTION_TRIES } from "./http.ts";
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
  const modes = [
    { mode: "apf", explicit: false, first: answer(200, APF) },
    { mode: "explicit", explicit: true, first: answer(200, APF) },
    { mode: "client-side", explicit: false, first: answer(200) },
  ] as const;

  for (const m of modes) {
    test(`${m.mode}: a 429 narrows only the rejected client; the others go on at once`, async () => {
      // qps high enough that the bucket itself never makes anyone wait here.
      const { clock, pacing } = setup({ explicit: m.explicit, qps: 1e6, burst: 1e6 });
      await runRequests(pacing, 1, m.first, clock.sleeps);
      const nodes = pacing.pacer();
      const lease = pacing.pacer();
      const events = pacing.pacer();
      // Down to one request at a time, then rejected there too: the node client waits its Retry-After.
      for (let i = 0; i < 3; i++) (await nodes.admit()).done(answer(429, { ...APF, "Retry-After": "30" }));
      const at = clock.now();
      (await lease.admit()).done(answer(200, APF));
      (await events.admit()).done(answer(201, APF));
      const held = await Promise.all(Array.from({ length: INITIAL_WINDOW }, () => lease.admit()));
      for (const h of held) h.done(answer(200, APF));
      expect(clock.now()).toBe(at);
      (await nodes.admit()).done(answer(200, APF));
      expect(clock.now() - at).toBe(30_000);
    });
  }

  const pauses: ReadonlyArray<{ name: string; explicit: boolean; retryAfter?: string; pauseMs: number }> = [
    { name: "Retry-After: 3 pauses the client 3 s (APF)", explicit: false, retryAfter: "3", pauseMs: 3000 },
    { name: "no Retry-After pauses 1 s (APF's own rejection)", explicit: false, pauseMs: 1000 },
    { name: "Retry-After: 2 pauses 2 s with explicit flags too", explicit: true, retryAfter: "2", pauseMs: 2000 },
    { name: "an absurd Retry-After is capped at 60 s", explicit: false, retryAfter: "86400", pauseMs: 60_000 },
  ];
  for (const c of pauses) {
    test(`sequential 429s shrink the window to one, then a 429 there: ${c.name}`, async () => {
      const { clock, pacing } = setup({ explicit: c.explicit, qps: 1e6, burst: 1e6, maxInFlight: 32 });
      await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
      const headers = { ...APF, ...(c.retryAfter && { "Retry-After": c.retryAfter }) };
      const pacer = pacing.pacer();
      const at = clock.now();
      // 4 → 2 → 1: no wait while the window narrows.
      for (let i = 0; i < 2; i++) (await pacer.admit()).done(answer(429, headers));
      expect(clock.now()).toBe(at);
      // At one request, a 429 means even one is too many: this client waits, once.
      (await pacer.admit()).done(answer(429, headers));
      (await pacer.admit()).done(answer(200, APF));
      expect(clock.now() - at).toBe(c.pauseMs);
      const next = clock.now();
      (await pacer.admit()).done(answer(200, APF));
      expect(clock.now()).toBe(next);
    });
  }

  test("successes grow a narrowed window back, request by request, up to its maximum", async () => {
    const { clock, pacing } = setup({ maxInFlight: 8 });
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    const pacer = pacing.pacer();
    for (let i = 0; i < 3; i++) (await pacer.admit()).done(answer(429, APF)); // 8 → 4 → 2 → 1
    const openAtOnce = async (): Promise<number> => {
      const held: Array<{ done(a?: Answer): void }> = [];
      for (;;) {
        const next = pacer.admit();
        const got = await Promise.race([next, Bun.sleep(0).then(() => undefined)]);
        if (!got) {
          for (const h of held) h.done(answer(200, APF));
          (await next).done(answer(200, APF));
          return held.length;
        }
        held.push(got);
      }
    };
    // Each round keeps the window busy; its successes add up to one request a round.
    const rounds: number[] = [];
    while (rounds.length < 40 && rounds.at(-1) !== 8) rounds.push(await openAtOnce());
    expect(rounds[0]).toBe(1);
    expect(rounds.at(-1)).toBe(8);
    expect(rounds.length).toBeLessThanOrEqual(24);
    expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
  });

  test("an abort during the client's pause gives its slot back", async () => {
    const { clock, pacing } = setup({ maxInFlight: 1, sleep: async (_ms, signal) => signal?.throwIfAborted() });
    await runRequests(pacing, 1, answer(200, APF), clock.sleeps);
    const pacer = pacing.pacer();
    (await pacer.admit()).done(answer(429, { ...APF, "Retry-After": "10" }));
    const ac = new AbortController();
    ac.abort(new Error("stopping"));
    await expect(pacer.admit(ac.signal)).rejects.toThrow("stopping");
    clock.advance(10_000);
    (await pacer.admit()).done(answer(200, APF));
  });

  test("at most maxInFlight requests of one client are out at once", async () => {
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
  /** Answers still to throttle when `throttle` is set; Infinity: all. */
  let throttleLeft = Number.POSITIVE_INFINITY;
  let hits = 0;
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        hits++;
        const headers: Record<string, string> = { "content-type": "application/json", ...(apf ? APF : {}) };
        if (throttle && throttleLeft-- > 0) {
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

  test("APF's rejection is sent again within the narrowed window; the tenth reaches the caller", async () => {
    apf = true;
    throttle = true;
    throttleLeft = Number.POSITIVE_INFINITY;
    hits = 0;
    const { clock, pacing } = setup({ maxInFlight: 1 });
    const client = createKubeClient(transport(), { qps: 20, burst: 30, userAgent: "pacing-test", pacing });
    const err = await apiFailure(client.list(Resources.nodes));
    expect(hits).toBe(APF_REJECTION_TRIES);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(4000);
    // Sent alone each time, so each try but the first waited the Retry-After, and the next request waits it too.
    expect(clock.sleeps.filter((ms) => ms === 4000)).toHaveLength(APF_REJECTION_TRIES - 1);
    throttle = false;
    const at = clock.now();
    await client.list(Resources.nodes);
    expect(clock.now() - at).toBe(4000);
  });

  test("a request APF rejected twice succeeds on its third try, unseen by the caller", async () => {
    apf = true;
    throttle = true;
    throttleLeft = 2;
    hits = 0;
    const { pacing } = setup();
    const client = createKubeClient(transport(), { qps: 20, burst: 30, userAgent: "pacing-test", pacing });
    expect((await client.list(Resources.nodes)).resourceVersion).toBe("1");
    expect(hits).toBe(3);
  });

  test("a client without the manager's pacing (a bare token bucket) never sends a rejected request again", async () => {
    apf = true;
    throttle = true;
    throttleLeft = Number.POSITIVE_INFINITY;
    hits = 0;
    const client = createKubeClient(transport(), { qps: 0, burst: 0, userAgent: "pacing-test" });
    expect((await apiFailure(client.list(Resources.nodes))).status).toBe(429);
    expect(hits).toBe(1);
  });

  test("a 429 without APF's headers (a throttling proxy) reaches the caller at once", async () => {
    apf = false;
    throttle = true;
    throttleLeft = Number.POSITIVE_INFINITY;
    hits = 0;
    const { pacing } = setup();
    const client = createKubeClient(transport(), { qps: 20, burst: 30, userAgent: "pacing-test", pacing });
    expect((await apiFailure(client.list(Resources.nodes))).status).toBe(429);
    expect(hits).toBe(1);
  });
});
