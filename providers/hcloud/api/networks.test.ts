import { afterEach, describe, expect, test } from "bun:test";
import { createNetwork, type Harness } from "../../../sandbox/hcloud/testing.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { rejection } from "../../testing.ts";
import { HcloudActionError } from "./actions.ts";
import { HcloudNetworks } from "./networks.ts";
import { type ApiHarness, startApiHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

function setUp(options: Parameters<typeof startApiHarness>[0] = {}): ApiHarness & { networks: HcloudNetworks } {
  const started = startApiHarness(options);
  h = started.h;
  return { ...started, networks: new HcloudNetworks(started.t) };
}

const route = { destination: "10.244.1.0/24", gateway: "10.0.1.2" };

describe("hcloud networks against the emulator", () => {
  test("finds a network by ID and by name, and says undefined for one that is not there", async () => {
    const { h, networks } = setUp();
    const id = await createNetwork(h, "k8s");
    await createNetwork(h, "k8s-other");
    expect(await networks.getNetwork(ctx, String(id))).toEqual({ id, name: "k8s", ipRange: "10.0.0.0/16", routes: [] });
    expect((await networks.getNetwork(ctx, "k8s"))?.id).toBe(id);
    expect(await networks.getNetwork(ctx, "nope")).toBeUndefined();
    expect(await networks.getNetwork(ctx, "999999")).toBeUndefined();
  });

  test("adds and deletes a route, following each action to its end", async () => {
    const { h, networks } = setUp({ actionDurationMs: 2_000 });
    const id = await createNetwork(h);
    await networks.addRoute(ctx, id, route);
    expect((await networks.getNetwork(ctx, String(id)))?.routes).toEqual([route]);
    // The network is no longer locked: the add's action ended before addRoute returned.
    await networks.deleteRoute(ctx, id, route);
    expect((await networks.getNetwork(ctx, String(id)))?.routes).toEqual([]);
  });

  test("deleting a route that is already gone succeeds; on a network that is gone it fails", async () => {
    const { h, networks } = setUp();
    const id = await createNetwork(h);
    await networks.deleteRoute(ctx, id, route);
    const err = await rejection(() => networks.deleteRoute(ctx, 999999, route));
    expect(err).toBeInstanceOf(CloudApiError);
    expect((err as CloudApiError).code).toBe("not_found");
  });

  test("a refused route names the field, and a failed action names the action", async () => {
    const { h, networks } = setUp({ actionDurationMs: 1_000 });
    const id = await createNetwork(h);
    const refused = await rejection(() =>
      networks.addRoute(ctx, id, { destination: "10.244.1.0/24", gateway: "192.168.0.1" }),
    );
    expect(refused.message).toContain("gateway: 192.168.0.1 must be an address inside 10.0.0.0/16");
    await h.call("PUT", "/_emulator/faults", { failActions: [{ command: "add_route", count: 1 }] });
    const failed = await rejection(() => networks.addRoute(ctx, id, route));
    expect(failed).toBeInstanceOf(HcloudActionError);
    expect(failed.message).toStartWith("hcloud/networks.addRoute: action ");
  });
});
