import { describe, expect, test } from "bun:test";
import {
  type AttemptResult,
  backoffMs,
  decideRetry,
  defaultRetryPolicy,
  idempotentByMethod,
  type RetryPolicy,
} from "./retry-policy.ts";

const policy: RetryPolicy = {
  ...defaultRetryPolicy,
  maxRetries: 3,
  baseMs: 100,
  capMs: 1000,
  maxWaitMs: 5000,
  retryable: ({ status, code }) => status === 423 && code === "locked",
};
const half = () => 0.5;
const answer = (status: number, code = "x", retryAfterMs?: number): AttemptResult => ({
  kind: "answer",
  status,
  code,
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});

describe("decideRetry", () => {
  const cases: [string, AttemptResult, boolean, number, ReturnType<typeof decideRetry>][] = [
    ["a 503 of a safe request, first retry", answer(503), true, 0, { retry: true, waitMs: 50 }],
    ["a 503 of an unsafe request: the cloud may have acted", answer(503), false, 0, { retry: false, reason: "final" }],
    [
      "a 429 of an unsafe request waits its Retry-After",
      answer(429, "x", 3000),
      false,
      0,
      { retry: true, waitMs: 3000 },
    ],
    ["a 429 without Retry-After backs off", answer(429), false, 2, { retry: true, waitMs: 200 }],
    ["a provider-retryable code of an unsafe request", answer(423, "locked"), false, 0, { retry: true, waitMs: 50 }],
    ["another 423 is final", answer(423, "other"), true, 0, { retry: false, reason: "final" }],
    ["a 404 is final", answer(404), true, 0, { retry: false, reason: "final" }],
    ["a refused connection of an unsafe request", { kind: "refused" }, false, 0, { retry: true, waitMs: 50 }],
    ["a lost answer of a safe request", { kind: "lost" }, true, 1, { retry: true, waitMs: 100 }],
    ["a lost answer of an unsafe request", { kind: "lost" }, false, 0, { retry: false, reason: "final" }],
    ["out of retries", answer(503), true, 3, { retry: false, reason: "exhausted", waitMs: 400 }],
    [
      "a 429 out of retries keeps its wait",
      answer(429, "x", 2000),
      true,
      3,
      { retry: false, reason: "exhausted", waitMs: 2000 },
    ],
    [
      "a wait beyond maxWaitMs",
      answer(429, "x", 60_000),
      true,
      0,
      { retry: false, reason: "wait-too-long", waitMs: 60_000 },
    ],
    ["a 503's Retry-After when longer than the back-off", answer(503, "x", 700), true, 0, { retry: true, waitMs: 700 }],
  ];
  for (const [name, result, idempotent, retriesDone, want] of cases) {
    test(name, () => {
      expect(decideRetry(policy, result, retriesDone, idempotent, half)).toEqual(want);
    });
  }
});

describe("backoffMs", () => {
  test("draws below a ceiling that doubles per retry up to the cap (full jitter)", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, () => 0.999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
  });
});

describe("idempotentByMethod", () => {
  test.each([
    ["GET", true],
    ["put", true],
    ["DELETE", true],
    ["HEAD", true],
    ["POST", false],
    ["PATCH", false],
  ])("%s → %p", (method, want) => {
    expect(idempotentByMethod(method)).toBe(want);
  });
});
