/**
 * The digitalocean LoadBalancer against the emulator: create, converge, rename in place, wait for `active`, PROXY
 * protocol's `ipMode`, disown, delete.
 */
import { describe, expect, test } from "bun:test";
import { findInCauseChain, RetryError } from "../errors.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { A, CLUSTER_TAG, ctx, DEFAULT_NAME, emulatorPerTest, service, UID } from "./lb/testing.ts";
import { createDigitalOceanLoadBalancer } from "./load-balancers.ts";

const e = emulatorPerTest();

describe("digitalocean load balancers", () => {
  test("creates one load balancer with the Service's rules, every Droplet and both tags, and reports its IP", async () => {
    const w = await e.setUp();
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const lb = w.only();
    expect(lb.spec.name).toBe(DEFAULT_NAME);
    expect(lb.spec.forwarding_rules.map((r) => [r.entry_protocol, r.entry_port, r.target_port])).toEqual([
      ["tcp", 80, 30080],
      ["tcp", 443, 30443],
    ]);
    expect(lb.spec.droplet_ids.sort()).toEqual([...w.ids].sort());
    expect(lb.spec.tags).toEqual([CLUSTER_TAG, `ccm-service:${UID}`]);
    expect(lb.spec.health_check).toMatchObject({ protocol: "http", port: 10256, path: "/healthz" });
    expect(status).toEqual({ ingress: [{ ip: lb.ip }] });
    expect(w.recorded.get(UID)).toBe(lb.id);
  });

  test("a converged load balancer costs reads only", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.h.emulator.calls.writes()).toEqual([]);
  });

  test("with the ID annotation a converged sync is one read", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const id = w.only().id;
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(
      ctx,
      "kubernetes",
      service({ "kubernetes.digitalocean.com/load-balancer-id": id }),
      w.nodes,
    );
    expect(w.h.emulator.calls.snapshot().total).toBe(1);
  });

  test("a new name renames the load balancer in place: same ID and IP", async () => {
    const w = await e.setUp();
    const before = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const id = w.only().id;
    const after = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [`${A}name`]: "shop" }), w.nodes);
    expect(w.only().id).toBe(id);
    expect(w.only().spec.name).toBe("shop");
    expect(after).toEqual(before);
  });

  test("waits for the load balancer to be active with an IP: a retry after 15 s until then", async () => {
    const w = await e.setUp();
    w.world.lbActiveDelayMs = 60_000;
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes).catch((x: unknown) => x);
    expect(findInCauseChain(err, RetryError)?.retryAfterMs).toBe(15_000);
    expect(w.all()).toHaveLength(1);
    w.h.clock.advance(60_000);
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(status.ingress?.[0]?.ip).toBe(w.only().ip);
    expect(w.all()).toHaveLength(1);
  });

  test("with the PROXY protocol on every address says ipMode Proxy", async () => {
    const w = await e.setUp();
    const status = await w.lb.ensureLoadBalancer(
      ctx,
      "kubernetes",
      service({ [`${A}enable-proxy-protocol`]: "true" }),
      w.nodes,
    );
    expect(w.only().spec.enable_proxy_protocol).toBe(true);
    expect(status).toEqual({ ingress: [{ ip: w.only().ip, ipMode: "Proxy" }] });
  });

  test("a Node change updates the Droplets", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    await w.lb.updateLoadBalancer(ctx, "kubernetes", service(), w.nodes.slice(0, 2));
    expect(w.only().spec.droplet_ids.sort()).toEqual(w.ids.slice(0, 2).sort());
  });

  test("invalid annotations stop the sync with one error naming each, before any call", async () => {
    const w = await e.setUp();
    w.h.emulator.calls.reset();
    const bad = service({ [`${A}size-unit`]: "500", [`${A}protocol`]: "ftp" });
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", bad, w.nodes).catch((x: unknown) => x);
    const invalid = findInCauseChain(err, InvalidAnnotationsError);
    expect(invalid?.problems.map((p) => [p.key, p.value])).toEqual([
      [`${A}protocol`, "ftp"],
      [`${A}size-unit`, "500"],
    ]);
    expect(w.h.emulator.calls.snapshot().total).toBe(0);
  });

  test("a disowned Service's load balancer is neither changed nor deleted", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const disowned = service({ "service.kubernetes.io/do-loadbalancer-disown": "true", [`${A}name`]: "other" });
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", disowned, w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", disowned);
    expect(w.h.emulator.calls.snapshot().total).toBe(0);
    expect(w.only().spec.name).toBe(DEFAULT_NAME);
  });

  test("deleting the Service deletes its load balancer, and again is a no-op", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(w.all()).toEqual([]);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(await w.lb.getLoadBalancer(ctx, "kubernetes", service())).toBeUndefined();
  });

  test("without DO_CLUSTER_ID the cluster name tags the load balancer", async () => {
    const w = await e.setUp({ clusterID: null });
    await w.lb.ensureLoadBalancer(ctx, "prod-1", service(), w.nodes);
    expect(w.only().spec.tags).toContain("k8s:prod-1");
  });
});

test("without REGION a new load balancer goes to the region of the first Node's Droplet", async () => {
  const w = await e.setUp();
  const lb = createDigitalOceanLoadBalancer({ ...w.deps, config: { ...w.deps.config, region: undefined } });
  const fra = w.h.droplet({ name: "f1", region: "fra1" });
  const node = {
    metadata: { name: "f1" },
    spec: { providerID: `digitalocean://${fra}` },
    status: { addresses: [{ type: "ExternalIP", address: "192.0.2.99" }] },
  };
  await lb.ensureLoadBalancer(ctx, "kubernetes", service(), [node]);
  expect(w.only().spec.region).toBe("fra1");
});

test("a renewed Let's Encrypt certificate is kept on the load balancer and recorded on the Service, as DO CCM does", async () => {
  const w = await e.setUp();
  const made = await w.h.call("POST", "/certificates", {
    name: "le",
    type: "lets_encrypt",
    dns_names: ["example.com"],
  });
  const oldID = made.body.certificate.id as string;
  const svc = service({ [`${A}certificate-id`]: oldID });
  await w.lb.ensureLoadBalancer(ctx, "kubernetes", svc, w.nodes);
  // DigitalOcean renews: a new certificate with the same name, the load balancer moved onto it, the old one gone.
  const old = w.world.certificates.get(oldID);
  if (!old) throw new Error("no certificate");
  const renewed = { ...old, id: w.world.uuid() };
  w.world.certificates.delete(oldID);
  w.world.certificates.set(renewed.id, renewed);
  for (const r of w.only().spec.forwarding_rules) if (r.certificate_id === oldID) r.certificate_id = renewed.id;
  w.h.emulator.calls.reset();
  await w.lb.ensureLoadBalancer(ctx, "kubernetes", svc, w.nodes);
  expect(w.only().spec.forwarding_rules.map((r) => r.certificate_id)).toEqual(["", renewed.id]);
  expect(w.h.emulator.calls.writes()).toEqual([]);
  expect(w.annotated).toContain(`${A}certificate-id=${renewed.id}`);
});
