import { expect, test } from "bun:test";
import { KeyedLock } from "./keyed-lock.ts";

test("runs calls for one key one at a time, in order, and other keys alongside; a failure does not block the next", async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = lock.run("a", async () => {
    log.push("a1 start");
    await gate;
    log.push("a1 end");
    throw new Error("a1 failed");
  });
  const second = lock.run("a", async () => void log.push("a2"));
  const other = lock.run("b", async () => void log.push("b1"));
  await other;
  expect(log).toEqual(["a1 start", "b1"]);
  release();
  expect(first).rejects.toThrow("a1 failed");
  await second;
  expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  expect(lock.busy).toBe(0);
});
