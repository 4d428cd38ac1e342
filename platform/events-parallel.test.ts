import { afterAll, describe, expect, test } from "bun:test";
import { createKubeClient } from "../kube/client.ts";
import { KubeApiError } from "../kube/client-types.ts";
import type { Event } from "../kube/objects.ts";
import { settle, waitFor } from "../kube/testdata/fake-clock.ts";
import type { Transport } from "../kube/transport.ts";
import { createEventRecorder, DEFAULT_MAX_QUEUE, EVENT_WRITES_IN_FLIGHT, nodeReference } from "./events.ts";
import { createMetricsRegistry } from "./metrics.ts";
import { createTermFence } from "./term-fence.ts";
import type { EmulatorKubeClient, RecordedRequest } from "./testing/emulator-client.ts";
import { recorderBed } from "./testing/event-recorder.ts";
import { captureLogger } from "./testing/logger.ts";

/**
 * Events are written in parallel (a node's `Synced` event within seconds even when thousands of Nodes
 * initialise at once), one write at a time per event key so a repeat still PATCHes what its predecessor created.
 */

const setup = recorderBed;

const involved = (r: RecordedRequest): string => (r.body as Event | undefined)?.involvedObject?.name ?? "";

/**
 * Holds event creates (of the objects `held` accepts) at the fake server until `release()`, counting how many it
 * holds at once: the concurrency the server sees.
 */
const holdCreates = (client: EmulatorKubeClient, held: (name: string) => boolean = () => true) => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { inFlight: 0, max: 0, started: [] as string[], release: () => release() };
  client.react({ method: "create", resource: "events" }, async (r) => {
    const name = involved(r);
    if (!held(name)) return undefined;
    state.started.push(name);
    state.inFlight += 1;
    state.max = Math.max(state.max, state.inFlight);
    await gate;
    state.inFlight -= 1;
    return undefined;
  });
  return state;
};

const synced = (i: number) => [nodeReference(`n${i}`), "Normal", "Synced", "Node synced successfully"] as const;

describe("events about different objects are written in parallel, up to a bound", () => {
  const rows: { name: string; maxInFlight?: number; events: number; inFlight: number }[] = [
    { name: "one writer: one at a time", maxInFlight: 1, events: 5, inFlight: 1 },
    { name: "4 writers, 10 events: 4 at a time", maxInFlight: 4, events: 10, inFlight: 4 },
    { name: "4 writers, 3 events: all 3 at once", maxInFlight: 4, events: 3, inFlight: 3 },
    { name: "the default: EVENT_WRITES_IN_FLIGHT at a time", events: 100, inFlight: EVENT_WRITES_IN_FLIGHT },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const { client, recorder, events, dropped } = setup(
        row.maxInFlight === undefined ? {} : { maxInFlight: row.maxInFlight },
      );
      const server = holdCreates(client);
      for (let i = 0; i < row.events; i++) recorder.event(...synced(i));
      await settle();
      expect(server.inFlight).toBe(row.inFlight);
      server.release();
      await recorder.flush();
      expect(server.max).toBe(row.inFlight);
      expect(events()).toHaveLength(row.events);
      // Started in the order they were recorded.
      expect(server.started).toEqual(Array.from({ length: row.events }, (_, i) => `n${i}`));
      expect(await dropped("queue_full")).toBe(0);
    });
  }
});

describe("repeats of one event are written one after another, in order, while other events go on", () => {
  test("three repeats: one create held at the server, the others written meanwhile, then two patches", async () => {
    const { clock, client, recorder, events } = setup();
    const server = holdCreates(client, (name) => name === "n1");
    recorder.event(...synced(1));
    await clock.advance(1000);
    recorder.event(...synced(1));
    recorder.event(...synced(2));
    await clock.advance(1000);
    recorder.event(...synced(1));
    recorder.event(...synced(3));
    await settle();
    // n1's repeats wait for its create; n2 and n3 do not.
    expect(events().map((e) => e.involvedObject.name)).toEqual(["n2", "n3"]);
    expect(client.writes().filter((r) => r.name?.startsWith("n1.") || involved(r) === "n1")).toHaveLength(1);
    server.release();
    await recorder.flush();
    const n1 = client.writes().filter((r) => involved(r) === "n1" || r.name?.startsWith("n1."));
    expect(n1.map((r) => `${r.method}:${r.patchType ?? ""}`)).toEqual([
      "create:",
      "patch:strategic",
      "patch:strategic",
    ]);
    const written = events().find((e) => e.involvedObject.name === "n1");
    expect(written).toMatchObject({
      count: 3,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:02Z",
    });
    expect(events()).toHaveLength(3);
  });
});

describe("a throttled event holds only its own write", () => {
  const tooMany = (retryAfterMs: number) =>
    new KubeApiError("POST events: 429 TooManyRequests", { status: 429, reason: "TooManyRequests", retryAfterMs });
  const rows = [
    { name: "Retry-After 5 s once", retryAfterMs: 5000, times: 1, writtenAfterMs: 5000 },
    { name: "Retry-After 2 s three times", retryAfterMs: 2000, times: 3, writtenAfterMs: 6000 },
  ];
  for (const row of rows) {
    test(`${row.name}: the others are written at once, it after its waits`, async () => {
      const { clock, client, recorder, events } = setup();
      let refusals = 0;
      client.react({ method: "create", resource: "events" }, (r) => {
        if (involved(r) !== "n1" || refusals >= row.times) return undefined;
        refusals += 1;
        throw tooMany(row.retryAfterMs);
      });
      const start = clock.now();
      for (let i = 1; i <= 5; i++) recorder.event(...synced(i));
      await settle();
      expect(events().map((e) => e.involvedObject.name)).toEqual(["n2", "n3", "n4", "n5"]);
      // A repeat of the throttled event waits behind it, a new one does not.
      recorder.event(...synced(1));
      recorder.event(...synced(6));
      await settle();
      expect(events().map((e) => e.involvedObject.name)).toEqual(["n2", "n3", "n4", "n5", "n6"]);
      for (; clock.pending() > 0; await settle()) await clock.advanceToNext();
      await recorder.flush();
      expect(clock.now() - start).toBe(row.writtenAfterMs);
      expect(events().find((e) => e.involvedObject.name === "n1")?.count).toBe(2);
    });
  }
});

describe("the queue's bound: nothing is dropped below it, the excess is dropped and counted", () => {
  const rows: { name: string; maxInFlight?: number; maxQueue?: number; offered: number; dropped: number }[] = [
    { name: "2 writers, queue of 3, 5 offered", maxInFlight: 2, maxQueue: 3, offered: 5, dropped: 0 },
    { name: "2 writers, queue of 3, 9 offered", maxInFlight: 2, maxQueue: 3, offered: 9, dropped: 4 },
    {
      name: "the defaults, exactly full",
      offered: EVENT_WRITES_IN_FLIGHT + DEFAULT_MAX_QUEUE,
      dropped: 0,
    },
    {
      name: "the defaults, 7 over",
      offered: EVENT_WRITES_IN_FLIGHT + DEFAULT_MAX_QUEUE + 7,
      dropped: 7,
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const { client, recorder, events, dropped, logs } = setup({
        ...(row.maxInFlight !== undefined && { maxInFlight: row.maxInFlight }),
        ...(row.maxQueue !== undefined && { maxQueue: row.maxQueue }),
      });
      const server = holdCreates(client);
      // All offered before any write can start: the writes in flight are taken from the queue a tick later.
      for (let i = 0; i < row.offered; i++) {
        if (i === (row.maxInFlight ?? EVENT_WRITES_IN_FLIGHT)) await settle();
        recorder.event(...synced(i));
      }
      expect(await dropped("queue_full")).toBe(row.dropped);
      expect(logs.filter((l) => l.type === "warn")).toHaveLength(row.dropped > 0 ? 1 : 0);
      server.release();
      await recorder.flush();
      expect(events()).toHaveLength(row.offered - row.dropped);
    });
  }
});

describe("flush and stop wait for every writer", () => {
  for (const how of ["flush", "stop"] as const) {
    test(`${how} resolves only after the last write in flight and the last queued`, async () => {
      const { client, recorder, events } = setup({ maxInFlight: 3 });
      const server = holdCreates(client);
      for (let i = 0; i < 7; i++) recorder.event(...synced(i));
      let done = false;
      const waiting = recorder[how]().then(() => {
        done = true;
      });
      await settle();
      expect(server.inFlight).toBe(3);
      expect(done).toBe(false);
      server.release();
      await waiting;
      expect(events()).toHaveLength(7);
      if (how === "stop") {
        recorder.event(...synced(99));
        await recorder.flush();
        expect(events()).toHaveLength(7);
      }
    });
  }
});

describe("through the real client: the term fence refuses event writes after close, those in flight land", () => {
  /** A fake API server that holds every event POST until released, counting how many it holds at once. */
  let releaseAll: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    releaseAll = resolve;
  });
  const seen = { inFlight: 0, max: 0, answered: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as Event;
      seen.inFlight += 1;
      seen.max = Math.max(seen.max, seen.inFlight);
      await gate;
      seen.inFlight -= 1;
      seen.answered += 1;
      return Response.json(body, { status: 201 });
    },
  });
  afterAll(() => server.stop(true));
  const transport: Transport = {
    server: `http://127.0.0.1:${server.port}`,
    source: "test",
    namespace: undefined,
    identity: "test",
    settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
    unauthorized: () => {},
  };

  test("4 writes in flight at close: all four answered, the two recorded after are refused and counted", async () => {
    gate = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const fence = createTermFence({ over: () => undefined, sleep: (ms) => Bun.sleep(ms) });
    const client = createKubeClient(transport, { qps: 0, burst: 0, userAgent: "test/events", fence });
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const { logger, logs } = captureLogger();
    const recorder = createEventRecorder({
      client,
      component: "cloud-node-controller",
      logger,
      now: Date.now,
      registry,
    });
    for (let i = 0; i < 4; i++) recorder.event(...synced(i));
    await waitFor(() => seen.inFlight === 4, { message: "4 event POSTs held at the server" });
    fence.close("the manager is stopping");
    recorder.event(...synced(4));
    recorder.event(...synced(5));
    await waitFor(
      async () => (await registry.metrics()).includes('event_recorder_dropped_events_total{reason="write_failed"} 2'),
      {
        message: "two refused event writes counted",
      },
    );
    expect(fence.inFlight()).toHaveLength(4);
    releaseAll();
    await recorder.stop();
    expect(seen.answered).toBe(4);
    expect(seen.max).toBe(4);
    expect(await fence.drain(5_000)).toBe(true);
    // A refusal at the end of a term is expected: not an error in the log.
    expect(logs.filter((l) => l.type === "error")).toHaveLength(0);
    expect(logs.filter((l) => l.type === "debug" && l.message.includes("refused"))).toHaveLength(2);
  });
});
