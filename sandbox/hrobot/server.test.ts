import { afterEach, describe, expect, test } from "bun:test";
import { LOCKOUT_MS } from "./limits.ts";
import { type RobotEmulator, type RobotEmulatorOptions, startRobotEmulator } from "./server.ts";

const users = [{ user: "#ws+abc", password: "s3cret-pass" }];
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const good = basic("#ws+abc", "s3cret-pass");

let robot: RobotEmulator | undefined;
let clock = Date.parse("2026-08-01T00:00:00Z");
afterEach(async () => {
  await robot?.stop();
  robot = undefined;
});

function start(o: Partial<RobotEmulatorOptions> = {}): RobotEmulator {
  robot = startRobotEmulator({ users, now: () => clock, ...o });
  return robot;
}

async function get(r: RobotEmulator, path: string, authorization: string | null = good, method = "GET") {
  const response = await fetch(`${r.url}${path}`, { method, headers: authorization ? { authorization } : {} });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe("Robot webservice emulator", () => {
  test("lists servers as an array of {server} wrappers, ordered by number, without the detail-only fields", async () => {
    const r = start();
    r.state.addServer({ name: "robot-2", number: 421, product: "Server Auction", dc: "HEL1-DC2", subnets: [] });
    r.state.addServer({ name: "robot-1", number: 321, ip: "203.0.113.7", ipv6Net: "2a01:4f8:111:4221::" });
    const { status, body } = await get(r, "/server");
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        server: {
          server_ip: "203.0.113.7",
          server_ipv6_net: "2a01:4f8:111:4221::",
          server_number: 321,
          server_name: "robot-1",
          product: "AX41-NVMe",
          dc: "FSN1-DC10",
          traffic: "unlimited",
          status: "ready",
          cancelled: false,
          paid_until: "2026-12-31",
          ip: ["203.0.113.7"],
          subnet: [{ ip: "2a01:4f8:111:4221::", mask: "64" }],
        },
      },
      expect.objectContaining({ server: expect.objectContaining({ server_number: 421, subnet: null }) }),
    ]);
  });

  test("answers one server with the detail-only fields, by number or by its main IPv4", async () => {
    const r = start();
    r.state.addServer({ name: "robot-1", number: 321, ip: "203.0.113.7" });
    const byNumber = await get(r, "/server/321");
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toEqual({
      server: expect.objectContaining({ server_number: 321, server_name: "robot-1", reset: true, rescue: true }),
    });
    expect((await get(r, "/server/203.0.113.7")).body).toEqual(byNumber.body);
  });

  test("reports the power state, which a test switches", async () => {
    const r = start();
    r.state.addServer({ name: "robot-1", number: 321 });
    expect((await get(r, "/reset/321")).body).toEqual({
      reset: expect.objectContaining({ server_number: 321, operating_status: "running", type: expect.any(Array) }),
    });
    r.state.updateServer(321, { operatingStatus: "shut off" });
    expect((await get(r, "/reset")).body).toEqual([
      { reset: expect.objectContaining({ server_number: 321, operating_status: "shut off" }) },
    ]);
  });

  test.each([
    ["an unknown server", "/server/999", 404, { status: 404, code: "SERVER_NOT_FOUND", message: "server not found" }],
    [
      "an unknown server's power",
      "/reset/999",
      404,
      { status: 404, code: "SERVER_NOT_FOUND", message: "server not found" },
    ],
    [
      "a listing of an empty account",
      "/server",
      404,
      { status: 404, code: "SERVER_NOT_FOUND", message: "No server found" },
    ],
    ["an unknown path", "/storagebox", 404, { status: 404, code: "NOT_FOUND", message: "Not Found" }],
  ])("answers %s in Robot's error envelope", async (_, path, status, error) => {
    const r = start();
    const got = await get(r, path);
    expect(got).toEqual({ status, body: { error } as never });
  });

  test("refuses writes: hccm only reads", async () => {
    const r = start();
    r.state.addServer({ name: "robot-1", number: 321 });
    const got = await get(r, "/server/321", good, "POST");
    expect(got.status).toBe(405);
    expect(r.state.getServer(321)?.name).toBe("robot-1");
  });

  test.each([
    ["no credentials", null],
    ["a wrong password", basic("#ws+abc", "wrong")],
    ["an unknown user", basic("#ws+xyz", "s3cret-pass")],
    ["another scheme", "Bearer s3cret-pass"],
  ])("answers 401 UNAUTHORIZED to %s", async (_, authorization) => {
    const r = start();
    const got = await get(r, "/server", authorization);
    expect(got).toEqual({
      status: 401,
      body: { error: { status: 401, code: "UNAUTHORIZED", message: "Unauthorized" } } as never,
    });
    expect(r.calls.at(-1)).toEqual({ method: "GET", path: "/server", status: 401 });
  });

  test("blocks an address for ten minutes after three failed logins, good credentials included", async () => {
    const r = start();
    r.state.addServer({ name: "robot-1" });
    for (let i = 0; i < 3; i++) expect((await get(r, "/server", basic("#ws+abc", "wrong"))).status).toBe(401);
    const blocked = await get(r, "/server");
    expect(blocked.status).toBe(401);
    expect(JSON.stringify(blocked.body)).toContain("too many failed logins; blocked until");
    clock += LOCKOUT_MS + 1;
    expect((await get(r, "/server")).status).toBe(200);
  });

  test("counts requests per user and endpoint group and answers 403 RATE_LIMIT_EXCEEDED past the limit", async () => {
    const r = start({ limits: { server: { maxRequests: 2, intervalSeconds: 60 } } });
    r.state.addServer({ name: "robot-1", number: 321 });
    expect((await get(r, "/server")).status).toBe(200);
    expect((await get(r, "/server/321")).status).toBe(200);
    expect(await get(r, "/server")).toEqual({
      status: 403,
      body: {
        error: {
          status: 403,
          code: "RATE_LIMIT_EXCEEDED",
          max_request: 2,
          interval: 60,
          message: "Rate limit exceeded",
        },
      } as never,
    });
    expect((await get(r, "/reset/321")).status).toBe(200); // its own budget
    clock += 60_001;
    expect((await get(r, "/server")).status).toBe(200);
  });

  test("has the documented limits by default", () => {
    const r = start();
    expect(r.limits.limit("server")).toEqual({ maxRequests: 200, intervalSeconds: 3600 });
    expect(r.limits.limit("reset")).toEqual({ maxRequests: 500, intervalSeconds: 3600 });
  });

  test("injects failures for a path prefix, and maintenance for everything, logging each call", async () => {
    const r = start();
    r.state.addServer({ name: "robot-1", number: 321 });
    r.faults.fail(500, "INTERNAL_ERROR", "internal error", 1, "/reset");
    expect((await get(r, "/server")).status).toBe(200);
    expect(await get(r, "/reset/321")).toEqual({
      status: 500,
      body: { error: { status: 500, code: "INTERNAL_ERROR", message: "internal error" } } as never,
    });
    expect((await get(r, "/reset/321")).status).toBe(200);
    r.faults.maintenance = true;
    expect((await get(r, "/server")).status).toBe(503);
    expect(r.calls.map((c) => `${c.method} ${c.path} ${c.status} ${c.user}`)).toEqual([
      "GET /server 200 #ws+abc",
      "GET /reset/321 500 #ws+abc",
      "GET /reset/321 200 #ws+abc",
      "GET /server 503 #ws+abc",
    ]);
  });
});
