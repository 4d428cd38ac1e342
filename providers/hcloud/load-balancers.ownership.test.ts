/**
 * Whose load balancer is whose: hccm's are taken over in place (no write, same IP); one found by name is labelled; one
 * with another Service's label is never taken; two with this Service's label is an error.
 */
import { describe, expect, test } from "bun:test";
import { rejection } from "../testing.ts";
import { SERVICE_UID_LABEL } from "./api/load-balancers.ts";
import { A, ctx, DEFAULT_NAME, emulatorsPerTest, service, UID } from "./lb/testing.ts";

const { setUp } = emulatorsPerTest();

describe("ownership and adoption", () => {
  /** A load balancer as hccm leaves it: its name, its label, a TCP service with a TCP check, server targets. */
  async function hccmShaped(w: Awaited<ReturnType<typeof setUp>>, labels: Record<string, string>) {
    const made = await w.h.call("POST", "/load_balancers", {
      name: DEFAULT_NAME,
      load_balancer_type: "lb11",
      location: "fsn1",
      labels,
    });
    const id = made.body.load_balancer.id as number;
    await w.h.call("POST", `/load_balancers/${id}/actions/add_service`, {
      protocol: "tcp",
      listen_port: 80,
      destination_port: 30080,
      proxyprotocol: false,
      health_check: { protocol: "tcp", port: 30080, interval: 15, timeout: 10, retries: 3 },
    });
    for (const server of w.ids) {
      await w.h.call("POST", `/load_balancers/${id}/actions/add_target`, {
        type: "server",
        server: { id: server },
        use_private_ip: false,
      });
    }
    return { id, ip: made.body.load_balancer.public_net.ipv4.ip as string };
  }

  test("an hccm load balancer is taken over with no write at all: same ID, same IP", async () => {
    const w = await setUp();
    const { id, ip } = await hccmShaped(w, { [SERVICE_UID_LABEL]: UID });
    w.h.emulator.calls.reset();
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.only().id).toBe(id);
    expect(status.ingress?.[0]?.ip).toBe(ip);
  });

  test("what no annotation or setting asks for is left as hccm left it: type, algorithm, rDNS, location", async () => {
    const w = await setUp();
    const { id } = await hccmShaped(w, { [SERVICE_UID_LABEL]: UID });
    for (const [command, body] of [
      ["change_type", { load_balancer_type: "lb21" }],
      ["change_algorithm", { type: "least_connections" }],
      ["change_dns_ptr", { ip: w.only().public_net.ipv4.ip, dns_ptr: "by-hand.example.com" }],
    ] as const) {
      expect((await w.h.call("POST", `/load_balancers/${id}/actions/${command}`, body)).status).toBe(201);
    }
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}location`]: "nbg1" }), w.nodes);
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.only()).toMatchObject({
      load_balancer_type: { name: "lb21" },
      algorithm: { type: "least_connections" },
      public_net: { ipv4: { dns_ptr: "by-hand.example.com" } },
      location: { name: "fsn1" },
    });
  });

  test("one found only by name, without a label, is labelled and kept: one PUT, no create, no delete", async () => {
    const w = await setUp();
    const { id } = await hccmShaped(w, {});
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.h.emulator.calls.writes().map((c) => `${c.method} ${c.path}`)).toEqual([`PUT /v1/load_balancers/${id}`]);
    expect(w.only().labels).toEqual({ [SERVICE_UID_LABEL]: UID });
  });

  test("one with this name but another Service's label is a conflict, not adopted", async () => {
    const w = await setUp();
    await hccmShaped(w, { [SERVICE_UID_LABEL]: "someone-else" });
    w.h.emulator.calls.reset();
    const err = await rejection(() => w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes));
    expect(err.message).toContain("belongs to another Service");
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.only().labels).toEqual({ [SERVICE_UID_LABEL]: "someone-else" });
  });

  test("renaming with the name annotation keeps the load balancer", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const id = w.only().id;
    await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}name`]: "renamed" }), w.nodes);
    expect(w.only()).toMatchObject({ id, name: "renamed" });
  });

  test("two load balancers with this Service's label is an error naming both", async () => {
    const w = await setUp();
    for (const name of ["one", "two"]) {
      await w.h.call("POST", "/load_balancers", {
        name,
        load_balancer_type: "lb11",
        location: "fsn1",
        labels: { [SERVICE_UID_LABEL]: UID },
      });
    }
    const err = await rejection(() => w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes));
    expect(err.message).toMatch(/\(one\).*\(two\)/);
  });
});
