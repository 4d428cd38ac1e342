import { describe, expect, test } from "bun:test";
import { FakeClock } from "../kube/testdata/fake-clock.ts";
import { TermOverError } from "../kube/write-fence.ts";
import { createFenceSet, createTermFence } from "./term-fence.ts";

const setup = (over: () => string | undefined = () => undefined) => {
  const clock = new FakeClock();
  return { clock, fence: createTermFence({ over, sleep: clock.sleep }) };
};

describe("term fence", () => {
  const refusals: { name: string; act: (f: ReturnType<typeof setup>["fence"]) => void; reason: string }[] = [
    { name: "once close() named a reason", act: (f) => f.close("stopping"), reason: "stopping" },
    { name: "once end() named a reason", act: (f) => f.end("lost"), reason: "lost" },
  ];
  for (const { name, act, reason } of refusals) {
    test(`refuses a new write ${name}, naming the write and the reason`, () => {
      const { fence } = setup();
      act(fence);
      expect(() => fence.enter("PUT /x")).toThrow(new TermOverError(`PUT /x refused: ${reason}`));
      expect(fence.inFlight()).toEqual([]);
    });
  }

  test("refuses when over() names a reason, and ends the term: writes in flight are aborted with it", () => {
    let reason: string | undefined;
    const { fence } = setup(() => reason);
    const first = fence.enter("POST /a");
    reason = "deadline passed";
    expect(() => fence.enter("POST /b")).toThrow("POST /b refused: deadline passed");
    expect(first.signal.aborted).toBeTrue();
    expect(first.signal.reason).toBeInstanceOf(TermOverError);
    reason = undefined; // the first refusal is for good
    expect(() => fence.enter("POST /c")).toThrow("POST /c refused: deadline passed");
  });

  test("close() lets writes in flight run on and drain() resolves true when the last one ends", async () => {
    const { fence } = setup();
    const a = fence.enter("PUT /a");
    const b = fence.enter("PUT /b");
    fence.close("stopping");
    expect(a.signal.aborted).toBeFalse();
    const drained = fence.drain(10_000);
    a.end();
    a.end(); // ending twice counts once
    expect(fence.inFlight()).toEqual(["PUT /b"]);
    b.end();
    expect(await drained).toBeTrue();
    expect(fence.inFlight()).toEqual([]);
  });

  // The SIGTERM path CI once saw escape: after close(), a write refused (an event, a Service status patch) aborted the
  // writes in flight, drain() found none and the lease went to the standby while the cloud still ran the aborted one.
  test("a write refused after close() leaves the writes in flight running: drain() still waits for their answers", async () => {
    const { clock, fence } = setup();
    const put = fence.enter("PUT /load-balancers/a");
    fence.close("the manager is stopping");
    expect(() => fence.enter("POST /events")).toThrow("POST /events refused: the manager is stopping");
    expect(put.signal.aborted).toBeFalse();
    expect(fence.inFlight()).toEqual(["PUT /load-balancers/a"]);
    let drained: boolean | undefined;
    const draining = fence.drain(10_000).then((ok) => {
      drained = ok;
    });
    await clock.advance(1_200);
    expect(drained).toBeUndefined();
    put.end();
    await draining;
    expect(drained).toBeTrue();
  });

  test("a term lost after close() still aborts the writes in flight", () => {
    let reason: string | undefined;
    const { fence } = setup(() => reason);
    const put = fence.enter("PUT /load-balancers/a");
    fence.close("the manager is stopping");
    reason = "the lease is held by b";
    expect(() => fence.enter("POST /events")).toThrow("POST /events refused: the lease is held by b");
    expect(put.signal.aborted).toBeTrue();
    expect(put.signal.reason).toBeInstanceOf(TermOverError);
  });

  test("drain() gives up after its bound, false, and aborts the writes still in flight", async () => {
    const { clock, fence } = setup();
    const a = fence.enter("PUT /a");
    fence.close("stopping");
    const drained = fence.drain(5_000);
    await clock.advance(5_000);
    expect(await drained).toBeFalse();
    expect(a.signal.aborted).toBeTrue();
  });

  // A write that times out client-side, or loses its connection after sending, may still be applied by the server.
  const unansweredRows: {
    name: string;
    closeFirst: boolean;
    answered: boolean;
    drained: boolean;
    unanswered: string[];
  }[] = [
    {
      name: "ends unanswered after close()",
      closeFirst: true,
      answered: false,
      drained: false,
      unanswered: ["PUT /a"],
    },
    { name: "ends answered after close()", closeFirst: true, answered: true, drained: true, unanswered: [] },
    { name: "ended unanswered before close()", closeFirst: false, answered: false, drained: true, unanswered: [] },
  ];
  for (const row of unansweredRows) {
    test(`drain() resolves ${row.drained} when a write ${row.name}`, async () => {
      const { fence } = setup();
      const a = fence.enter("PUT /a");
      if (row.closeFirst) fence.close("stopping");
      const draining = row.closeFirst ? fence.drain(10_000) : undefined;
      a.end(row.answered);
      if (!row.closeFirst) fence.close("stopping");
      expect(await (draining ?? fence.drain(10_000))).toBe(row.drained);
      expect(fence.unanswered()).toEqual(row.unanswered);
      expect(fence.inFlight()).toEqual([]);
    });
  }

  test("drain() with nothing in flight resolves true at once", async () => {
    expect(await setup().fence.drain(0)).toBeTrue();
  });
});

describe("fence set", () => {
  test("passes a write only when every term passes it, and counts it in each until it ends", () => {
    const a = setup().fence;
    const b = setup().fence;
    const set = createFenceSet();
    set.add(a);
    set.add(b);
    const write = set.enter("PATCH /s");
    expect(a.inFlight()).toEqual(["PATCH /s"]);
    expect(b.inFlight()).toEqual(["PATCH /s"]);
    write.end();
    expect([a.inFlight(), b.inFlight()]).toEqual([[], []]);
  });

  test("refuses once one term is over, leaving nothing counted in the others", () => {
    const a = setup().fence;
    const b = setup().fence;
    const set = createFenceSet();
    set.add(a);
    set.add(b);
    b.close("migration lock lost");
    expect(() => set.enter("PATCH /s")).toThrow("PATCH /s refused: migration lock lost");
    expect(a.inFlight()).toEqual([]);
  });

  test("aborts a write in flight when any term ends", () => {
    const a = setup().fence;
    const b = setup().fence;
    const set = createFenceSet();
    set.add(a);
    const write = set.enter("PATCH /s");
    set.add(b);
    a.end("lost");
    expect(write.signal.aborted).toBeTrue();
  });
});
