import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createNetwork, createServer, type Harness } from "../../../sandbox/hcloud/testing.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { rejection } from "../../testing.ts";
import { actionAnswer, followAction, HcloudActionError } from "./actions.ts";
import { hcloudErrorOf, listAll } from "./client.ts";
import { type ApiHarness, startApiHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** Starts the action that routes 10.244.0.0/24 through 10.0.1.1 in `network`. */
const addRoute = (t: ApiHarness["t"], network: number) =>
  t.client.request(ctx, {
    operation: "addRoute",
    method: "POST",
    path: `/networks/${network}/actions/add_route`,
    body: { destination: "10.244.0.0/24", gateway: "10.0.1.1" },
    answer: actionAnswer,
  });

function setUp(options: Parameters<typeof startApiHarness>[0] = {}): ApiHarness {
  const started = startApiHarness(options);
  h = started.h;
  return started;
}

describe("hcloud error envelope", () => {
  test.each([
    [
      "code and message",
      { error: { code: "locked", message: "server 1 is locked" } },
      { code: "locked", message: "server 1 is locked" },
    ],
    [
      "the fields an invalid_input names, with their messages",
      {
        error: {
          code: "invalid_input",
          message: "invalid input in field 'name'",
          details: { fields: [{ name: "name", messages: ["must be a valid host name"] }] },
        },
      },
      { code: "invalid_input", message: "invalid input in field 'name' (name: must be a valid host name)" },
    ],
    [
      "a field named without messages",
      { error: { code: "uniqueness_error", message: "name is already used", details: { fields: [{ name: "name" }] } } },
      { code: "uniqueness_error", message: "name is already used (name)" },
    ],
    [
      "the limit a resource_limit_exceeded names",
      {
        error: {
          code: "resource_limit_exceeded",
          message: "project limit exceeded",
          details: { limits: [{ name: "project_limit" }] },
        },
      },
      { code: "resource_limit_exceeded", message: "project limit exceeded (limit: project_limit)" },
    ],
    [
      "every limit it names",
      {
        error: {
          code: "resource_limit_exceeded",
          message: "limits exceeded",
          details: { limits: [{ name: "servers" }, { name: "primary_ips" }] },
        },
      },
      { code: "resource_limit_exceeded", message: "limits exceeded (limits: servers, primary_ips)" },
    ],
    [
      "null details",
      { error: { code: "not_found", message: "x", details: null } },
      { code: "not_found", message: "x" },
    ],
    ["nothing from another shape", { something: "else" }, undefined],
    ["nothing from a proxy's page", "<html>bad gateway</html>", undefined],
  ])("reads %s", (_, body, want) => {
    expect(hcloudErrorOf(body)).toEqual(want);
  });
});

describe("hcloud transport against the emulator", () => {
  test("lists in pages of 50, one call per page", async () => {
    const { h, t } = setUp();
    for (let i = 0; i < 120; i++) await createServer(h, `node-${i}`);
    const item = v.object({ id: v.number(), name: v.string() });
    const servers = await listAll(t, ctx, { operation: "listServers", path: "/servers", key: "servers", item });
    expect(servers.map((s) => s.name)).toEqual(Array.from({ length: 120 }, (_, i) => `node-${i}`));
    expect(h.emulator.calls.count("GET /v1/servers")).toBe(3);
  });

  test("retries locked and conflict answers, even for a POST", async () => {
    const { h, t } = setUp();
    const network = await createNetwork(h);
    await h.call("PUT", "/_emulator/faults", {
      failNext: [
        { pathPrefix: "/networks", code: "locked", count: 1 },
        { pathPrefix: "/networks", code: "conflict", count: 1 },
      ],
    });
    const answer = await addRoute(t, network);
    expect(answer.action.status).toBe("success");
    expect(h.emulator.world.network(network).routes).toEqual([{ destination: "10.244.0.0/24", gateway: "10.0.1.1" }]);
  });

  test("a refused request names the field the API named", async () => {
    const { t } = setUp();
    const err = await rejection(() =>
      t.client.request(ctx, {
        operation: "createNetwork",
        method: "POST",
        path: "/networks",
        body: { name: "n", ip_range: "8.8.0.0/16" },
        answer: v.unknown(),
      }),
    );
    expect(err).toBeInstanceOf(CloudApiError);
    expect((err as CloudApiError).code).toBe("invalid_input");
    expect(err.message).toContain("ip_range: 8.8.0.0/16 must be a private range");
  });
});

describe("following actions", () => {
  test("polls a running action until it succeeds", async () => {
    const { h, t } = setUp({ actionDurationMs: 3_000 });
    const network = await createNetwork(h);
    const started = await addRoute(t, network);
    expect(started.action.status).toBe("running");
    const done = await followAction(t, ctx, started.action, { operation: "hcloud/networks.addRoute" });
    expect(done.status).toBe("success");
    expect(h.clock.waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3_000);
    console.log(`followed a 3 s action in ${h.emulator.calls.count("GET /v1/actions/:id")} polls`);
  });

  test("a failed action is an error with the action's code", async () => {
    const { h, t } = setUp({ actionDurationMs: 1_000 });
    const network = await createNetwork(h);
    await h.call("PUT", "/_emulator/faults", { failActions: [{ command: "add_route", count: 1 }] });
    const started = await addRoute(t, network);
    const err = await rejection(() => followAction(t, ctx, started.action, { operation: "hcloud/networks.addRoute" }));
    expect(err).toBeInstanceOf(HcloudActionError);
    expect(err.message).toStartWith(`hcloud/networks.addRoute: action ${started.action.id} (add_route) failed: `);
  });

  test("an action still running at the deadline is an error that says so", async () => {
    const { h, t } = setUp({ actionDurationMs: 60_000 });
    const network = await createNetwork(h);
    const started = await addRoute(t, network);
    const err = await rejection(() =>
      followAction(t, ctx, started.action, { operation: "hcloud/networks.addRoute", timeoutMs: 5_000 }),
    );
    expect(err.message).toContain("still running after 5000ms");
  });
});
