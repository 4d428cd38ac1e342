import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { Node, Service } from "../../kube/objects.ts";
import { createNetwork, createServer } from "../../sandbox/hcloud/testing.ts";
import type { CallContext } from "../cloud.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { rejection } from "../testing.ts";
import { HcloudLoadBalancers, SERVICE_UID_LABEL } from "./api/load-balancers.ts";
import { hcloudConfigSchema } from "./config.ts";
import { createHcloudLoadBalancer, type HcloudLoadBalancerDeps } from "./load-balancers.ts";
import { networkRef } from "./network.ts";
import { type Emulators, node, providerID, startEmulators } from "./testing.ts";

const ctx: CallContext = { signal: new AbortController().signal };
const A = "load-balancer.hetzner.cloud/";
let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

interface Setup {
  readonly env?: Record<string, string>;
  readonly network?: boolean;
  readonly robot?: boolean;
}

/** The emulator, three cloud servers as Nodes (attached to network `k8s`), and the capability over the real client. */
async function setUp(o: Setup = {}) {
  e = startEmulators();
  const h = e.h;
  const net = await createNetwork(h, "k8s");
  const ids: number[] = [];
  for (const name of ["n1", "n2", "n3"]) ids.push(await createServer(h, name, { networks: [net] }));
  const config = v.parse(hcloudConfigSchema, {
    HCLOUD_TOKEN: "-",
    HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
    ...(o.robot ? { ROBOT_ENABLED: "true" } : {}),
    ...o.env,
  });
  const warnings: string[] = [];
  const lbs = new HcloudLoadBalancers(e.t);
  const deps: HcloudLoadBalancerDeps = {
    lbs,
    network: o.network ? networkRef(e.networks, "k8s") : undefined,
    robot: o.robot ? e.robotApi : undefined,
    config,
    warn: (_s, reason, message) => warnings.push(`${reason}: ${message}`),
  };
  const nodes: Node[] = ["n1", "n2", "n3"].map((n, i) => node(n, providerID(`hcloud://${ids[i]}`)));
  return { h, lbs, lb: createHcloudLoadBalancer(deps), nodes, ids, net, warnings, world: h.emulator.world };
}

function service(annotations: Record<string, string> = {}, uid = "11111111-2222-3333-4444-555555555555"): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default", uid, annotations },
    spec: { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] },
  };
}

describe("hcloud LoadBalancer against the emulator", () => {
  test("creates a labelled load balancer with a TCP listener and every Node as a server target", async () => {
    const { lb, nodes, ids, world } = await setUp();
    const svc = service();
    const status = await lb.ensureLoadBalancer(ctx, "k", svc, nodes);
    const [made] = [...world.loadBalancers.values()];
    if (!made) throw new Error("no load balancer was made");
    expect(made.name).toBe("a11111111222233334444555555555555".slice(0, 32));
    expect(made.labels).toEqual({ [SERVICE_UID_LABEL]: svc.metadata?.uid ?? "" });
    expect(made.location.name).toBe("fsn1");
    expect(made.services).toMatchObject([
      { protocol: "tcp", listen_port: 80, destination_port: 30080, health_check: { protocol: "tcp", port: 30080 } },
    ]);
    expect(made.targets.map((t) => (t.type === "server" ? t.server.id : 0)).sort()).toEqual([...ids].sort());
    expect(status).toEqual({ ingress: [{ ip: made.public_net.ipv4.ip }, { ip: made.public_net.ipv6.ip }] });
    expect(await lb.getLoadBalancer(ctx, "k", svc)).toEqual(status);
  });

  test("a second ensure of a converged load balancer writes nothing", async () => {
    const { h, lb, nodes } = await setUp();
    await lb.ensureLoadBalancer(ctx, "k", service(), nodes);
    h.emulator.calls.reset();
    await lb.ensureLoadBalancer(ctx, "k", service(), nodes);
    expect(h.emulator.calls.writes()).toEqual([]);
  });

  test("deleting removes the load balancer; deleting again succeeds", async () => {
    const { lb, nodes, world } = await setUp();
    await lb.ensureLoadBalancer(ctx, "k", service(), nodes);
    await lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(world.loadBalancers.size).toBe(0);
    await lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(await lb.getLoadBalancer(ctx, "k", service())).toBeUndefined();
  });

  test("an invalid annotation names key and value, and nothing is written", async () => {
    const { h, lb, nodes } = await setUp();
    h.emulator.calls.reset();
    const bad = service({ [`${A}algorithm-type`]: "fastest" });
    const err = await rejection(() => lb.ensureLoadBalancer(ctx, "k", bad, nodes));
    expect(err.message).toContain(`${A}algorithm-type="fastest"`);
    expect(err.cause).toBeInstanceOf(InvalidAnnotationsError);
    expect(h.emulator.calls.snapshot().total).toBe(0);
  });
});
