import { describe, expect, test } from "bun:test";
import { settle } from "../kube/testdata/fake-clock.ts";
import { createKeyedWriters } from "./keyed-writers.ts";

/** Items are `key:n`; each write is held until the test finishes it, so what runs at once is plain to see. */
const harness = (maxInFlight: number, maxQueued = 100) => {
  const running = new Map<string, () => void>();
  const started: string[] = [];
  let max = 0;
  const writers = createKeyedWriters<string>({
    maxInFlight,
    maxQueued,
    keyOf: (item) => item.split(":")[0] as string,
    write: (item) =>
      new Promise<void>((resolve, reject) => {
        started.push(item);
        running.set(item, () => (item.endsWith("!") ? reject(new Error(item)) : resolve()));
        max = Math.max(max, running.size);
      }),
  });
  const finish = async (...items: string[]) => {
    await settle();
    for (const item of items) {
      const done = running.get(item);
      if (!done) throw new Error(`${item} is not running (running: ${[...running.keys()].join(", ")})`);
      running.delete(item);
      done();
    }
    await settle();
  };
  return { writers, started, running: () => [...running.keys()], max: () => max, finish };
};

describe("keyed writers", () => {
  const rows: {
    name: string;
    maxInFlight: number;
    offered: string[];
    runningFirst: string[];
    finish: string[];
    runningThen: string[];
  }[] = [
    {
      name: "distinct keys run up to the bound, the next starts when one finishes",
      maxInFlight: 2,
      offered: ["a:1", "b:1", "c:1"],
      runningFirst: ["a:1", "b:1"],
      finish: ["b:1"],
      runningThen: ["a:1", "c:1"],
    },
    {
      name: "a key's later items wait for its earlier one while other keys run",
      maxInFlight: 4,
      offered: ["a:1", "a:2", "b:1", "a:3"],
      runningFirst: ["a:1", "b:1"],
      finish: ["a:1"],
      runningThen: ["b:1", "a:2"],
    },
    {
      name: "a failed write frees its key like a successful one",
      maxInFlight: 4,
      offered: ["a:1!", "a:2"],
      runningFirst: ["a:1!"],
      finish: ["a:1!"],
      runningThen: ["a:2"],
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const h = harness(row.maxInFlight);
      for (const item of row.offered) expect(h.writers.offer(item)).toBe(true);
      await settle();
      expect(h.running()).toEqual(row.runningFirst);
      await h.finish(...row.finish);
      expect(h.running()).toEqual(row.runningThen);
      expect(h.max()).toBeLessThanOrEqual(row.maxInFlight);
    });
  }

  test("a key's items are written in the order offered", async () => {
    const h = harness(8);
    for (const item of ["a:1", "b:1", "a:2", "a:3", "b:2"]) h.writers.offer(item);
    for (let i = 0; i < 5; i++) {
      await settle();
      await h.finish(...h.running());
    }
    expect(h.started.filter((s) => s.startsWith("a"))).toEqual(["a:1", "a:2", "a:3"]);
    expect(h.started.filter((s) => s.startsWith("b"))).toEqual(["b:1", "b:2"]);
  });

  test("offer refuses once maxQueued items wait; items in flight do not count", async () => {
    const h = harness(1, 2);
    expect(["a:1", "b:1", "c:1", "d:1"].map((item) => h.writers.offer(item))).toEqual([true, true, true, false]);
    await settle();
    expect(h.writers.inFlight).toBe(1);
    expect(h.writers.queued).toBe(2);
    expect(h.writers.offer("e:1")).toBe(false);
    await h.finish("a:1");
    expect([h.writers.inFlight, h.writers.queued]).toEqual([1, 1]);
    expect(h.writers.offer("e:1")).toBe(true);
  });

  test("idle resolves once nothing waits and nothing runs", async () => {
    const h = harness(1);
    await h.writers.idle();
    for (const item of ["a:1", "a:2"]) h.writers.offer(item);
    let idle = false;
    const waiting = h.writers.idle().then(() => {
      idle = true;
    });
    await h.finish("a:1");
    expect(idle).toBe(false);
    await h.finish("a:2");
    await waiting;
    expect(idle).toBe(true);
  });
});
