import { describe, expect, test } from "bun:test";
import type { LoadBalancerStatus, Node } from "../../kube/objects.ts";
import type { LoadBalancer as EmulatedLB } from "../../sandbox/hcloud/state/types.ts";
import { createServer } from "../../sandbox/hcloud/testing.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { rejection } from "../testing.ts";
import { SERVICE_UID_LABEL } from "./api/load-balancers.ts";
import { A, ctx, DEFAULT_NAME, emulatorsPerTest, service, UID } from "./lb/testing.ts";
import { addresses, node, providerID } from "./testing.ts";

const { setUp, current } = emulatorsPerTest();

describe("hcloud LoadBalancer against the emulator", () => {
  test("creates a labelled load balancer with a TCP listener and every Node as a server target", async () => {
    const w = await setUp();
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const made = w.only();
    expect(made).toMatchObject({
      name: DEFAULT_NAME,
      labels: { [SERVICE_UID_LABEL]: UID },
      location: { name: "fsn1" },
    });
    expect(made.services).toMatchObject([
      { protocol: "tcp", listen_port: 80, destination_port: 30080, health_check: { protocol: "tcp", port: 30080 } },
    ]);
    expect(made.targets.map((t) => (t.type === "server" ? t.server.id : 0)).sort()).toEqual([...w.ids].sort());
    expect(status).toEqual({ ingress: [{ ip: made.public_net.ipv4.ip }, { ip: made.public_net.ipv6.ip }] });
    expect(await w.lb.getLoadBalancer(ctx, "k", service())).toEqual(status);
    expect(w.lb.getLoadBalancerName(ctx, "k", service())).toBe(DEFAULT_NAME);
  });

  test("a resync of a converged load balancer costs one call (the label lookup) and writes nothing", async () => {
    const w = await setUp({ network: true });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    await w.lb.updateLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.h.emulator.calls.snapshot()).toMatchObject({
      total: 2,
      byRoute: { "GET /v1/load_balancers": { calls: 2 } },
    });
  });

  test("creating is one write: listeners, targets and the network come with the load balancer", async () => {
    const w = await setUp({ network: true });
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}use-private-ip`]: "true" }), w.nodes);
    expect(w.h.emulator.calls.writes().map((c) => `${c.method} ${c.path}`)).toEqual(["POST /v1/load_balancers"]);
    expect(w.only()).toMatchObject({ services: [{ listen_port: 80 }], private_net: [{ network: w.net }] });
    expect(w.only().targets).toHaveLength(3);
  });

  test("a create refused as a whole (a Node's server is gone) makes the bare load balancer, then adds the rest", async () => {
    const w = await setUp();
    const gone = node("gone", providerID("hcloud://999999"));
    await w.lb.ensureLoadBalancer(ctx, "k", service(), [...w.nodes, gone]);
    expect(w.only().services).toHaveLength(1);
    expect(w.only().targets).toHaveLength(3);
    expect(w.warnings).toEqual([
      expect.stringMatching(/^TargetLeftOut: .*server 999999 is left out: the server no longer exists/),
    ]);
  });

  test("a private-network load balancer: attached to HCLOUD_NETWORK, its private IP in the ingress last", async () => {
    const w = await setUp({ network: true, env: { HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP: "true" } });
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    const made = w.only();
    expect(made.private_net).toEqual([{ network: w.net, ip: expect.stringMatching(/^10\.0\.[12]\./) }]);
    expect(made.targets.every((t) => t.type === "server" && t.use_private_ip)).toBe(true);
    expect(status.ingress?.map((i) => i.ip)).toEqual([
      made.public_net.ipv4.ip,
      made.public_net.ipv6.ip,
      made.private_net[0]?.ip,
    ]);
  });

  test("updateLoadBalancer changes only the targets, and only what differs", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    w.h.emulator.calls.reset();
    await w.lb.updateLoadBalancer(ctx, "k", service({ [`${A}algorithm-type`]: "least_connections" }), w.nodes.slice(1));
    expect(w.h.emulator.calls.writes().map((c) => c.path)).toEqual([
      expect.stringMatching(/\/actions\/remove_target$/),
    ]);
    expect(w.only().algorithm.type).toBe("round_robin");
    expect(w.only().targets).toHaveLength(2);
  });

  test("deleting removes the load balancer; deleting again succeeds", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(w.world.loadBalancers.size).toBe(0);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(await w.lb.getLoadBalancer(ctx, "k", service())).toBeUndefined();
  });

  test("a delete-protected load balancer is left in place with a warning", async () => {
    const w = await setUp();
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    await w.h.call("POST", `/load_balancers/${w.only().id}/actions/change_protection`, { delete: true });
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(w.world.loadBalancers.size).toBe(1);
    expect(w.warnings).toEqual([expect.stringMatching(/^LoadBalancerProtected: .*delete-protected/)]);
  });

  test("never deletes a load balancer that carries no label of this Service, even with its name", async () => {
    const w = await setUp();
    await w.h.call("POST", "/load_balancers", { name: DEFAULT_NAME, load_balancer_type: "lb11", location: "fsn1" });
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(w.world.loadBalancers.size).toBe(1);
  });
});

describe("refusals: nothing is written", () => {
  const refusals: readonly (readonly [string, () => Promise<{ message: string; write: () => Promise<unknown> }>])[] = [
    [
      "an invalid annotation names key and value",
      async () => {
        const w = await setUp();
        const bad = service({ [`${A}algorithm-type`]: "fastest" });
        return {
          message: `${A}algorithm-type="fastest"`,
          write: () => w.lb.ensureLoadBalancer(ctx, "k", bad, w.nodes),
        };
      },
    ],
    [
      "neither location nor network zone: both annotations and settings are named",
      async () => {
        const w = await setUp({ env: { HCLOUD_LOAD_BALANCERS_LOCATION: undefined } });
        return {
          message: `neither ${A}location nor ${A}network-zone is set`,
          write: () => w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes),
        };
      },
    ],
    [
      "use-private-ip without HCLOUD_NETWORK",
      async () => {
        const w = await setUp();
        return {
          message: "set HCLOUD_NETWORK",
          // With a managed certificate asked for: it is not created either.
          write: () =>
            w.lb.ensureLoadBalancer(
              ctx,
              "k",
              service({
                [`${A}use-private-ip`]: "true",
                [`${A}protocol`]: "https",
                [`${A}certificate-type`]: "managed",
                [`${A}http-managed-certificate-domains`]: "example.com",
              }),
              w.nodes,
            ),
        };
      },
    ],
    [
      "a port without a NodePort",
      async () => {
        const w = await setUp();
        const svc = service();
        svc.spec = { ...svc.spec, ports: [{ port: 80, protocol: "TCP" }] };
        return { message: "port 80 has no nodePort", write: () => w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes) };
      },
    ],
    [
      "a certificate name the project does not have",
      async () => {
        const w = await setUp();
        const svc = service({ [`${A}protocol`]: "https", [`${A}http-certificates`]: "nope" });
        return { message: "the certificate nope", write: () => w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes) };
      },
    ],
  ];

  test.each(refusals)("%s", async (_name, make) => {
    const { message, write } = await make();
    const e = current();
    if (!e) throw new Error("no emulator");
    e.h.emulator.calls.reset();
    const err = await rejection(write);
    expect(err.message).toContain(message);
    expect(e.h.emulator.calls.writes()).toEqual([]);
    expect(e.h.emulator.world.loadBalancers.size).toBe(0);
  });

  test("an invalid annotation's error is the framework's InvalidAnnotationsError (one Warning event)", async () => {
    const w = await setUp();
    const err = await rejection(() =>
      w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}health-check-retries`]: "9" }), w.nodes),
    );
    expect(err.cause).toBeInstanceOf(InvalidAnnotationsError);
  });
});

describe("targets", () => {
  test("Robot Nodes are IP targets with Robot's main IP; Nodes without a usable provider ID are warned about", async () => {
    const w = await setUp({ robot: true });
    const robotServer = current()?.robot.state.addServer({ name: "bm-1" });
    if (!robotServer?.ip) throw new Error("the Robot emulator made no server with an IPv4 address");
    const nodes: Node[] = [
      ...w.nodes,
      node("bm-1", providerID(`hrobot://${robotServer.number}`), addresses()),
      node("stray"),
    ];
    await w.lb.ensureLoadBalancer(ctx, "k", service(), nodes);
    expect(w.only().targets.filter((t) => t.type === "ip")).toEqual([{ type: "ip", ip: { ip: robotServer.ip } }]);
    expect(w.warnings).toEqual([expect.stringContaining("Node stray has no hcloud:// or hrobot:// provider ID")]);
  });

  const leftOut = [
    // Tried again on each sync (the server may be attached by then): the resync writes.
    ["a server off the network with use-private-ip", { [`${A}use-private-ip`]: "true" }, 1, 3, "HCLOUD_NETWORK", true],
    // The limit is read from the type: a resync sends nothing for the Node that does not fit.
    ["the type's target limit (lb11: 25)", {}, 23, 25, "its type holds 25 targets", false],
  ] as const;

  test.each(leftOut)(
    "%s: that Node is left out with a warning, the others are served",
    async (_n, annotations, extra, served, why, resyncWrites) => {
      const w = await setUp({ network: true });
      const more: Node[] = [];
      for (let i = 0; i < extra; i++)
        more.push(node(`x${i}`, providerID(`hcloud://${await createServer(w.h, `x${i}`)}`)));
      await w.lb.ensureLoadBalancer(ctx, "k", service(annotations), [...w.nodes, ...more]);
      expect(w.only().services).toHaveLength(1);
      expect(w.only().targets).toHaveLength(served);
      expect(w.warnings).toHaveLength(3 + extra - served);
      expect(w.warnings.every((m) => m.startsWith("TargetLeftOut: ") && m.includes(why))).toBe(true);
      w.h.emulator.calls.reset();
      await w.lb.ensureLoadBalancer(ctx, "k", service(annotations), [...w.nodes, ...more]);
      expect(w.h.emulator.calls.writes().length > 0).toBe(resyncWrites);
    },
  );

  test("a Node that leaves is removed, and switching use-private-ip replaces each server target", async () => {
    const w = await setUp({ network: true });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}use-private-ip`]: "true" }), w.nodes.slice(0, 2));
    expect(w.only().targets).toEqual(
      w.ids.slice(0, 2).map((id) => ({ type: "server", server: { id }, use_private_ip: true })),
    );
  });
});

describe("HCLOUD_LOAD_BALANCERS_* settings are the defaults", () => {
  const rows: readonly (readonly [string, string, (lb: EmulatedLB, status: LoadBalancerStatus) => void])[] = [
    ["HCLOUD_LOAD_BALANCERS_TYPE", "lb21", (lb) => expect(lb.load_balancer_type.name).toBe("lb21")],
    [
      "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE",
      "least_connections",
      (lb) => expect(lb.algorithm.type).toBe("least_connections"),
    ],
    ["HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL", "true", (lb) => expect(lb.services[0]?.proxyprotocol).toBe(true)],
    ["HCLOUD_LOAD_BALANCERS_DISABLE_IPV6", "true", (_lb, status) => expect(status.ingress).toHaveLength(2)],
    ["HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS", "true", (_lb, status) => expect(status.ingress).toHaveLength(2)],
    [
      "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE",
      "10.0.2.0/24",
      (lb) => expect(lb.private_net[0]?.ip).toStartWith("10.0.2."),
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL",
      "7s",
      (lb) => expect(lb.services[0]?.health_check.interval).toBe(7),
    ],
    ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", "4s", (lb) => expect(lb.services[0]?.health_check.timeout).toBe(4)],
    ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "2", (lb) => expect(lb.services[0]?.health_check.retries).toBe(2)],
  ];

  test.each(rows)("%s=%s", async (variable, value, check) => {
    // With a network, so the private ingress and subnet settings have something to act on.
    const w = await setUp({ network: true, env: { [variable]: value } });
    const status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    check(w.only(), status);
  });

  test("HCLOUD_LOAD_BALANCERS_NETWORK_ZONE places it when no location is set", async () => {
    const w = await setUp({
      env: { HCLOUD_LOAD_BALANCERS_LOCATION: undefined, HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: "us-east" },
    });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.only().location.network_zone).toBe("us-east");
  });

  test("HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK turns the public interface off", async () => {
    const w = await setUp({
      network: true,
      env: { HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK: "true", HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP: "true" },
    });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.only().public_net.enabled).toBe(false);
  });
});
