import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type ApiServer, startApiServer } from "./server.ts";
import { call } from "./testing.ts";

setDefaultTimeout(60_000);

let server: ApiServer;
beforeAll(async () => {
  server = await startApiServer({ bookmarkIntervalMs: 0, flowControlSeats: 2 });
  // Slow enough that five requests sent at once are all in flight together.
  server.faults.delay(300, { method: "GET", path: "/api/v1/nodes" });
});
afterAll(() => server.stop());

test("past its seats, an API request is rejected as APF rejects: 429, Retry-After 1, its headers, a Status", async () => {
  const before = server.flowControlRejected;
  const answers = await Promise.all(Array.from({ length: 5 }, () => call(server.url, "GET", "/api/v1/nodes")));
  const rejected = answers.filter((a) => a.status === 429);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
  expect(rejected).toHaveLength(3);
  for (const r of rejected) {
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.headers.get("x-kubernetes-pf-prioritylevel-uid")).not.toBeNull();
    expect(r.body).toMatchObject({ kind: "Status", reason: "TooManyRequests", code: 429 });
  }
  expect(server.flowControlRejected - before).toBe(3);
  // The seats are free again once the answers are out.
  expect((await call(server.url, "GET", "/api/v1/nodes")).status).toBe(200);
});

test("health checks and watches take no seat", async () => {
  const before = server.flowControlRejected;
  const busy = Array.from({ length: 2 }, () => call(server.url, "GET", "/api/v1/nodes"));
  expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
  const watch = await fetch(`${server.url}/api/v1/namespaces?watch=true&timeoutSeconds=1`);
  expect(watch.status).toBe(200);
  await watch.body?.cancel();
  await Promise.all(busy);
  expect(server.flowControlRejected).toBe(before);
});
