/**
 * The Scaleway emulator's own behaviour: filters as the API applies them, zoned lookups, the control API that makes
 * and changes what a CCM only reads, and calls counted by route.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, PRIVATE_NETWORK, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

const names = (body: { servers: { name: string }[] }) => body.servers.map((s) => s.name);

describe("the scaleway emulator", () => {
  test("name= matches part of the name, as the Instance API does; the caller compares exactly", async () => {
    for (const name of ["node-1", "node-10", "other"]) h.instance({ name });
    const { body } = await h.call("GET", "/instance/v1/zones/fr-par-1/servers?name=node-1");
    expect(names(body)).toEqual(["node-1", "node-10"]);
  });

  test("a server is found in its own zone only", async () => {
    const s = h.instance({ name: "node-1", zone: "nl-ams-1" });
    expect((await h.call("GET", `/instance/v1/zones/nl-ams-1/servers/${s.id}`)).status).toBe(200);
    expect((await h.call("GET", `/instance/v1/zones/fr-par-1/servers/${s.id}`)).status).toBe(404);
    const list = await h.call("GET", "/instance/v1/zones/fr-par-1/servers");
    expect(list.body.total_count).toBe(0);
    expect(list.headers.get("x-total-count")).toBe("0");
  });

  test("IPAM filters by resource, type and family, in the server's region", async () => {
    const s = h.instance({ name: "node-1", zone: "fr-par-2", private_networks: [PRIVATE_NETWORK] });
    const nic = s.privateNics[0]?.id ?? "";
    const q = `resource_type=instance_private_nic&resource_id=${nic}`;
    expect((await h.call("GET", `/ipam/v1/regions/fr-par/ips?${q}`)).body.total_count).toBe(2);
    expect((await h.call("GET", `/ipam/v1/regions/fr-par/ips?${q}&is_ipv6=true`)).body.ips[0].is_ipv6).toBe(true);
    expect((await h.call("GET", `/ipam/v1/regions/nl-ams/ips?${q}`)).body.total_count).toBe(0);
    expect(
      (await h.call("GET", "/ipam/v1/regions/fr-par/ips?resource_type=baremetal_private_nic")).body.total_count,
    ).toBe(0);
  });

  test("the control API makes, changes and deletes servers; their IPAM IPs go with them", async () => {
    const made = await h.call("POST", "/_emulator/instance/servers", {
      name: "node-1",
      zone: "pl-waw-1",
      private_networks: [PRIVATE_NETWORK],
    });
    expect(made.status).toBe(201);
    const id = made.body.server.id;
    const changed = await h.call("PATCH", `/_emulator/instance/servers/${id}`, { state: "stopped" });
    expect(changed.body.server.state).toBe("stopped");
    expect(h.emulator.world.ips.size).toBe(2);
    expect((await h.call("DELETE", `/_emulator/instance/servers/${id}`)).status).toBe(204);
    expect(h.emulator.world.ips.size).toBe(0);
    expect((await h.call("GET", `/instance/v1/zones/pl-waw-1/servers/${id}`)).status).toBe(404);

    const metal = await h.call("POST", "/_emulator/baremetal/servers", { name: "metal-1", status: "stopped" });
    expect(metal.body.server).toMatchObject({ name: "metal-1", status: "stopped", zone: "fr-par-2" });
  });

  test("the control API refuses a bad body naming each field", async () => {
    const { status, body } = await h.call("POST", "/_emulator/instance/servers", { name: "", zone: "mars-1" });
    expect(status).toBe(400);
    expect(body.details.map((d: { argument_name: string }) => d.argument_name).sort()).toEqual(["name", "zone"]);
  });

  test("the account answers the default project, and not_found for another", async () => {
    const project = h.emulator.world.defaultProject;
    const { body } = await h.call("GET", `/account/v3/projects/${project.id}`);
    expect(body).toMatchObject({ id: project.id, organization_id: h.emulator.world.organizationId });
    expect((await h.call("GET", "/account/v3/projects/11111111-2222-4333-8444-555555555555")).status).toBe(404);
  });

  test("calls are counted by route; the control API is not", async () => {
    const s = h.instance({ name: "node-1" });
    await h.call("GET", `/instance/v1/zones/fr-par-1/servers/${s.id}`);
    await h.call("GET", "/_emulator/calls");
    expect(h.emulator.calls.count("GET /instance/v1/zones/:zone/servers/:server_id")).toBe(1);
    expect(h.emulator.calls.snapshot().total).toBe(1);
  });
});
