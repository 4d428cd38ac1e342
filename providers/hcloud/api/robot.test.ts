import { afterEach, describe, expect, test } from "bun:test";
import type { ConsolaInstance } from "consola";
import { Registry } from "prom-client";
import { type RobotEmulator, startRobotEmulator } from "../../../sandbox/hrobot/server.ts";
import { RetryError } from "../../errors.ts";
import { CloudApiError, CloudApiSchemaError } from "../../kit/http/errors.ts";
import { startTestServer, type TestServer } from "../../kit/http/testing.ts";
import { rejection } from "../../testing.ts";
import { ROBOT_AUTH_BACKOFF_MS, RobotCredentialsError, RobotHttpApi, type RobotHttpApiOptions } from "./robot.ts";

const USER = "#ws+abc";
const PASSWORD = "s3cret-robot-password";
const ctx = { signal: new AbortController().signal };
let clock = Date.parse("2026-08-01T00:00:00Z");

let robot: RobotEmulator | undefined;
let scripted: TestServer | undefined;
afterEach(async () => {
  await robot?.stop();
  await scripted?.stop();
  robot = undefined;
  scripted = undefined;
});

function emulator(limits?: Parameters<typeof startRobotEmulator>[0]["limits"]): RobotEmulator {
  robot = startRobotEmulator({
    users: [{ user: USER, password: PASSWORD }],
    now: () => clock,
    ...(limits && { limits }),
  });
  robot.state.addServer({ name: "robot-1", number: 321, ip: "203.0.113.7", ipv6Net: "2a01:4f8:111:4221::" });
  robot.state.addServer({ name: "robot-2", number: 421, product: "Server Auction", dc: "HEL1-DC2" });
  return robot;
}

const client = (endpoint: string, o: Partial<RobotHttpApiOptions> = {}) =>
  new RobotHttpApi({
    user: USER,
    password: PASSWORD,
    endpoint,
    now: () => clock,
    retry: { maxRetries: 0 },
    metrics: new Registry(),
    ...o,
  });

describe("Robot client against the Robot emulator", () => {
  test("lists every server in one call", async () => {
    const r = emulator();
    const servers = await client(r.url).listServers(ctx);
    expect(servers).toEqual([
      {
        number: 321,
        name: "robot-1",
        ip: "203.0.113.7",
        ipv6Net: "2a01:4f8:111:4221::",
        product: "AX41-NVMe",
        dc: "FSN1-DC10",
        cancelled: false,
      },
      expect.objectContaining({ number: 421, name: "robot-2", product: "Server Auction", dc: "HEL1-DC2" }),
    ]);
    expect(r.calls).toEqual([{ method: "GET", path: "/server", status: 200, user: USER }]);
  });

  test("reads one server and its power state", async () => {
    const r = emulator();
    const api = client(r.url);
    expect(await api.getServer(ctx, 321)).toMatchObject({ number: 321, name: "robot-1", ip: "203.0.113.7" });
    expect(await api.powerState(ctx, 321)).toBe("running");
    r.state.updateServer(321, { operatingStatus: "shut off" });
    expect(await api.powerState(ctx, 321)).toBe("shut off");
  });

  test("answers a server that is gone, and an account without servers, as answers, not errors", async () => {
    const r = emulator();
    const api = client(r.url);
    expect(await api.getServer(ctx, 999)).toBeUndefined();
    expect(await api.powerState(ctx, 999)).toBeUndefined();
    r.state.deleteServer(321);
    r.state.deleteServer(421);
    expect(await api.listServers(ctx)).toEqual([]);
  });

  test("refuses a wrong endpoint's 404 instead of reading it as no servers", async () => {
    const r = emulator();
    const err = await rejection(() => client(`${r.url}/v1`).listServers(ctx));
    expect(err).toBeInstanceOf(CloudApiError);
    expect(err.message).toBe("hcloud/robot.listServers: 404 NOT_FOUND: Not Found");
  });

  test("says which settings to check when Robot refuses the credentials, and never shows the password", async () => {
    const r = emulator();
    const err = await rejection(() => client(r.url, { password: "wrong-password-123" }).listServers(ctx));
    expect(err.message).toStartWith("hcloud/robot.listServers: Robot refused the credentials (Unauthorized)");
    expect(err.message).toContain("check ROBOT_USER and ROBOT_PASSWORD");
    expect(err.cause).toBeInstanceOf(CloudApiError);
    expect((err.cause as CloudApiError).status).toBe(401);
    expect(err.message).not.toContain("wrong-password-123");
  });

  test("after refused credentials asks Robot nothing for an hour, so a wrong password never trips its lock-out", async () => {
    const r = emulator();
    const warned: string[] = [];
    const logger = { warn: (m: string) => warned.push(m) } as unknown as ConsolaInstance;
    const api = client(r.url, { password: "wrong-password-123", logger });
    expect(await rejection(() => api.listServers(ctx))).toBeInstanceOf(RobotCredentialsError);
    for (const call of [() => api.getServer(ctx, 321), () => api.powerState(ctx, 321), () => api.listServers(ctx)]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(RetryError);
      expect(err.cause).toBeInstanceOf(RobotCredentialsError);
      expect(err.message).toContain("Robot refused the credentials; not asking again for 3600000ms");
    }
    expect(r.calls.map((c) => c.status)).toEqual([401]);
    expect(warned).toHaveLength(1);
    expect(warned[0]).not.toContain("wrong-password-123");

    clock += ROBOT_AUTH_BACKOFF_MS;
    expect(await rejection(() => api.listServers(ctx))).toBeInstanceOf(RobotCredentialsError);
    expect(r.calls.map((c) => c.status)).toEqual([401, 401]);
    expect(r.lockout.blockedUntil("127.0.0.1")).toBeUndefined();
  });

  test("turns Robot's request limit into a RetryError and stops asking until the wait is over", async () => {
    const r = emulator({ server: { maxRequests: 1, intervalSeconds: 3600 } });
    const api = client(r.url, { rateLimitWaitMs: 5 * 60_000 });
    await api.listServers(ctx);
    const err = await rejection(() => api.getServer(ctx, 321));
    expect(err).toBeInstanceOf(RetryError);
    expect(err.message).toBe(
      "hcloud/robot.getServer: Robot's request limit is spent (Rate limit exceeded (1 requests per 3600s)); retry after 3600000ms",
    );
    const calls = r.calls.length;
    clock += 60_000;
    const guarded = await rejection(() => api.listServers(ctx));
    expect(guarded).toBeInstanceOf(RetryError);
    expect((guarded as RetryError).retryAfterMs).toBe(3_540_000);
    expect(r.calls.length).toBe(calls);
  });

  test("waits at least one request's share of Robot's budget when no wait is configured", async () => {
    const r = emulator({ server: { maxRequests: 200, intervalSeconds: 3600 } });
    r.faults.fail(403, "RATE_LIMIT_EXCEEDED", "Rate limit exceeded");
    const err = await rejection(() => client(r.url).listServers(ctx));
    expect((err as RetryError).retryAfterMs).toBe(60_000);
  });

  test("retries Robot's maintenance answers until Robot is back", async () => {
    const r = emulator();
    r.faults.fail(503, "MAINTENANCE", "Service Unavailable", 2);
    const api = client(r.url, { retry: { maxRetries: 3, baseMs: 1, capMs: 2 } });
    expect(await api.listServers(ctx)).toHaveLength(2);
    expect(r.calls.map((c) => c.status)).toEqual([503, 503, 200]);
  });
});

describe("Robot client against answers that break the documentation", () => {
  const answering = (body: unknown) => {
    scripted = startTestServer();
    scripted.answer(() => Response.json(body));
    return client(scripted.url);
  };

  test("tolerates missing optional fields and a server without IPv4", async () => {
    const api = answering([{ server: { server_number: 7, server_ip: null, extra: { nested: true } } }]);
    expect(await api.listServers(ctx)).toEqual([{ number: 7, name: "", product: "", dc: "", cancelled: false }]);
  });

  test("names the field when a needed one is missing or mistyped", async () => {
    const api = answering([{ server: { server_name: "x" } }, { server: { server_number: "8" } }]);
    const err = await rejection(() => api.listServers(ctx));
    expect(err).toBeInstanceOf(CloudApiSchemaError);
    expect(err.message).toContain("[0].server.server_number");
    expect(err.message).toContain("[1].server.server_number");
  });

  test("sends Basic auth and never puts the credentials in the path", async () => {
    const api = answering({ reset: { server_number: 7, operating_status: "not supported" } });
    expect(await api.powerState(ctx, 7)).toBe("not supported");
    const sent = scripted?.received[0];
    expect(sent?.path).toBe("/reset/7");
    expect(sent?.headers.get("authorization")).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`);
  });
});
