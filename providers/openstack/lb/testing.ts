/**
 * Test support for the Octavia load balancers: the shipped declaration over a fresh emulator, two Nova servers as
 * Nodes, a Service builder, and the warnings the provider said. Nothing in production imports this file.
 */
import { createConsola } from "consola";
import type { Node, Service } from "../../../kube/objects.ts";
import { networkNamed } from "../../../sandbox/openstack/state.ts";
import { type Harness, startHarness } from "../../../sandbox/openstack/testing.ts";
import type { CallContext, LoadBalancer } from "../../cloud.ts";
import { openstack } from "../provider.ts";
import { passwordConf, unpaced } from "../testing.ts";

export const ctx: CallContext = { signal: new AbortController().signal };
export const UID = "11111111-2222-3333-4444-555555555555";
export const CLUSTER = "kubernetes";
export const LB_NAME = `kube_service_${CLUSTER}_default_web`;
export const A = "loadbalancer.openstack.org/";

export function service(annotations: Record<string, string> = {}, spec: Partial<Service["spec"]> = {}): Service {
  return {
    metadata: { name: "web", namespace: "default", uid: UID, annotations },
    spec: {
      type: "LoadBalancer",
      ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 }],
      ...spec,
    },
  } as Service;
}

/** The calls other than reads (and token requests) the emulator answered since its counters were reset. */
export function writes(h: Harness): string[] {
  return Object.entries(h.emulator.calls.snapshot().byRoute)
    .filter(([key]) => !key.startsWith("GET ") && !key.includes("/identity/"))
    .flatMap(([key, { calls }]) => Array.from({ length: calls }, () => key));
}

export interface LBWorld {
  readonly h: Harness;
  readonly lb: LoadBalancer;
  readonly nodes: Node[];
  readonly warnings: string[];
  /** The public network's ID, `[LoadBalancer] floating-network-id`. */
  readonly floatingNetwork: string;
  /** Adds a Nova server and returns its Node. */
  addNode(name: string): Node;
  /** The one load balancer in the emulator (throws unless exactly one). */
  only(): ReturnType<Harness["emulator"]["world"]["octavia"]["loadBalancers"]["get"]> & {};
  stop(): Promise<void>;
}

/** `extra` lines go into `[LoadBalancer]` after `floating-network-id`. */
export async function startLB(extra = ""): Promise<LBWorld> {
  const h = startHarness();
  const world = h.emulator.world;
  const floatingNetwork = networkNamed(world, "public").id;
  const warnings: string[] = [];
  const logger = createConsola({
    level: 3,
    reporters: [{ log: (o) => void (o.type === "warn" && warnings.push(o.args.map(String).join(" "))) }],
  });
  const provider = await openstack.build(
    {
      env: {},
      config: passwordConf(h, `[LoadBalancer]\nfloating-network-id = ${floatingNetwork}\n${extra}`),
      configSource: "cloud.conf",
      logger,
    },
    { now: h.clock.now, sleep: h.clock.sleep, random: () => 0.5, retry: { maxRetries: 0 }, pace: unpaced },
  );
  if (!provider.loadBalancer) throw new Error("the openstack provider offers no load balancers");
  const addNode = (name: string): Node => {
    const id = h.server({ name });
    const address = [...world.ports.values()].find((p) => p.deviceID === id)?.fixedIPs[0] ?? "";
    return {
      metadata: { name, labels: {} },
      spec: { providerID: `openstack:///${id}` },
      status: { addresses: [{ type: "InternalIP", address }] },
    } as Node;
  };
  const nodes = [addNode("node-1"), addNode("node-2")];
  return {
    h,
    lb: provider.loadBalancer,
    nodes,
    warnings,
    floatingNetwork,
    addNode,
    only() {
      const all = [...world.octavia.loadBalancers.values()];
      if (all.length !== 1) throw new Error(`${all.length} load balancers, not one`);
      return all[0] as NonNullable<ReturnType<LBWorld["only"]>>;
    },
    stop: () => h.stop(),
  };
}
