import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createNetwork, createServer, type Harness } from "../../../sandbox/hcloud/testing.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { rejection } from "../../testing.ts";
import { HcloudActionError } from "./actions.ts";
import { loadBalancerSchema } from "./load-balancer-schemas.ts";
import { HcloudLoadBalancers, SERVICE_UID_LABEL } from "./load-balancers.ts";
import { type ApiHarness, startApiHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

function setUp(options: Parameters<typeof startApiHarness>[0] = {}): ApiHarness & { lbs: HcloudLoadBalancers } {
  const started = startApiHarness(options);
  h = started.h;
  return { ...started, lbs: new HcloudLoadBalancers(started.t) };
}

const owned = (uid: string, name = `a${uid}`) => ({
  name,
  load_balancer_type: "lb11",
  location: "fsn1",
  labels: { [SERVICE_UID_LABEL]: uid },
});

describe("hcloud load balancers against the emulator", () => {
  test("creates one and finds it by its Service's label, by name and by ID; a missing one is undefined", async () => {
    const { lbs } = setUp({ actionDurationMs: 2_000 });
    const lb = await lbs.create(ctx, owned("u1", "web"));
    await lbs.create(ctx, owned("u2", "api"));
    expect(lb).toMatchObject({ name: "web", load_balancer_type: { name: "lb11" }, location: { name: "fsn1" } });
    expect(lb.public_net?.ipv4?.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await lbs.byServiceUID(ctx, "u1"))?.id).toBe(lb.id);
    expect((await lbs.list(ctx, SERVICE_UID_LABEL)).map((l) => l.name).sort()).toEqual(["api", "web"]);
    expect((await lbs.byName(ctx, "web"))?.id).toBe(lb.id);
    expect((await lbs.get(ctx, lb.id))?.name).toBe("web");
    expect(await lbs.byServiceUID(ctx, "nobody")).toBeUndefined();
    expect(await lbs.byName(ctx, "nothing")).toBeUndefined();
    expect(await lbs.get(ctx, 999_999)).toBeUndefined();
  });

  test("renames and relabels, the labels replaced as a whole", async () => {
    const { lbs } = setUp();
    const lb = await lbs.create(ctx, owned("u1", "old"));
    const updated = await lbs.update(ctx, lb.id, { name: "new", labels: { [SERVICE_UID_LABEL]: "u1", team: "web" } });
    expect(updated).toMatchObject({ name: "new", labels: { [SERVICE_UID_LABEL]: "u1", team: "web" } });
    expect((await lbs.get(ctx, lb.id))?.name).toBe("new");
  });

  test("adds, updates and deletes a service, each action ended before the call returns", async () => {
    const { lbs } = setUp({ actionDurationMs: 2_000 });
    const { id } = await lbs.create(ctx, owned("u1"));
    await lbs.addService(ctx, id, { listen_port: 80, protocol: "tcp", destination_port: 30080, proxyprotocol: true });
    await lbs.updateService(ctx, id, {
      listen_port: 80,
      protocol: "http",
      http: { sticky_sessions: true, cookie_name: "SESSION", timeout_idle: 90 },
      health_check: { protocol: "http", interval: 5, http: { path: "/healthz", status_codes: ["2??"] } },
    });
    const [service] = (await lbs.get(ctx, id))?.services ?? [];
    expect(service).toMatchObject({
      protocol: "http",
      listen_port: 80,
      destination_port: 30080,
      proxyprotocol: true,
      http: { sticky_sessions: true, cookie_name: "SESSION", timeout_idle: 90 },
      health_check: { protocol: "http", interval: 5, http: { path: "/healthz", status_codes: ["2??"] } },
    });
    await lbs.deleteService(ctx, id, 80);
    expect((await lbs.get(ctx, id))?.services).toEqual([]);
  });

  test("adds and removes server and IP targets", async () => {
    const { h, lbs } = setUp();
    const server = await createServer(h, "node-1");
    const { id } = await lbs.create(ctx, owned("u1"));
    await lbs.addTarget(ctx, id, { type: "server", server: { id: server } });
    await lbs.addTarget(ctx, id, { type: "ip", ip: { ip: "203.0.113.7" } });
    expect((await lbs.get(ctx, id))?.targets).toEqual([
      { type: "server", server: { id: server }, use_private_ip: false },
      { type: "ip", ip: { ip: "203.0.113.7" } },
    ]);
    await lbs.removeTarget(ctx, id, { type: "server", server: { id: server } });
    expect((await lbs.get(ctx, id))?.targets).toEqual([{ type: "ip", ip: { ip: "203.0.113.7" } }]);
  });

  test("attaches to a network at a chosen address and detaches", async () => {
    const { h, lbs } = setUp({ actionDurationMs: 1_000 });
    const network = await createNetwork(h);
    const { id } = await lbs.create(ctx, owned("u1"));
    await lbs.attachToNetwork(ctx, id, { network, ip: "10.0.1.50" });
    expect((await lbs.get(ctx, id))?.private_net).toEqual([{ network, ip: "10.0.1.50" }]);
    await lbs.detachFromNetwork(ctx, id, network);
    expect((await lbs.get(ctx, id))?.private_net).toEqual([]);
  });

  test("changes the algorithm, the type, the public interface and the reverse DNS", async () => {
    const { h, lbs } = setUp();
    const network = await createNetwork(h);
    const lb = await lbs.create(ctx, { ...owned("u1"), network });
    const ipv4 = lb.public_net?.ipv4?.ip ?? "";
    await lbs.changeAlgorithm(ctx, lb.id, "least_connections");
    await lbs.changeType(ctx, lb.id, "lb21");
    await lbs.setPublicInterface(ctx, lb.id, false);
    await lbs.changeDNSPtr(ctx, lb.id, ipv4, "lb.example.com");
    const changed = await lbs.get(ctx, lb.id);
    expect(changed).toMatchObject({ algorithm: { type: "least_connections" }, load_balancer_type: { name: "lb21" } });
    expect(changed?.public_net).toMatchObject({ enabled: false, ipv4: { ip: ipv4, dns_ptr: "lb.example.com" } });
    await lbs.setPublicInterface(ctx, lb.id, true);
    expect((await lbs.get(ctx, lb.id))?.public_net?.enabled).toBe(true);
  });

  test("deletes one, and deleting it again succeeds", async () => {
    const { lbs } = setUp();
    const { id } = await lbs.create(ctx, owned("u1"));
    await lbs.delete(ctx, id);
    expect(await lbs.get(ctx, id)).toBeUndefined();
    await lbs.delete(ctx, id);
  });

  test("a refused write names the API's code, and a failed action names the operation", async () => {
    const { h, lbs } = setUp();
    await lbs.create(ctx, owned("u1", "taken"));
    const duplicate = await rejection(() => lbs.create(ctx, owned("u2", "taken")));
    expect(duplicate).toBeInstanceOf(CloudApiError);
    expect((duplicate as CloudApiError).code).toBe("uniqueness_error");
    const { id } = await lbs.create(ctx, owned("u3"));
    await lbs.addService(ctx, id, { listen_port: 443, protocol: "tcp", destination_port: 30443 });
    const again = await rejection(() =>
      lbs.addService(ctx, id, { listen_port: 443, protocol: "tcp", destination_port: 30443 }),
    );
    expect((again as CloudApiError).code).toBe("source_port_already_used");
    await h.call("PUT", "/_emulator/faults", { failActions: [{ command: "change_algorithm", count: 1 }] });
    const failed = await rejection(() => lbs.changeAlgorithm(ctx, id, "least_connections"));
    expect(failed).toBeInstanceOf(HcloudActionError);
    expect(failed.message).toStartWith("hcloud/load-balancers.changeAlgorithm: action ");
  });

  test("an answer with unknown fields, nulls and missing optional parts still reads", () => {
    const lb = v.parse(loadBalancerSchema, {
      id: 7,
      name: "web",
      load_balancer_type: { name: "lb11", future: true },
      labels: null,
      public_net: { ipv4: { ip: "203.0.113.1", dns_ptr: null }, ipv6: null },
      services: [{ protocol: "tcp", listen_port: 80, destination_port: 30080, health_check: null }],
      targets: [
        { type: "server", server: { id: 3 } },
        { type: "something_new", thing: {} },
      ],
      brand_new_field: { x: 1 },
    });
    expect(lb).toMatchObject({ id: 7, labels: {}, private_net: [], algorithm: null, location: null });
    expect(lb.public_net).toEqual({ enabled: true, ipv4: { ip: "203.0.113.1", dns_ptr: "" }, ipv6: null });
    expect(lb.targets).toEqual([
      { type: "server", server: { id: 3 }, use_private_ip: false },
      { type: "something_new", thing: {} },
    ]);
  });
});
