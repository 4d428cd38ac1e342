import { describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../kube/client-types.ts";
import type { Event, Service } from "../kube/objects.ts";
import { settle } from "../kube/testdata/fake-clock.ts";
import { createEventRecorder, nodeReference, objectReference } from "./events.ts";
import { recorderBed } from "./testing/event-recorder.ts";
import { captureLogger } from "./testing/logger.ts";

const setup = recorderBed;

describe("event recorder", () => {
  test("writes a node event in the default namespace with an apiVersion on the reference", async () => {
    const { recorder, events } = setup();
    recorder.event(nodeReference("n1", "uid-1"), "Normal", "Synced", "Node synced successfully");
    await recorder.flush();
    const [event] = events();
    expect(event?.metadata?.namespace).toBe("default");
    expect(event?.metadata?.name).toMatch(/^n1\.[0-9a-f]+$/);
    expect(event).toMatchObject({
      involvedObject: { apiVersion: "v1", kind: "Node", name: "n1", uid: "uid-1" },
      reason: "Synced",
      message: "Node synced successfully",
      type: "Normal",
      source: { component: "cloud-node-controller", host: "cp-1" },
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:00Z",
      count: 1,
      reportingComponent: "cloud-node-controller",
      reportingInstance: "cp-1",
    });
  });

  test("writes an event about a namespaced object in the object's namespace", async () => {
    const { client, recorder, events } = setup();
    client.seed(Resources.namespaces, { metadata: { name: "shop" } });
    const svc: Service = { metadata: { name: "web", namespace: "shop", uid: "u" } };
    const ref = objectReference(Resources.services, svc);
    expect(ref).toEqual({ apiVersion: "v1", kind: "Service", name: "web", namespace: "shop", uid: "u" });
    recorder.event(ref, "Warning", "SyncLoadBalancerFailed", "Error syncing load balancer: boom");
    await recorder.flush();
    expect(events().map((e) => `${e.metadata?.namespace}/${e.involvedObject.name}/${e.type}`)).toEqual([
      "shop/web/Warning",
    ]);
  });

  test("a repeat within the window patches count and lastTimestamp instead of creating", async () => {
    const { clock, client, recorder, events } = setup();
    recorder.event(nodeReference("n1"), "Normal", "Synced", "Node synced successfully");
    await recorder.flush();
    await clock.advance(60_000);
    recorder.event(nodeReference("n1"), "Normal", "Synced", "Node synced successfully");
    await clock.advance(60_000);
    recorder.event(nodeReference("n1"), "Normal", "Synced", "Node synced successfully");
    await recorder.flush();
    expect(client.writes().map((r) => `${r.method}:${r.patchType ?? ""}`)).toEqual([
      "create:",
      "patch:strategic",
      "patch:strategic",
    ]);
    expect(events()).toHaveLength(1);
    expect(events()[0]).toMatchObject({
      count: 3,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:02:00Z",
    });
  });

  test.each([
    ["a different message", nodeReference("n1"), "Other", 0],
    ["a different object", nodeReference("n2"), "Same", 0],
    ["the same event after the window", nodeReference("n1"), "Same", 11 * 60_000],
  ])("%s creates a new event", async (_, ref, message, wait) => {
    const { clock, client, recorder } = setup();
    recorder.event(nodeReference("n1"), "Normal", "R", "Same");
    await recorder.flush();
    await clock.advance(wait);
    recorder.event(ref, "Normal", "R", message);
    await recorder.flush();
    expect(client.writes().map((r) => r.method)).toEqual(["create", "create"]);
  });

  test("re-creates a de-duplicated event that was deleted meanwhile", async () => {
    const { client, recorder, events } = setup();
    recorder.event(nodeReference("n1"), "Normal", "R", "m");
    await recorder.flush();
    const name = events()[0]?.metadata?.name as string;
    await client.delete(Resources.events, name, { namespace: "default" });
    recorder.event(nodeReference("n1"), "Normal", "R", "m");
    await recorder.flush();
    expect(events()).toHaveLength(1);
    expect(events()[0]?.metadata?.name).toBe(name);
    expect(events()[0]?.count).toBe(2);
  });

  test("write errors are counted and logged once per run of failures", async () => {
    const { client, registry, recorder, logs } = setup();
    const remove = client.fail(
      { method: "create" },
      new KubeApiError("forbidden", { status: 403, reason: "Forbidden" }),
    );
    for (let i = 0; i < 3; i++) recorder.event(nodeReference(`n${i}`), "Normal", "R", "m");
    await recorder.flush();
    expect(logs.filter((l) => l.type === "error")).toHaveLength(1);
    expect(await registry.metrics()).toContain('event_recorder_dropped_events_total{reason="write_failed"} 3');
    remove();
    recorder.event(nodeReference("ok"), "Normal", "R", "m");
    await recorder.flush();
    recorder.event(nodeReference("n9"), "Normal", "R", "m");
    client.fail({ method: "create" }, new Error("down"));
    recorder.event(nodeReference("n10"), "Normal", "R", "m");
    await recorder.flush();
    expect(logs.filter((l) => l.type === "error")).toHaveLength(2);
  });

  describe("a throttled event waits its Retry-After on the recorder's own queue, then is written", () => {
    const tooMany = (retryAfterMs?: number) =>
      new KubeApiError("POST events: 429 TooManyRequests", { status: 429, reason: "TooManyRequests", retryAfterMs });
    const cases: ReadonlyArray<{ name: string; retryAfterMs?: number; times: number; writtenAfterMs?: number }> = [
      { name: "Retry-After: 2, once: written 2 s after", retryAfterMs: 2000, times: 1, writtenAfterMs: 2000 },
      { name: "Retry-After: 1, three times: written 3 s after", retryAfterMs: 1000, times: 3, writtenAfterMs: 3000 },
      { name: "no Retry-After: 1 s per try", times: 2, writtenAfterMs: 2000 },
      { name: "a huge Retry-After is cut to 10 s", retryAfterMs: 600_000, times: 1, writtenAfterMs: 10_000 },
      { name: "refused five times: dropped, counted", retryAfterMs: 1000, times: 5 },
    ];
    for (const c of cases) {
      test(c.name, async () => {
        const { clock, client, registry, recorder, events } = setup();
        client.fail({ method: "create", resource: "events" }, tooMany(c.retryAfterMs), { times: c.times });
        const initialisedAt = clock.now();
        recorder.event(nodeReference("n1", "uid-1"), "Normal", "Synced", "Node synced successfully");
        // Drive the clock to each pending wait, never past the event's own write.
        for (await settle(); clock.pending() > 0; await settle()) await clock.advanceToNext();
        await recorder.flush();
        if (c.writtenAfterMs === undefined) {
          expect(events()).toHaveLength(0);
          expect(await registry.metrics()).toContain('event_recorder_dropped_events_total{reason="write_failed"} 1');
          return;
        }
        expect(events().map((e) => e.reason)).toEqual(["Synced"]);
        expect(clock.now() - initialisedAt).toBe(c.writtenAfterMs);
        expect(client.requests.filter((r) => r.method === "create")).toHaveLength(c.times + 1);
      });
    }
  });

  describe("an event is never lost to a name already taken", () => {
    test("two recorders writing about one object in the same millisecond both write their event", async () => {
      const { clock, client, recorder, events } = setup();
      const { logger } = captureLogger();
      const other = createEventRecorder({ client, component: "service-controller", logger, now: clock.now });
      for (let i = 0; i < 3; i++) {
        recorder.event(nodeReference("n1"), "Normal", "A", `m${i}`);
        other.event(nodeReference("n1"), "Normal", "B", `m${i}`);
      }
      await Promise.all([recorder.flush(), other.flush()]);
      expect(
        events()
          .map((e) => `${e.reason}:${e.message}`)
          .sort(),
      ).toEqual(["A:m0", "A:m1", "A:m2", "B:m0", "B:m1", "B:m2"]);
      expect(new Set(events().map((e) => e.metadata?.name)).size).toBe(6);
    });

    test("a create answered 409 AlreadyExists is written again under a fresh name", async () => {
      const { client, recorder, events, dropped } = setup();
      const taken = new KubeApiError('events "n1.x" already exists', { status: 409, reason: "AlreadyExists" });
      client.fail({ method: "create", resource: "events" }, taken, { times: 2 });
      recorder.event(nodeReference("n1"), "Normal", "Synced", "Node synced successfully");
      await recorder.flush();
      expect(events().map((e) => e.reason)).toEqual(["Synced"]);
      const names = client.requests.filter((r) => r.method === "create").map((r) => (r.body as Event).metadata?.name);
      expect(new Set(names).size).toBe(3);
      expect(await dropped("write_failed")).toBe(0);
    });
  });

  test("stop flushes and then ignores new events", async () => {
    const { client, recorder } = setup();
    recorder.event(nodeReference("n1"), "Normal", "R", "m");
    await recorder.stop();
    recorder.event(nodeReference("n2"), "Normal", "R", "m");
    await recorder.flush();
    expect(client.writes()).toHaveLength(1);
  });
});
