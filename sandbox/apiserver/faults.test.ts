import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type ApiServer, startApiServer } from "./server.ts";
import { call } from "./testing.ts";

setDefaultTimeout(60_000);

let server: ApiServer;
const slept: number[] = [];
let dice = 0;

beforeAll(async () => {
  server = await startApiServer({
    bookmarkIntervalMs: 0,
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => dice,
  });
});
afterAll(() => server.stop());

const get = (path: string) => call(server.url, "GET", path);

test("failNext fails exactly the next N matching requests", async () => {
  server.faults.failNext(2, 503, { method: "GET", path: "/api/v1/nodes" });
  expect((await get("/api/v1/namespaces")).status).toBe(200); // not matching
  const first = await get("/api/v1/nodes");
  expect(first.status).toBe(503);
  expect(first.body).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", code: 503 });
  expect((await get("/api/v1/nodes")).status).toBe(503);
  expect((await get("/api/v1/nodes")).status).toBe(200);
});

test("a 429 carries Retry-After and details.retryAfterSeconds", async () => {
  server.faults.failNext(1, { status: 429, retryAfterSeconds: 7 });
  const r = await get("/api/v1/nodes");
  expect(r.status).toBe(429);
  expect(r.headers.get("retry-after")).toBe("7");
  expect(r.body.details).toEqual({ retryAfterSeconds: 7 });
});

test("failRate fails the share of requests the injected dice decide", async () => {
  server.faults.failRate(0.5, 500, { path: /nodes/ });
  dice = 0.4;
  expect((await get("/api/v1/nodes")).status).toBe(500);
  dice = 0.6;
  expect((await get("/api/v1/nodes")).status).toBe(200);
  server.faults.clear();
  dice = 0;
  expect((await get("/api/v1/nodes")).status).toBe(200);
});

test("delay holds matching requests for the given time (through the injected sleep)", async () => {
  server.faults.delay(250, { path: "/api/v1/namespaces" });
  await get("/api/v1/nodes");
  await get("/api/v1/namespaces");
  expect(slept).toEqual([250]);
  server.faults.clear();
});
