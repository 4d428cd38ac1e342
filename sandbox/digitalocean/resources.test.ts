import { afterEach, describe, expect, test } from "bun:test";
import { type Harness, lbBody, startHarness } from "./testing.ts";

let h: Harness;
afterEach(() => h.stop());

const custom = {
  name: "web",
  type: "custom",
  private_key: "-----BEGIN PRIVATE KEY-----",
  leaf_certificate: "-----BEGIN CERTIFICATE-----",
};
const firewall = {
  name: "k8s-nodes",
  inbound_rules: [{ protocol: "tcp", ports: "30000-32767", sources: { load_balancer_uids: ["lb-1"] } }],
};

describe("certificates", () => {
  test("creates, lists by name, gets, is used by a rule and deletes", async () => {
    h = startHarness();
    const created = await h.call("POST", "/certificates", custom);
    expect(created.status).toBe(201);
    expect(created.body.certificate).toMatchObject({ name: "web", type: "custom", state: "verified" });
    const id = created.body.certificate.id;
    await h.call("POST", "/certificates", { name: "le", type: "lets_encrypt", dns_names: ["example.com"] });
    const byName = await h.call("GET", "/certificates?name=web");
    expect(byName.body.certificates.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(byName.body.meta.total).toBe(1);
    expect((await h.call("GET", `/certificates/${id}`)).body.certificate.id).toBe(id);
    const https = {
      entry_protocol: "https",
      entry_port: 443,
      target_protocol: "http",
      target_port: 80,
      certificate_id: id,
    };
    expect((await h.call("POST", "/load_balancers", lbBody({ forwarding_rules: [https] }))).status).toBe(202);
    expect((await h.call("DELETE", `/certificates/${id}`)).status).toBe(204);
    expect((await h.call("GET", `/certificates/${id}`)).status).toBe(404);
  });

  test.each<[string, Record<string, unknown>]>([
    ["no name", { ...custom, name: undefined }],
    ["a custom one without its key", { ...custom, private_key: undefined }],
    ["a custom one without its leaf certificate", { ...custom, leaf_certificate: undefined }],
    ["a Let's Encrypt one without dns_names", { name: "le", type: "lets_encrypt" }],
    ["an unknown type", { ...custom, type: "self_signed" }],
  ])("refuses %s with 422", async (_, body) => {
    h = startHarness();
    const answer = await h.call("POST", "/certificates", body);
    expect(answer.status).toBe(422);
    expect(answer.body.id).toBe("unprocessable_entity");
  });
});

describe("tags", () => {
  test("creating a tag twice answers it both times; tagging and untagging a Droplet", async () => {
    h = startHarness();
    const id = h.droplet({ name: "a" });
    expect((await h.call("POST", "/tags", { name: "k8s:cluster-1" })).status).toBe(201);
    expect((await h.call("POST", "/tags", { name: "k8s:cluster-1" })).status).toBe(201);
    const resources = { resources: [{ resource_id: String(id), resource_type: "droplet" }] };
    expect((await h.call("POST", "/tags/k8s:cluster-1/resources", resources)).status).toBe(204);
    expect((await h.call("GET", `/droplets/${id}`)).body.droplet.tags).toEqual(["k8s:cluster-1"]);
    const tag = (await h.call("GET", "/tags/k8s:cluster-1")).body.tag;
    expect(tag).toMatchObject({ name: "k8s:cluster-1", resources: { count: 1, droplets: { count: 1 } } });
    expect((await h.call("DELETE", "/tags/k8s:cluster-1/resources", resources)).status).toBe(204);
    expect((await h.call("GET", `/droplets/${id}`)).body.droplet.tags).toEqual([]);
  });

  test.each<[string, string, unknown, number]>([
    ["a name outside the pattern", "/tags", { name: "has space" }, 422],
    ["no name", "/tags", {}, 422],
    [
      "tagging under an unknown tag",
      "/tags/nope/resources",
      { resources: [{ resource_id: "1", resource_type: "droplet" }] },
      404,
    ],
  ])("refuses %s", async (_, path, body, status) => {
    h = startHarness();
    expect((await h.call("POST", path, body)).status).toBe(status);
  });

  test("tagging needs resources, and a Droplet that exists", async () => {
    h = startHarness();
    await h.call("POST", "/tags", { name: "k8s" });
    expect((await h.call("POST", "/tags/k8s/resources", {})).status).toBe(422);
    const missing = { resources: [{ resource_id: "42", resource_type: "droplet" }] };
    expect((await h.call("POST", "/tags/k8s/resources", missing)).status).toBe(404);
  });
});

describe("firewalls", () => {
  test("creates (202, succeeded), gets, updates, lists and deletes", async () => {
    h = startHarness();
    const created = await h.call("POST", "/firewalls", firewall);
    expect(created.status).toBe(202);
    expect(created.body.firewall).toMatchObject({
      name: "k8s-nodes",
      status: "succeeded",
      outbound_rules: [],
      tags: [],
    });
    const id = created.body.firewall.id;
    const updated = await h.call("PUT", `/firewalls/${id}`, { ...firewall, tags: ["k8s"] });
    expect(updated.status).toBe(200);
    expect(updated.body.firewall.tags).toEqual(["k8s"]);
    expect((await h.call("GET", `/firewalls/${id}`)).body.firewall.tags).toEqual(["k8s"]);
    expect((await h.call("GET", "/firewalls")).body.meta.total).toBe(1);
    expect((await h.call("DELETE", `/firewalls/${id}`)).status).toBe(204);
    expect((await h.call("GET", `/firewalls/${id}`)).status).toBe(404);
  });

  test.each<[string, Record<string, unknown>]>([
    ["no name", { ...firewall, name: undefined }],
    ["no rules at all", { name: "fw" }],
    ["an inbound rule without sources", { name: "fw", inbound_rules: [{ protocol: "tcp", ports: "80" }] }],
    ["an outbound rule without destinations", { name: "fw", outbound_rules: [{ protocol: "tcp", ports: "80" }] }],
    ["a rule without ports", { name: "fw", inbound_rules: [{ protocol: "tcp", sources: {} }] }],
    ["an unknown protocol", { name: "fw", inbound_rules: [{ protocol: "gre", ports: "80", sources: {} }] }],
  ])("refuses %s with 422", async (_, body) => {
    h = startHarness();
    expect((await h.call("POST", "/firewalls", body)).status).toBe(422);
  });
});
