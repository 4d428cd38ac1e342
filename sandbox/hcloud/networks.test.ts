import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { selfSignedTls } from "../apiserver/tls.ts";
import { createNetwork, createServer, type Harness, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

describe("networks", () => {
  test("routes are added and deleted; each bad route names its field", async () => {
    const id = await createNetwork(h);
    const post = (action: string, body: unknown) => h.call("POST", `/networks/${id}/actions/${action}`, body);
    expect((await post("add_route", { destination: "10.244.1.0/24", gateway: "10.0.1.2" })).status).toBe(201);
    const cases: [unknown, string, string][] = [
      [{ destination: "10.244.1.0/24", gateway: "10.0.1.3" }, "invalid_input", "destination"],
      [{ destination: "10.244.2.1/24", gateway: "10.0.1.3" }, "invalid_input", "destination"],
      [{ destination: "10.244.2.0/24", gateway: "192.168.0.2" }, "invalid_input", "gateway"],
      [{ destination: "10.244.2.0/24", gateway: "10.0.0.1" }, "invalid_input", "gateway"],
      [{ destination: "10.244.2.0/24" }, "invalid_input", "gateway"],
    ];
    for (const [body, code, field] of cases) {
      const answer = await post("add_route", body);
      expect([answer.body.error.code, answer.body.error.details.fields[0].name]).toEqual([code, field]);
    }
    expect((await post("delete_route", { destination: "10.244.9.0/24", gateway: "10.0.1.2" })).body.error.code).toBe(
      "not_found",
    );
    expect((await post("delete_route", { destination: "10.244.1.0/24", gateway: "10.0.1.2" })).status).toBe(201);
    expect((await h.call("GET", `/networks/${id}`)).body.network.routes).toEqual([]);
  });

  test("subnets: a free /24 is chosen, overlaps refused; a server in a zone without a subnet gets no_subnet_available", async () => {
    const id = await createNetwork(h);
    const post = (action: string, body: unknown) => h.call("POST", `/networks/${id}/actions/${action}`, body);
    expect((await post("add_subnet", { type: "cloud", network_zone: "us-east" })).status).toBe(201);
    const subnets = (await h.call("GET", `/networks/${id}`)).body.network.subnets;
    expect(subnets.map((s: { ip_range: string; network_zone: string }) => [s.ip_range, s.network_zone])).toEqual([
      ["10.0.1.0/24", "eu-central"],
      ["10.0.0.0/24", "us-east"],
    ]);
    expect(
      (await post("add_subnet", { type: "cloud", network_zone: "us-west", ip_range: "10.0.1.128/25" })).body.error.code,
    ).toBe("networks_overlap");
    const answer = await h.call("POST", "/servers", {
      name: "sin-1",
      server_type: "cx22",
      image: "x",
      location: "sin",
      networks: [id],
    });
    expect(answer.body.error.code).toBe("no_subnet_available");
    expect(
      (await h.call("POST", "/networks", { name: "public", ip_range: "8.8.0.0/16" })).body.error.details.fields[0].name,
    ).toBe("ip_range");
  });

  test("a server attached later gets the next private address; the network lists it; detach removes it", async () => {
    const id = await createNetwork(h);
    await createServer(h, "node-1", { networks: [id] });
    const server = await createServer(h, "node-2");
    expect((await h.call("POST", `/servers/${server}/actions/attach_to_network`, { network: id })).status).toBe(201);
    expect((await h.call("GET", `/servers/${server}`)).body.server.private_net[0].ip).toBe("10.0.1.3");
    expect((await h.call("GET", `/networks/${id}`)).body.network.servers).toHaveLength(2);
    expect((await h.call("POST", `/servers/${server}/actions/detach_from_network`, { network: id })).status).toBe(201);
    const again = await h.call("POST", `/servers/${server}/actions/detach_from_network`, { network: id });
    expect(again.body.error.code).toBe("server_not_attached_to_network");
  });
});

describe("certificates", () => {
  test("an uploaded certificate is read for its names, validity and fingerprint; a bad PEM names its field", async () => {
    const tls = await selfSignedTls(h.clock.now);
    const created = await h.call("POST", "/certificates", { name: "web", certificate: tls.cert, private_key: tls.key });
    expect(created.status).toBe(201);
    expect(created.body.certificate).toMatchObject({
      type: "uploaded",
      domain_names: ["localhost"],
      fingerprint: expect.stringMatching(/^[0-9A-F:]+$/),
      used_by: [],
    });
    expect(created.body.action).toBeNull();
    const bad = await h.call("POST", "/certificates", { name: "bad", certificate: "nope", private_key: tls.key });
    expect(bad.body.error.details.fields[0].name).toBe("certificate");
  });

  test("a managed certificate is pending until its action ends; a failed issuance is retried; one in use is not deleted", async () => {
    await h.call("PUT", "/_emulator/settings", { actionDurationMs: 1000 });
    await h.call("PUT", "/_emulator/faults", { failActions: [{ command: "create_certificate", count: 1 }] });
    const created = await h.call("POST", "/certificates", {
      name: "managed",
      type: "managed",
      domain_names: ["example.com"],
    });
    const id = created.body.certificate.id;
    expect(created.body.certificate.status.issuance).toBe("pending");
    h.clock.advance(1000);
    expect((await h.call("GET", `/certificates/${id}`)).body.certificate.status).toMatchObject({
      issuance: "failed",
      error: { code: "action_failed" },
    });
    expect((await h.call("POST", `/certificates/${id}/actions/retry`)).status).toBe(201);
    h.clock.advance(1000);
    expect((await h.call("GET", `/certificates/${id}`)).body.certificate).toMatchObject({
      status: { issuance: "completed" },
      not_valid_after: expect.any(String),
    });
    expect((await h.call("GET", "/certificates?type=managed")).body.certificates).toHaveLength(1);
    await h.call("PUT", "/_emulator/settings", { actionDurationMs: 0 });
    const lb = await h.call("POST", "/load_balancers", {
      name: "lb",
      load_balancer_type: "lb11",
      location: "fsn1",
      services: [{ protocol: "https", http: { certificates: [id] } }],
    });
    expect(lb.status).toBe(201);
    expect((await h.call("GET", `/certificates/${id}`)).body.certificate.used_by).toEqual([
      { id: lb.body.load_balancer.id, type: "load_balancer" },
    ]);
    expect((await h.call("DELETE", `/certificates/${id}`)).body.error.code).toBe("conflict");
  });
});
