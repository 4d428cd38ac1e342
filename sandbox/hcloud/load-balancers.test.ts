import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createNetwork, createServer, type Harness, startHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness;
beforeEach(() => {
  h = startHarness({ actionDurationMs: 2000 });
});
afterEach(() => h.stop());

const actionSchema = v.object({
  action: v.object({
    id: v.number(),
    status: v.picklist(["running", "success", "error"]),
    error: v.nullable(v.object({ code: v.string() })),
  }),
});

/** What the hcloud provider will do: poll GET /actions/{id} every 500ms until the action ends. */
async function follow(id: number) {
  const client = h.client();
  for (let polls = 1; ; polls++) {
    const { action } = await client.request(ctx, {
      operation: "getAction",
      method: "GET",
      path: `/actions/${id}`,
      answer: actionSchema,
    });
    if (action.status !== "running") return { action, polls };
    await h.clock.sleep(500);
  }
}

async function createLb(extra: Record<string, unknown> = {}) {
  const answer = await h.call("POST", "/load_balancers", {
    name: "lb-1",
    load_balancer_type: "lb11",
    location: "fsn1",
    ...extra,
  });
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
  h.clock.advance(2000);
  return answer.body.load_balancer.id as number;
}

describe("actions", () => {
  test("an action runs, locks its load balancer, and ends in success on the clock; the kit follows it", async () => {
    const id = await createLb();
    const added = await h.call("POST", `/load_balancers/${id}/actions/add_service`, {
      protocol: "tcp",
      listen_port: 80,
      destination_port: 30080,
    });
    expect(added.status).toBe(201);
    expect(added.body.action).toMatchObject({
      command: "add_service",
      status: "running",
      progress: 0,
      finished: null,
      resources: [{ id, type: "load_balancer" }],
    });
    const locked = await h.call("POST", `/load_balancers/${id}/actions/change_algorithm`, {
      type: "least_connections",
    });
    expect([locked.status, locked.body.error.code]).toEqual([423, "locked"]);
    expect((await h.call("GET", `/load_balancers/${id}`)).status).toBe(200);
    const { action, polls } = await follow(added.body.action.id);
    expect(action.status).toBe("success");
    expect(polls).toBe(5);
    expect(
      (await h.call("POST", `/load_balancers/${id}/actions/change_algorithm`, { type: "least_connections" })).status,
    ).toBe(201);
    const listed = await h.call("GET", `/load_balancers/${id}/actions?sort=id`);
    expect(listed.body.actions.map((a: { command: string }) => a.command)).toEqual([
      "create_load_balancer",
      "add_service",
      "change_algorithm",
    ]);
    const batch = await h.call("GET", `/actions?id=${added.body.action.id}&status=success`);
    expect(batch.body.actions).toHaveLength(1);
  });

  test("a failActions rule ends the action in error and changes nothing", async () => {
    const id = await createLb();
    await h.call("PUT", "/_emulator/faults", { failActions: [{ command: "add_service", count: 1 }] });
    const added = await h.call("POST", `/load_balancers/${id}/actions/add_service`, {
      protocol: "tcp",
      listen_port: 80,
      destination_port: 30080,
    });
    const { action } = await follow(added.body.action.id);
    expect(action).toMatchObject({ status: "error", error: { code: "action_failed" } });
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.services).toEqual([]);
  });
});

describe("load balancers", () => {
  beforeEach(async () => {
    await h.call("PUT", "/_emulator/settings", { actionDurationMs: 0 });
  });

  test("services: defaults, partial update, and the errors of a duplicate port, a missing one, an incomplete health check and https without a certificate", async () => {
    const id = await createLb();
    const post = (action: string, body: unknown) => h.call("POST", `/load_balancers/${id}/actions/${action}`, body);
    const check = { protocol: "http", port: 80, interval: 15, timeout: 10, retries: 3, http: { path: "/healthz" } };
    expect((await post("add_service", { protocol: "http", health_check: check })).status).toBe(201);
    const service = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.services[0];
    expect(service).toMatchObject({
      protocol: "http",
      listen_port: 80,
      destination_port: 80,
      proxyprotocol: false,
      http: { cookie_name: "HCLBSTICKY", sticky_sessions: false, certificates: [] },
      health_check: {
        protocol: "http",
        port: 80,
        interval: 15,
        timeout: 10,
        retries: 3,
        http: { path: "/healthz", status_codes: ["2??", "3??"] },
      },
    });
    expect(
      (await post("update_service", { listen_port: 80, proxyprotocol: true, health_check: { interval: 5 } })).status,
    ).toBe(201);
    const updated = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.services[0];
    expect(updated).toMatchObject({ proxyprotocol: true, health_check: { interval: 5, http: { path: "/healthz" } } });
    const cases: [string, unknown, string][] = [
      ["add_service", { protocol: "tcp", listen_port: 80, destination_port: 1 }, "source_port_already_used"],
      ["add_service", { protocol: "tcp", listen_port: 81 }, "invalid_input"],
      ["add_service", { protocol: "https" }, "invalid_input"],
      [
        "add_service",
        { protocol: "tcp", listen_port: 82, destination_port: 1, health_check: { protocol: "tcp", port: 1 } },
        "invalid_input",
      ],
      ["update_service", { listen_port: 8080, proxyprotocol: true }, "not_found"],
      ["delete_service", { listen_port: 8080 }, "not_found"],
    ];
    for (const [action, body, code] of cases)
      expect([action, (await post(action, body)).body.error?.code]).toEqual([action, code]);
    expect((await post("delete_service", { listen_port: 80 })).status).toBe(201);
  });

  test("targets: server, label_selector resolved to its servers, ip; duplicates and cloud IPs refused", async () => {
    const s1 = await createServer(h, "node-1", { labels: { pool: "a" } });
    await createServer(h, "node-2", { labels: { pool: "a" } });
    const id = await createLb({ services: [{ protocol: "tcp", listen_port: 443, destination_port: 30443 }] });
    const post = (action: string, body: unknown) => h.call("POST", `/load_balancers/${id}/actions/${action}`, body);
    expect((await post("add_target", { type: "server", server: { id: s1 } })).status).toBe(201);
    expect((await post("add_target", { type: "label_selector", label_selector: { selector: "pool=a" } })).status).toBe(
      201,
    );
    expect((await post("add_target", { type: "ip", ip: { ip: "198.51.100.7" } })).status).toBe(201);
    expect((await post("add_target", { type: "server", server: { id: s1 } })).body.error.code).toBe(
      "target_already_defined",
    );
    const cloudIp = (await h.call("GET", `/servers/${s1}`)).body.server.public_net.ipv4.ip;
    expect((await post("add_target", { type: "ip", ip: { ip: cloudIp } })).body.error.code).toBe(
      "cloud_resource_ip_not_allowed",
    );
    expect(
      (await post("add_target", { type: "server", server: { id: s1 }, use_private_ip: true })).body.error.code,
    ).toBe("target_already_defined");
    const lb = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer;
    expect(lb.targets[0]).toMatchObject({
      type: "server",
      server: { id: s1 },
      health_status: [{ listen_port: 443, status: "healthy" }],
    });
    expect(lb.targets[1].targets.map((t: { server: { id: number } }) => t.server.id)).toHaveLength(2);
    expect((await h.call("GET", `/servers/${s1}`)).body.server.load_balancers).toEqual([id]);
    expect((await post("remove_target", { type: "ip", ip: { ip: "198.51.100.7" } })).status).toBe(201);
    expect((await post("remove_target", { type: "ip", ip: { ip: "198.51.100.7" } })).body.error.code).toBe(
      "target_not_found",
    );
  });

  test("private network: attach, private targets, public interface off, detach refused while it is the only way in", async () => {
    const network = await createNetwork(h);
    const server = await createServer(h, "node-1", { networks: [network] });
    const outside = await createServer(h, "node-2");
    const id = await createLb({ network_zone: "eu-central", location: undefined });
    const post = (action: string, body: unknown = {}) =>
      h.call("POST", `/load_balancers/${id}/actions/${action}`, body);
    expect(
      (await post("add_target", { type: "server", server: { id: server }, use_private_ip: true })).body.error.code,
    ).toBe("load_balancer_not_attached_to_network");
    expect((await post("disable_public_interface")).body.error.code).toBe("load_balancer_not_attached_to_network");
    expect((await post("attach_to_network", { network, ip: "10.0.1.50" })).status).toBe(201);
    expect((await post("attach_to_network", { network })).body.error.code).toBe("load_balancer_already_attached");
    expect(
      (await post("add_target", { type: "server", server: { id: outside }, use_private_ip: true })).body.error.code,
    ).toBe("server_not_attached_to_network");
    expect((await post("add_target", { type: "server", server: { id: server }, use_private_ip: true })).status).toBe(
      201,
    );
    expect((await post("disable_public_interface")).status).toBe(201);
    const lb = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer;
    expect(lb.public_net.enabled).toBe(false);
    expect(lb.private_net).toEqual([{ network, ip: "10.0.1.50" }]);
    expect((await h.call("GET", `/networks/${network}`)).body.network.load_balancers).toEqual([id]);
    expect((await post("detach_from_network", { network })).body.error.code).toBe("conflict");
  });

  test("attach_to_network with ip_range takes the address from that subnet; a range the network lacks is invalid_input", async () => {
    const network = await createNetwork(h);
    const added = await h.call("POST", `/networks/${network}/actions/add_subnet`, {
      type: "cloud",
      network_zone: "eu-central",
      ip_range: "10.0.2.0/24",
    });
    expect(added.status).toBe(201);
    const id = await createLb();
    const post = (body: unknown) => h.call("POST", `/load_balancers/${id}/actions/attach_to_network`, body);
    const wrong = await post({ network, ip_range: "10.0.9.0/24" });
    expect(wrong.body.error).toMatchObject({ code: "invalid_input", details: { fields: [{ name: "ip_range" }] } });
    expect((await post({ network, ip_range: "10.0.2.0/24" })).status).toBe(201);
    const lb = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer;
    expect(lb.private_net).toEqual([{ network, ip: expect.stringMatching(/^10\.0\.2\./) }]);
  });

  test("rDNS, algorithm, type, name and labels, protection and delete", async () => {
    const id = await createLb({ labels: { "hcloud-ccm/service-uid": "u-1" } });
    const post = (action: string, body: unknown) => h.call("POST", `/load_balancers/${id}/actions/${action}`, body);
    const ipv4 = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.public_net.ipv4.ip;
    expect((await post("change_dns_ptr", { ip: ipv4, dns_ptr: "lb.example.com" })).status).toBe(201);
    expect((await post("change_dns_ptr", { ip: "192.0.2.1", dns_ptr: "x" })).body.error.details.fields[0].name).toBe(
      "ip",
    );
    expect((await post("change_algorithm", { type: "least_connections" })).status).toBe(201);
    expect((await post("change_type", { load_balancer_type: "lb21" })).status).toBe(201);
    expect((await post("change_type", { load_balancer_type: "lb99" })).body.error.code).toBe("invalid_input");
    const put = await h.call("PUT", `/load_balancers/${id}`, { name: "renamed", labels: { a: "b" } });
    expect(put.body.load_balancer).toMatchObject({
      name: "renamed",
      labels: { a: "b" },
      algorithm: { type: "least_connections" },
      load_balancer_type: { name: "lb21" },
      public_net: { ipv4: { ip: ipv4, dns_ptr: "lb.example.com" } },
    });
    expect((await h.call("GET", "/load_balancers?label_selector=a=b")).body.load_balancers).toHaveLength(1);
    expect((await post("change_protection", { delete: true })).status).toBe(201);
    expect((await h.call("DELETE", `/load_balancers/${id}`)).body.error.code).toBe("protected");
    await post("change_protection", { delete: false });
    expect((await h.call("DELETE", `/load_balancers/${id}`)).status).toBe(204);
    expect((await h.call("GET", `/load_balancers/${id}`)).status).toBe(404);
  });
});

describe("load balancer types' deprecation", () => {
  const phasedOut = { announced: "2026-09-01T00:00:00+00:00", unavailable_after: "2026-12-01T00:00:00+00:00" };

  test("a type is sent with deprecation null until the settings phase it out; then in the catalogue and inside its load balancers", async () => {
    const id = await createLb();
    const lbType = async () => (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.load_balancer_type;
    expect(await lbType()).toMatchObject({ name: "lb11", deprecated: null, deprecation: null });

    const set = await h.call("PUT", "/_emulator/settings", { loadBalancerTypeDeprecations: { lb11: phasedOut } });
    expect(set.body.settings.loadBalancerTypeDeprecations).toEqual({ lb11: phasedOut });
    expect(await lbType()).toMatchObject({ name: "lb11", deprecated: phasedOut.announced, deprecation: phasedOut });
    const listed = (await h.call("GET", "/load_balancer_types")).body.load_balancer_types;
    expect(listed.map((t: { name: string; deprecation: unknown }) => [t.name, t.deprecation])).toEqual([
      ["lb11", phasedOut],
      ["lb21", null],
      ["lb31", null],
    ]);
    expect((await h.call("GET", "/load_balancer_types/1")).body.load_balancer_type.deprecation).toEqual(phasedOut);

    await h.call("PUT", "/_emulator/settings", { loadBalancerTypeDeprecations: { lb11: null } });
    expect(await lbType()).toMatchObject({ deprecated: null, deprecation: null });
  });

  test.each([
    ["a time that is not ISO-8601", { lb11: { announced: "soon", unavailable_after: phasedOut.unavailable_after } }],
    ["a field the API does not have", { lb11: { ...phasedOut, reason: "old" } }],
  ])("the settings refuse %s", async (_what, loadBalancerTypeDeprecations) => {
    const answer = await h.call("PUT", "/_emulator/settings", { loadBalancerTypeDeprecations });
    expect(answer.body.error.code).toBe("invalid_input");
  });
});
