/**
 * The load-balancer capability against the Scaleway emulator: made with scw CCM's names, adopted in place (same ID
 * and IP, no create, no delete, `plan` says adopt), never another Service's, annotation changes applied, IPv6,
 * `spec.loadBalancerIP`, certificates kept on scale-up, Nodes without provider ID never emptying a backend.
 */
import { describe, expect, test } from "bun:test";
import { A, ctx, externalIPs, scwCcmLoadBalancer, service, setUp, UID, Z } from "./lb/testing.ts";

const writes = (w: { h: { emulator: { calls: { writes(): readonly { method: string; path: string }[] } } } }) =>
  w.h.emulator.calls.writes().map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, "<id>")}`);

describe("a new Service", () => {
  test("gets one load balancer with scw CCM's name and tags, a frontend and backend per port, ready with its IP", async () => {
    const w = await setUp({ SCW_CCM_PREFIX: "k8s-", SCW_CCM_TAGS: "a;b", SCW_CCM_TAGS_DELIMITER: ";" });
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const [lb, ...others] = [...w.h.emulator.world.lb.lbs.values()];
    expect(others).toHaveLength(0);
    expect(lb?.name).toBe(`k8s-${UID}`);
    expect(lb?.tags).toEqual(["a", "b", "managed-by-scaleway-cloud-controller-manager", `ccm-ts/service-uid=${UID}`]);
    const ip = [...w.h.emulator.world.lb.ips.values()][0];
    expect(status).toEqual({ ingress: [{ ip: ip?.address ?? "", ipMode: "VIP" }] });
    const fronts = [...w.h.emulator.world.lb.frontends.values()].map((f) => f.name).sort();
    expect(fronts).toEqual([`${UID}_tcp_443`, `${UID}_tcp_80`]);
    const pools = [...w.h.emulator.world.lb.backends.values()].map((b) => [...b.pool].sort());
    expect(pools).toEqual([externalIPs(w.nodes).sort(), externalIPs(w.nodes).sort()]);
  });

  test("a second ensure writes nothing", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(writes(w)).toEqual([]);
  });

  test("an IPv6 is booked with flexible-ip-types=ipv4,ipv6 and reported (#166)", async () => {
    const w = await setUp();
    const status = await w.lb.ensureLoadBalancer(
      ctx,
      "k",
      service({ [`${A}flexible-ip-types`]: "ipv4,ipv6" }),
      w.nodes,
    );
    expect(status.ingress?.map((i) => i.ip?.includes(":"))).toEqual([false, true]);
  });

  test("spec.loadBalancerIP picks the reserved flexible IP, kept when the Service goes (#136)", async () => {
    const w = await setUp();
    const ip = (await w.h.call("POST", `${Z}/ips`, {})).body;
    const svc = service({}, { loadBalancerIP: ip.ip_address });
    const status = await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    expect(status.ingress?.[0]?.ip).toBe(ip.ip_address);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", svc);
    expect(w.h.emulator.world.lb.lbs.size).toBe(0);
    expect(w.h.emulator.world.lb.ips.get(ip.id)?.lbId).toBeUndefined();
  });

  test("new ip-ids re-create the load balancer with them; plan says so first", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const old = [...w.h.emulator.world.lb.lbs.keys()][0];
    const ip = (await w.h.call("POST", `${Z}/ips`, {})).body;
    const svc = service({ [`${A}ip-ids`]: ip.id });
    const plan = await w.lb.planLoadBalancer?.(ctx, "k", svc, w.nodes);
    expect(plan?.changes[0]).toBe(`delete fr-par-1/${old}: its IPs are to change`);
    expect(plan?.status).toBeUndefined();
    const status = await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    expect(status.ingress?.map((i) => i.ip)).toEqual([ip.ip_address]);
    expect([...w.h.emulator.world.lb.lbs.keys()]).not.toContain(old);
    expect(w.h.emulator.world.lb.lbs.size).toBe(1);
    // The IP the old one booked is released, not left behind.
    expect([...w.h.emulator.world.lb.ips.keys()]).toEqual([ip.id]);
  });

  test("a private one has no public IP, is attached to PN_ID and reports its address there", async () => {
    const pn = "0e2b6d4c-1b2a-4c3d-8e5f-000000000001";
    const w = await setUp({ PN_ID: pn });
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}private`]: "true" }), w.nodes);
    const world = w.h.emulator.world;
    expect(world.lb.ips.size).toBe(0);
    expect(world.lb.privateNetworks.map((a) => a.privateNetworkId)).toEqual([pn]);
    const booked = [...world.ips.values()].find((ip) => ip.resource?.type === "lb_server" && !ip.isIpv6);
    expect(status.ingress).toEqual([{ ip: booked?.address.replace(/\/\d+$/, "") ?? "", ipMode: "VIP" }]);
    // The backends target the Nodes' InternalIPs on the private network.
    for (const b of world.lb.backends.values()) expect(b.pool.every((ip) => ip.startsWith("10.0.0."))).toBe(true);
  });

  test("a private one without its address yet: ensure retries, get and delete go on", async () => {
    const pn = "0e2b6d4c-1b2a-4c3d-8e5f-000000000001";
    const w = await setUp({ PN_ID: pn });
    const svc = service({ [`${A}private`]: "true" });
    await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    const world = w.h.emulator.world;
    for (const [id, ip] of world.ips) if (ip.resource?.type === "lb_server") world.ips.delete(id);
    await expect(w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes)).rejects.toThrow(/no address on its private network/);
    expect(await w.lb.getLoadBalancer(ctx, "k", svc)).toEqual({ ingress: [] });
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", svc);
    expect(world.lb.lbs.size).toBe(0);
  });

  test("use-hostname reports each IP's reverse name", async () => {
    const w = await setUp();
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}use-hostname`]: "true" }), w.nodes);
    expect(status.ingress?.[0]?.hostname).toMatch(/^51-15-\d+-\d+\.lb\.fr-par\.scw\.cloud$/);
  });

  test("a load balancer not ready yet is a retry, not an error of the Service", async () => {
    const w = await setUp();
    w.h.emulator.world.lb.readyAfterMs = 30_000;
    await expect(w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes)).rejects.toThrow(/not ready yet/);
    w.h.clock.advance(30_000);
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.h.emulator.world.lb.lbs.size).toBe(1);
  });
});

describe("scw CCM's load balancer", () => {
  test("is adopted in place: same ID and IP, no create, no delete; plan says adopt first", async () => {
    const w = await setUp();
    const made = await scwCcmLoadBalancer(w, service(), externalIPs(w.nodes));
    const svc = service({ [`${A}id`]: `fr-par-1/${made.id}` });
    const plan = await w.lb.planLoadBalancer?.(ctx, "k", svc, w.nodes);
    expect(plan?.action).toBe("adopt");
    expect(plan?.changes).toEqual([`tag ccm-ts/service-uid=${UID}`]);
    expect(plan?.status?.ingress?.[0]?.ip).toBe(made.ip);
    w.h.emulator.calls.reset();
    const status = await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    expect(status.ingress?.[0]?.ip).toBe(made.ip);
    expect(writes(w)).toEqual(["PUT /lb/v1/zones/fr-par-1/lbs/<id>"]);
    expect([...w.h.emulator.world.lb.lbs.keys()]).toEqual([made.id]);
    expect((await w.lb.planLoadBalancer?.(ctx, "k", svc, w.nodes))?.action).toBe("none");
  });

  test("is found by name when the id annotation is gone", async () => {
    const w = await setUp();
    const made = await scwCcmLoadBalancer(w, service(), externalIPs(w.nodes));
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(status.ingress?.[0]?.ip).toBe(made.ip);
    expect(w.h.emulator.world.lb.lbs.size).toBe(1);
  });

  test("of another Service (another cluster) named by the id annotation is refused, never changed or deleted", async () => {
    const w = await setUp();
    const other = service();
    other.metadata = { ...other.metadata, uid: "99999999-1111-4222-8333-444444444444" };
    const made = await scwCcmLoadBalancer(w, other, ["192.0.2.1"]);
    const svc = service({ [`${A}id`]: `fr-par-1/${made.id}` });
    w.h.emulator.calls.reset();
    await expect(w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes)).rejects.toThrow(/another Service/);
    // Deleting the Service is not held up: its finalizer goes, the other load balancer stays.
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", svc);
    expect(writes(w)).toEqual([]);
    expect(w.h.emulator.world.lb.lbs.size).toBe(1);
  });
});

describe("changes", () => {
  test("an annotation change is applied on the next sync (#145)", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const changed = service({
      [`${A}forward-port-algorithm`]: "leastconn",
      [`${A}health-check-type`]: "80:http;443:https",
      [`${A}health-check-http-uri`]: "example.com/healthz",
      [`${A}timeout-client`]: "30s",
      [`${A}type`]: "LB-GP-M",
    });
    await w.lb.ensureLoadBalancer(ctx, "k", changed, w.nodes);
    const world = w.h.emulator.world.lb;
    for (const b of world.backends.values()) {
      expect(b.fields.forward_port_algorithm).toBe("leastconn");
      expect(Object.keys(b.healthCheck.config)).toEqual([
        b.fields.forward_port === 30080 ? "http_config" : "https_config",
      ]);
      expect(b.healthCheck.config).toMatchObject({
        [Object.keys(b.healthCheck.config)[0] ?? ""]: { uri: "/healthz", host_header: "example.com" },
      });
    }
    for (const f of world.frontends.values()) expect(f.timeoutClient).toBe("30s");
    expect([...world.lbs.values()][0]?.type).toBe("lb-gp-m");
  });

  test("a scale-up changes servers only: certificates stay on the frontend (#42)", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const lbId = [...w.h.emulator.world.lb.lbs.keys()][0];
    const cert = (
      await w.h.call("POST", `${Z}/lbs/${lbId}/certificates`, { name: "c", letsencrypt: { common_name: "x.example" } })
    ).body;
    const svc = service({ [`${A}certificate-ids`]: `443:${cert.id}` });
    await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    const bigger = [...w.nodes, w.addNode("worker-3")];
    w.h.emulator.calls.reset();
    await w.lb.updateLoadBalancer(ctx, "k", svc, bigger);
    expect(writes(w)).toEqual([
      "PUT /lb/v1/zones/fr-par-1/backends/<id>/servers",
      "PUT /lb/v1/zones/fr-par-1/backends/<id>/servers",
    ]);
    const f443 = [...w.h.emulator.world.lb.frontends.values()].find((f) => f.inboundPort === 443);
    expect(f443?.certificateIds).toEqual([cert.id]);
  });

  test("Nodes without provider ID are left out, and never empty a backend (#16)", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const bare = w.nodes.map((n) => ({ ...n, spec: {} }));
    await w.lb.updateLoadBalancer(ctx, "k", service(), bare);
    for (const b of w.h.emulator.world.lb.backends.values()) expect(b.pool).toHaveLength(3);
    await w.lb.updateLoadBalancer(ctx, "k", service(), [w.nodes[0] ?? bare[0], ...bare.slice(1)] as never);
    for (const b of w.h.emulator.world.lb.backends.values()) expect(b.pool).toEqual(externalIPs(w.nodes.slice(0, 1)));
  });

  test("loadBalancerSourceRanges become each frontend's access list, following the Nodes, cleared when removed", async () => {
    const w = await setUp();
    const acls = () => [...w.h.emulator.world.lb.acls.values()];
    const ranged = service({}, { loadBalancerSourceRanges: ["203.0.113.0/24"] });
    await w.lb.ensureLoadBalancer(ctx, "k", ranged, w.nodes);
    // Three Nodes' InternalIP and ExternalIP, and the range; on each of the two frontends.
    expect(
      acls()
        .map((a) => `${a.action} ${a.ipSubnet.length}`)
        .sort(),
    ).toEqual(["allow 7", "allow 7", "deny 2", "deny 2"]);
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", ranged, w.nodes);
    expect(writes(w)).toEqual([]);
    expect((await w.lb.planLoadBalancer?.(ctx, "k", ranged, w.nodes))?.action).toBe("none");
    const wider = service({}, { loadBalancerSourceRanges: ["203.0.113.0/24", "198.51.100.0/24"] });
    expect((await w.lb.planLoadBalancer?.(ctx, "k", wider, w.nodes))?.changes).toEqual([
      "set 2 ACL rule(s) on port 80",
      "set 2 ACL rule(s) on port 443",
    ]);
    await w.lb.updateLoadBalancer(ctx, "k", ranged, [...w.nodes, w.addNode("worker-3")]);
    expect(
      acls()
        .filter((a) => a.action === "allow")
        .map((a) => a.ipSubnet.length),
    ).toEqual([9, 9]);
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(acls()).toEqual([]);
  });

  test("target-node-labels picks the Nodes", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}target-node-labels`]: "role=worker" }), w.nodes);
    for (const b of w.h.emulator.world.lb.backends.values())
      expect(b.pool.sort()).toEqual(externalIPs(w.nodes.slice(0, 2)).sort());
  });

  test("a port removed takes its frontend and backend with it", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const one = service({}, { ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080 }] });
    await w.lb.ensureLoadBalancer(ctx, "k", one, w.nodes);
    expect([...w.h.emulator.world.lb.frontends.values()].map((f) => f.inboundPort)).toEqual([80]);
    expect([...w.h.emulator.world.lb.backends.values()].map((b) => b.fields.forward_port)).toEqual([30080]);
  });
});

describe("deletion", () => {
  test("removes the load balancer and releases the IP it booked", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(w.h.emulator.world.lb.lbs.size).toBe(0);
    expect(w.h.emulator.world.lb.ips.size).toBe(0);
    expect(await w.lb.getLoadBalancer(ctx, "k", service())).toBeUndefined();
  });

  test("is not held up by an invalid annotation", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const bad = service({ [`${A}health-check-max-retries`]: "many", [`${A}private`]: "maybe" });
    expect(await w.lb.getLoadBalancer(ctx, "k", bad)).toBeDefined();
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", bad);
    expect(w.h.emulator.world.lb.lbs.size).toBe(0);
  });

  test("of an externally managed load balancer removes only this Service's frontends and backends", async () => {
    const w = await setUp();
    const shared = (await w.h.call("POST", `${Z}/lbs`, { name: "shared", type: "lb-s" })).body;
    const svc = service({ [`${A}id`]: `fr-par-1/${shared.id}`, [`${A}externally-managed`]: "true" });
    await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
    expect(w.h.emulator.world.lb.frontends.size).toBe(2);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", svc);
    expect(w.h.emulator.world.lb.lbs.size).toBe(1);
    expect(w.h.emulator.world.lb.frontends.size + w.h.emulator.world.lb.backends.size).toBe(0);
  });
});
