import { expect, test } from "bun:test";
import { KubeApiError } from "../../kube/client-types.ts";
import { retryOnConflict } from "./retry.ts";

const conflict = () => new KubeApiError("conflict", { status: 409, reason: "Conflict" });

const recordingSleep = () => {
  const slept: number[] = [];
  return { slept, sleep: async (ms: number) => void slept.push(ms) };
};

test("retries conflicts with jittered sleeps and returns the first success", async () => {
  const { slept, sleep } = recordingSleep();
  let calls = 0;
  const result = await retryOnConflict(
    async (attempt) => {
      calls++;
      if (attempt < 3) throw conflict();
      return "done";
    },
    { sleep, random: () => 0.5, baseMs: 100, jitter: 1 },
  );
  expect(result).toBe("done");
  expect(calls).toBe(3);
  expect(slept).toEqual([150, 150]);
});

test("gives up after the attempts with the last conflict", async () => {
  const { slept, sleep } = recordingSleep();
  const last = conflict();
  let calls = 0;
  const failure = retryOnConflict(
    async () => {
      calls++;
      throw calls === 5 ? last : conflict();
    },
    { sleep, random: () => 0 },
  );
  expect(await failure.catch((e: unknown) => e)).toBe(last);
  expect(calls).toBe(5);
  expect(slept).toEqual([100, 100, 100, 100]);
});

test.each([
  ["not found", new KubeApiError("nf", { status: 404, reason: "NotFound" })],
  ["already exists", new KubeApiError("ae", { status: 409, reason: "AlreadyExists" })],
  ["a plain error", new Error("boom")],
])("does not retry %s", async (_, error) => {
  const { slept, sleep } = recordingSleep();
  let calls = 0;
  const failure = retryOnConflict(
    async () => {
      calls++;
      throw error;
    },
    { sleep },
  );
  expect(await failure.catch((e: unknown) => e)).toBe(error);
  expect(calls).toBe(1);
  expect(slept).toEqual([]);
});

test("stops retrying once the signal aborts", async () => {
  const controller = new AbortController();
  let calls = 0;
  const failure = retryOnConflict(
    async () => {
      calls++;
      controller.abort();
      throw conflict();
    },
    { sleep: async () => {}, signal: controller.signal },
  );
  expect(await failure.catch((e: unknown) => (e as KubeApiError).status)).toBe(409);
  expect(calls).toBe(1);
});
