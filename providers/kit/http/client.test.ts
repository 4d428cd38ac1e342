import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { captureLogger } from "../../../platform/testing/logger.ts";
import { freePort } from "../../../scripts/lib/processes.ts";
import { findInCauseChain, RetryError } from "../../errors.ts";
import { rejection } from "../../testing.ts";
import { type Method, tuningOf } from "./client.ts";
import { CloudApiAnswerTooLargeError, CloudApiError, CloudApiSchemaError } from "./errors.ts";
import { errorAnswer, useTestBed } from "./testing.ts";

const token = "s3cr3t-token-value";
const ctx = { signal: new AbortController().signal };
const machine = v.object({ id: v.string(), zone: v.string() });
const answer = v.object({ machine });
const ok = () => Response.json({ machine: { id: "m-1", zone: "a" } });

const bed = useTestBed({
  name: "test/api",
  provider: "test",
  path: "/v1",
  auth: () => ({ authorization: `Bearer ${token}` }),
});
const client = bed.client;

const get = (c = client(), notFound = false) =>
  c.request(ctx, { operation: "getMachine", method: "GET", path: "/machines/m-1", answer, notFound });

/** Answers `failures` in turn, then `ok()`. */
const failThen =
  (...failures: (() => Response)[]) =>
  (_: unknown, n: number) =>
    failures[n]?.() ?? ok();

describe("a call", () => {
  test("sends the auth headers to base URL + path with the query, and returns the answer's parsed output", async () => {
    bed.server.answer(() => Response.json({ machine: { id: "m-1", zone: "a", extra: "tolerated" } }));
    const c = client();
    const got = await c.request(ctx, {
      operation: "getMachine",
      method: "GET",
      path: "/machines/m-1",
      query: { verbose: true, skip: undefined },
      answer,
    });
    expect(got).toEqual({ machine: { id: "m-1", zone: "a" } });
    expect(bed.server.received[0]?.path).toBe("/v1/machines/m-1?verbose=true");
    expect(bed.server.received[0]?.headers.get("authorization")).toBe(`Bearer ${token}`);
  });

  test("exchange returns the answer with its headers, and throws on a 404", async () => {
    bed.server.answer((r) =>
      r.path.endsWith("/gone")
        ? errorAnswer(404, "not_found", "no such thing")
        : Response.json({ machine: { id: "m-1", zone: "a" } }, { status: 201, headers: { "x-subject-token": "t-1" } }),
    );
    const c = client();
    const got = await c.exchange(ctx, { operation: "issue", method: "POST", path: "/tokens", body: {}, answer });
    expect(got.answer).toEqual({ machine: { id: "m-1", zone: "a" } });
    expect(got.headers.get("x-subject-token")).toBe("t-1");
    const err = await rejection(() => c.exchange(ctx, { operation: "issue", method: "GET", path: "/gone", answer }));
    expect(err).toBeInstanceOf(CloudApiError);
  });

  test("validates the request body before sending it, and sends the schema's output as JSON", async () => {
    const bodySchema = v.object({ name: v.pipe(v.string(), v.trim()), size: v.number() });
    bed.server.answer(ok);
    const c = client();
    const send = (body: unknown) =>
      c.request(ctx, { operation: "createMachine", method: "POST", path: "/machines", body, bodySchema, answer });
    await send({ name: " web ", size: 2 });
    expect(JSON.parse(bed.server.received[0]?.body ?? "")).toEqual({ name: "web", size: 2 });
    const err = await rejection(() => send({ name: 1 }));
    expect(err).toBeInstanceOf(CloudApiSchemaError);
    expect(err.message).toStartWith("test/api.createMachine: the request body is invalid: name: ");
    expect(err.message).toContain("size: ");
    expect(bed.server.received).toHaveLength(1);
  });

  test("an answer that fails its schema is an error naming the operation and every bad field", async () => {
    const list = v.object({ machines: v.array(machine) });
    bed.server.answer(() => Response.json({ machines: [{ id: "1", zone: "a" }, { id: "2" }, { id: 3, zone: "c" }] }));
    const err = await rejection(() =>
      client().request(ctx, { operation: "listMachines", method: "GET", path: "/machines", answer: list }),
    );
    expect(err).toBeInstanceOf(CloudApiSchemaError);
    expect(err.message).toStartWith("test/api.listMachines: the cloud's answer is invalid: machines[1].zone: ");
    expect(err.message).toContain("machines[2].id: ");
  });

  test("an answer that is not JSON is an answer error; an empty answer is null", async () => {
    bed.server.answer(() => new Response("<html>", { status: 200 }));
    expect((await rejection(() => get())).message).toBe("test/api.getMachine: the cloud's answer is invalid: not JSON");
    bed.server.answer(() => new Response(null, { status: 204 }));
    const del = { operation: "deleteMachine", method: "DELETE" as const, path: "/machines/m-1", answer: v.null() };
    expect(await client().request(ctx, del)).toBeNull();
  });

  test("a 404 is undefined when the call declares it an answer, and a CloudApiError otherwise", async () => {
    bed.server.answer(() => errorAnswer(404, "not_found", 'machine "m-1" not found'));
    expect(await get(client(), true)).toBeUndefined();
    const err = await rejection(() => get());
    expect(err).toBeInstanceOf(CloudApiError);
    expect(err.message).toBe('test/api.getMachine: 404 not_found: machine "m-1" not found');
    expect(err).toMatchObject({ operation: "test/api.getMachine", status: 404, code: "not_found" });
  });

  test("an error answer that is not the cloud's JSON reports the status text and the start of the body", async () => {
    bed.server.answer(() => new Response("upstream connect error", { status: 400, statusText: "Bad Request" }));
    expect((await rejection(() => get())).message).toBe("test/api.getMachine: 400 Bad Request: upstream connect error");
  });

  test("refuses a full URL outside the base URL, so the credentials never go elsewhere", async () => {
    const err = await rejection(() =>
      client().request(ctx, { operation: "next", method: "GET", path: "http://example.com/v1/x", answer }),
    );
    expect(err.message).toContain("is not under");
    expect(bed.server.received).toHaveLength(0);
  });
});

describe("retries", () => {
  const cases: [string, Method, () => Response, number][] = [
    ["a GET is tried again after a 503, up to the limit", "GET", () => errorAnswer(503, "unavailable", "x"), 4],
    ["a PUT is tried again after a 500", "PUT", () => errorAnswer(500, "internal", "x"), 4],
    [
      "a POST is not repeated after a 500 (the cloud may have acted)",
      "POST",
      () => errorAnswer(500, "internal", "x"),
      1,
    ],
    ["a POST is repeated after a 429 (the cloud did nothing)", "POST", () => errorAnswer(429, "rate_limit", "x"), 4],
    [
      "a POST is repeated after one of the provider's retryable codes",
      "POST",
      () => errorAnswer(423, "locked", "x"),
      4,
    ],
    ["a 400 is never repeated", "GET", () => errorAnswer(400, "invalid_input", "x"), 1],
  ];
  for (const [name, method, failure, attempts] of cases) {
    test(name, async () => {
      bed.server.answer(failure);
      const c = client({ retry: { retryable: ({ code }) => code === "locked" } });
      const err = await rejection(() => c.request(ctx, { operation: "op", method, path: "/x", answer }));
      expect(bed.server.received).toHaveLength(attempts);
      expect(findInCauseChain(err, CloudApiError)?.attempts).toBe(attempts);
      if (attempts > 1) expect(err.message).toContain(`(after ${attempts} attempts)`);
    });
  }

  test("backs off exponentially with full jitter between attempts", async () => {
    bed.server.answer(() => errorAnswer(503, "unavailable", "x"));
    await rejection(() => get(client({ retry: { baseMs: 100, capMs: 300 }, random: () => 0.5 })));
    expect(bed.clock.waits).toEqual([50, 100, 150]);
  });

  test("succeeds when a retry does", async () => {
    bed.server.answer(failThen(() => errorAnswer(502, "bad_gateway", "x")));
    expect(await get()).toEqual({ machine: { id: "m-1", zone: "a" } });
    expect(bed.server.received).toHaveLength(2);
  });

  test.each([
    ["seconds", "3", 3000],
    ["an HTTP date", "Thu, 01 Jan 2026 00:00:05 GMT", 5000],
  ])("waits the Retry-After of a 429 given in %s", async (_, header, ms) => {
    bed.server.answer(failThen(() => errorAnswer(429, "rate_limit_exceeded", "slow down", { "retry-after": header })));
    await get();
    expect(bed.clock.waits).toEqual([ms]);
  });

  test("a 429 that outlasts the retries is a RetryError with the wait, keeping the CloudApiError as cause", async () => {
    bed.server.answer(() => errorAnswer(429, "rate_limit_exceeded", "slow down", { "retry-after": "2" }));
    const err = await rejection(() => get());
    expect(err).toBeInstanceOf(RetryError);
    expect((err as RetryError).retryAfterMs).toBe(2000);
    expect(err.message).toBe(
      "test/api.getMachine: the cloud is rate limiting (429 rate_limit_exceeded: slow down (after 4 attempts)); retry after 2000ms",
    );
    expect(findInCauseChain(err, CloudApiError)?.status).toBe(429);
  });

  test("a Retry-After beyond the longest wait ends the call at once, for the controller to reschedule", async () => {
    bed.server.answer(() => errorAnswer(429, "rate_limit_exceeded", "x", { "retry-after": "60" }));
    const err = await rejection(() => get());
    expect((err as RetryError).retryAfterMs).toBe(60_000);
    expect(bed.server.received).toHaveLength(1);
  });

  test("a refused connection is retried even for a POST", async () => {
    const c = client({ baseUrl: `http://127.0.0.1:${freePort()}` });
    const err = await rejection(() => c.request(ctx, { operation: "create", method: "POST", path: "/x", answer }));
    expect(err.message).toStartWith("test/api.create: POST http://127.0.0.1:");
    expect(err.message).toEndWith("(after 4 attempts)");
    expect(bed.clock.waits).toHaveLength(3);
  });

  test("maxRetries 0 turns retrying off", async () => {
    bed.server.answer(() => errorAnswer(503, "unavailable", "x"));
    await rejection(() => get(client({ retry: { maxRetries: 0 } })));
    expect(bed.server.received).toHaveLength(1);
  });
});

describe("timeouts and aborts", () => {
  test("an attempt that gets no answer in time fails with the timeout, and a GET is tried again", async () => {
    bed.server.answer(async () => {
      await bed.server.hold();
      return ok();
    });
    const err = await rejection(() => get(client({ timeoutMs: 50, retry: { maxRetries: 1 } })));
    expect(err.message).toBe("test/api.getMachine: no answer within 50ms (after 2 attempts)");
    expect(bed.server.received).toHaveLength(2);
  });

  test("the caller's abort ends the call at once, without a retry", async () => {
    bed.server.answer(async () => {
      await bed.server.hold();
      return ok();
    });
    const controller = new AbortController();
    const pending = rejection(() =>
      client().request({ signal: controller.signal }, { operation: "op", method: "GET", path: "/x", answer }),
    );
    while (bed.server.received.length === 0) await Bun.sleep(1);
    controller.abort();
    const err = await pending;
    expect(err.message).toStartWith("test/api.op: GET ");
    expect(err.message).toContain("aborted");
    expect(bed.server.received).toHaveLength(1);
  });

  test("an abort during the wait before a retry ends the call", async () => {
    bed.server.answer(() => errorAnswer(503, "unavailable", "x"));
    const controller = new AbortController();
    const sleep = async () => controller.abort();
    const err = await rejection(() =>
      client({ sleep }).request({ signal: controller.signal }, { operation: "op", method: "GET", path: "/x", answer }),
    );
    expect(err.message).toBe("test/api.op: aborted while waiting to retry");
    expect(bed.server.received).toHaveLength(1);
  });
});

describe("the bound on an answer's size", () => {
  const json = (bytes: number) => `{"machine":{"id":"m-1","zone":"${"a".repeat(bytes - 34)}"}}`;
  /** Chunks of 1 KiB for ever: only a client that stops reading ends the call. */
  const endless = () => {
    const chunk = new TextEncoder().encode(" ".repeat(1024));
    return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }), {
      headers: { "content-type": "application/json" },
    });
  };
  const cases = [
    { name: "an endless answer is refused past the bound, unread", answer: endless, bound: {}, refused: true },
    {
      name: "a declared Content-Length past the bound is refused before its body is read",
      answer: () => new Response(json(4096), { headers: { "content-length": "4096" } }),
      bound: {},
      refused: true,
    },
    {
      name: "an answer of exactly the bound is read",
      answer: () => new Response(json(2048)),
      bound: {},
      refused: false,
    },
    {
      name: "a request's own bound replaces the client's",
      answer: () => new Response(json(4096)),
      bound: { maxAnswerBytes: 8192 },
      refused: false,
    },
  ];
  test.each(cases)("$name", async (c) => {
    bed.server.answer(c.answer);
    const request = { operation: "listMachines", method: "GET" as const, path: "/machines", answer, ...c.bound };
    const call = client({ maxAnswerBytes: 2048 }).request(ctx, request);
    if (!c.refused) {
      expect(await call).toEqual({ machine: { id: "m-1", zone: expect.any(String) } });
      return;
    }
    const err = await rejection(() => call);
    expect(err).toBeInstanceOf(CloudApiAnswerTooLargeError);
    expect(err.message).toStartWith("test/api.listMachines: the cloud's 200 answer is ");
    expect(err.message).toContain("the 2048 bytes one answer may hold (maxAnswerBytes)");
    expect(bed.server.received).toHaveLength(1);
  });
});

describe("secrets", () => {
  test("the token never appears in an error message, even when the cloud echoes it", async () => {
    bed.server.answer((r) => errorAnswer(401, "unauthorized", `bad token ${r.headers.get("authorization")}`));
    const err = await rejection(() => get());
    expect(err.message).toBe("test/api.getMachine: 401 unauthorized: bad token [redacted]");
    bed.server.answer((r) => new Response(`no ${r.headers.get("authorization")?.slice(7)}`, { status: 403 }));
    expect((await rejection(() => get())).message).not.toContain(token);
  });

  describe("a password in the base URL never appears in an error message or a log line", () => {
    const cases = [
      { name: "a refused connection", baseUrl: () => `http://u:pa55word@127.0.0.1:${freePort()}/v1` },
      {
        name: "a next page outside the base URL",
        baseUrl: () => `${bed.server.url.replace("//", "//u:pa55word@")}/v1`,
      },
    ];
    test.each(cases)("$name", async (c) => {
      const { logger, logs } = captureLogger();
      const path = c.name.startsWith("a next page") ? "http://elsewhere.example/v1/x" : "/x";
      const err = await rejection(() =>
        client({ baseUrl: c.baseUrl(), logger }).request(ctx, { operation: "op", method: "GET", path, answer }),
      );
      const printed = [err.message, ...logs.map((l) => l.message)].join("\n");
      expect(printed).toContain("u:xxxxx@127.0.0.1");
      expect(printed).not.toContain("pa55word");
    });
  });
});

describe("tuningOf", () => {
  test("keeps the tuning keys a transport's options set, and leaves out the rest and the unset", () => {
    const sleep = async () => {};
    const options = { token: "secret", url: "http://x", rateLimit: { qps: 1, burst: 1 }, sleep };
    expect(tuningOf(options)).toEqual({ sleep });
  });
});
