import { afterEach, describe, expect, test } from "bun:test";
import { type Harness, lbBody, startHarness } from "./testing.ts";

let h: Harness;
afterEach(() => h.stop());

const rule = (entry: number, target: number, protocol = "tcp") => ({
  entry_protocol: protocol,
  entry_port: entry,
  target_protocol: protocol,
  target_port: target,
});

describe("load balancer lifecycle", () => {
  test("is new without an IP until the delay has passed, then active with an address from 203.0.113.0/24", async () => {
    h = startHarness({ lbActiveDelayMs: 5000 });
    const created = await h.call("POST", "/load_balancers", lbBody());
    expect(created.status).toBe(202);
    expect(created.body.load_balancer).toMatchObject({ status: "new", ip: "" });
    const id = created.body.load_balancer.id;
    h.clock.advance(4999);
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.status).toBe("new");
    h.clock.advance(1);
    const active = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer;
    expect(active.status).toBe("active");
    expect(active.ip).toMatch(/^203\.0\.113\.\d+$/);
  });

  test("the delay is a setting of the control API", async () => {
    h = startHarness({ lbActiveDelayMs: 60_000 });
    await h.call("PUT", "/_emulator/settings", { lbActiveDelayMs: 0 });
    expect((await h.call("POST", "/load_balancers", lbBody())).body.load_balancer.status).toBe("active");
  });

  test("fills the documented defaults", async () => {
    h = startHarness();
    const { body } = await h.call("POST", "/load_balancers", lbBody());
    expect(body.load_balancer).toMatchObject({
      algorithm: "round_robin",
      size_unit: 1,
      redirect_http_to_https: false,
      enable_proxy_protocol: false,
      http_idle_timeout_seconds: 60,
      health_check: { protocol: "http", port: 80, path: "/", check_interval_seconds: 10 },
      sticky_sessions: { type: "none" },
      forwarding_rules: [{ certificate_id: "", tls_passthrough: false }],
      region: { slug: "nyc3" },
      tag: "",
    });
  });

  test("updates with the whole body, lists and deletes", async () => {
    h = startHarness();
    const a = h.droplet({ name: "a" });
    const id = (await h.call("POST", "/load_balancers", lbBody({ droplet_ids: [a] }))).body.load_balancer.id;
    const updated = await h.call(
      "PUT",
      `/load_balancers/${id}`,
      lbBody({ name: "renamed", enable_proxy_protocol: true, droplet_ids: [] }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body.load_balancer).toMatchObject({ name: "renamed", enable_proxy_protocol: true, droplet_ids: [] });
    const listed = await h.call("GET", "/load_balancers");
    expect(listed.body.meta.total).toBe(1);
    expect((await h.call("DELETE", `/load_balancers/${id}`)).status).toBe(204);
    expect((await h.call("GET", `/load_balancers/${id}`)).status).toBe(404);
  });

  test("refuses to move a load balancer to another region", async () => {
    h = startHarness();
    const id = (await h.call("POST", "/load_balancers", lbBody())).body.load_balancer.id;
    const answer = await h.call("PUT", `/load_balancers/${id}`, lbBody({ region: "fra1" }));
    expect(answer.status).toBe(422);
  });
});

describe("backends", () => {
  test("a tag selects the Droplets carrying it, as they are tagged", async () => {
    h = startHarness();
    const a = h.droplet({ name: "a", tags: ["k8s"] });
    const b = h.droplet({ name: "b" });
    const id = (await h.call("POST", "/load_balancers", lbBody({ droplet_ids: undefined, tag: "k8s" }))).body
      .load_balancer.id;
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.droplet_ids).toEqual([a]);
    const tagged = await h.call("POST", "/tags/k8s/resources", {
      resources: [{ resource_id: String(b), resource_type: "droplet" }],
    });
    expect(tagged.status).toBe(204);
    const lb = (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer;
    expect(lb).toMatchObject({ tag: "k8s", droplet_ids: [a, b] });
    const refused = await h.call("POST", `/load_balancers/${id}/droplets`, { droplet_ids: [b] });
    expect(refused.status).toBe(422);
  });

  test("adds and removes Droplets by ID", async () => {
    h = startHarness();
    const [a, b] = [h.droplet({ name: "a" }), h.droplet({ name: "b" })];
    const id = (await h.call("POST", "/load_balancers", lbBody({ droplet_ids: [a] }))).body.load_balancer.id;
    expect((await h.call("POST", `/load_balancers/${id}/droplets`, { droplet_ids: [b, a] })).status).toBe(204);
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.droplet_ids).toEqual([a, b]);
    expect((await h.call("DELETE", `/load_balancers/${id}/droplets`, { droplet_ids: [a] })).status).toBe(204);
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.droplet_ids).toEqual([b]);
  });

  test("a deleted Droplet leaves the load balancers it was behind", async () => {
    h = startHarness();
    const a = h.droplet({ name: "a" });
    const id = (await h.call("POST", "/load_balancers", lbBody({ droplet_ids: [a] }))).body.load_balancer.id;
    await h.call("DELETE", `/_emulator/droplets/${a}`);
    expect((await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.droplet_ids).toEqual([]);
  });

  test("adds and removes forwarding rules", async () => {
    h = startHarness();
    const id = (await h.call("POST", "/load_balancers", lbBody())).body.load_balancer.id;
    const added = await h.call("POST", `/load_balancers/${id}/forwarding_rules`, {
      forwarding_rules: [rule(443, 30443)],
    });
    expect(added.status).toBe(204);
    const ports = async () =>
      (await h.call("GET", `/load_balancers/${id}`)).body.load_balancer.forwarding_rules.map(
        (r: { entry_port: number }) => r.entry_port,
      );
    expect(await ports()).toEqual([80, 443]);
    await h.call("DELETE", `/load_balancers/${id}/forwarding_rules`, { forwarding_rules: [rule(80, 30080, "http")] });
    expect(await ports()).toEqual([443]);
  });
});

describe("bodies the API refuses with 422", () => {
  test.each<[string, Record<string, unknown>]>([
    ["no region", lbBody({ region: undefined })],
    ["an unknown region", lbBody({ region: "mars1" })],
    ["no forwarding rules", lbBody({ forwarding_rules: undefined })],
    ["an empty list of forwarding rules", lbBody({ forwarding_rules: [] })],
    [
      "a rule without target_port",
      lbBody({ forwarding_rules: [{ entry_protocol: "tcp", entry_port: 80, target_protocol: "tcp" }] }),
    ],
    ["an unknown entry protocol", lbBody({ forwarding_rules: [rule(80, 80, "sctp")] })],
    ["a port past 65535", lbBody({ forwarding_rules: [rule(70000, 80)] })],
    ["one entry port twice", lbBody({ forwarding_rules: [rule(80, 1), rule(80, 2)] })],
    ["https without a certificate or passthrough", lbBody({ forwarding_rules: [rule(443, 80, "https")] })],
    [
      "an unknown certificate",
      lbBody({ forwarding_rules: [{ ...rule(443, 80, "https"), target_protocol: "http", certificate_id: "nope" }] }),
    ],
    ["neither droplet_ids nor tag", lbBody({ droplet_ids: undefined })],
    ["both droplet_ids and tag", lbBody({ tag: "k8s" })],
    ["an unknown Droplet", lbBody({ droplet_ids: [42] })],
    ["an idle timeout below 30 s", lbBody({ http_idle_timeout_seconds: 10 })],
    ["an unknown sticky sessions type", lbBody({ sticky_sessions: { type: "ip" } })],
    ["a health check protocol the API does not list", lbBody({ health_check: { protocol: "udp" } })],
  ])("%s", async (_, body) => {
    h = startHarness();
    const answer = await h.call("POST", "/load_balancers", body);
    expect(answer.status).toBe(422);
    expect(answer.body.id).toBe("unprocessable_entity");
    expect((await h.call("GET", "/load_balancers")).body.meta.total).toBe(0);
  });
});
