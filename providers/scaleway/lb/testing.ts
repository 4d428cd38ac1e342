/**
 * Test support for the load-balancer tests: the shipped declaration over a fresh Scaleway emulator with three
 * Instance Nodes, Services in scw CCM's shape, and an scw-CCM-made load balancer to adopt. Nothing in production
 * imports this file.
 */
import { afterEach } from "bun:test";
import type { Node, Service } from "../../../kube/objects.ts";
import { type Harness, startHarness } from "../../../sandbox/scaleway/testing.ts";
import type { LoadBalancer } from "../../cloud.ts";
import { scaleway } from "../provider.ts";
import { scwEnv, unpaced } from "../testing.ts";

export const ctx = { signal: new AbortController().signal };
export const UID = "0f5c3e2a-7b1d-4c8e-9a6f-2d4b8e1c7a90";
export const A = "service.beta.kubernetes.io/scw-loadbalancer-";
export const Z = "/lb/v1/zones/fr-par-1";

export function service(annotations: Record<string, string> = {}, spec: Partial<Service["spec"]> = {}): Service {
  return {
    metadata: { name: "web", namespace: "default", uid: UID, annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, protocol: "TCP", nodePort: 30080 },
        { name: "https", port: 443, protocol: "TCP", nodePort: 30443 },
      ],
      ...spec,
    },
  };
}

export interface LbWorld {
  readonly h: Harness;
  readonly lb: LoadBalancer;
  readonly nodes: Node[];
  /** Another Node, for scale-ups. */
  addNode(name: string): Node;
}

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.stop();
});

export async function setUp(env: Record<string, string> = {}, retries = 0): Promise<LbWorld> {
  const h = startHarness();
  running.push(h);
  const provider = await scaleway.build(
    { env: scwEnv(h, { SCW_DEFAULT_ZONE: "fr-par-1", ...env }), config: undefined, configSource: undefined },
    { now: h.clock.now, sleep: h.clock.sleep, random: () => 0.5, retry: { maxRetries: retries }, pace: unpaced },
  );
  if (!provider.loadBalancer) throw new Error("the scaleway provider offers no loadBalancer");
  const addNode = (name: string): Node => {
    const s = h.instance({ name, zone: "fr-par-1" });
    const external = s.publicIps.find((ip) => ip.family === "inet")?.address ?? "";
    return {
      metadata: { name, labels: { role: name.startsWith("worker") ? "worker" : "other" } },
      spec: { providerID: `scaleway://instance/fr-par-1/${s.id}` },
      status: {
        addresses: [
          { type: "InternalIP", address: `10.0.0.${running.length + name.length}` },
          { type: "ExternalIP", address: external },
        ],
      },
    };
  };
  const nodes = ["worker-1", "worker-2", "infra-1"].map(addNode);
  return { h, lb: provider.loadBalancer, nodes, addNode };
}

/** A load balancer as scw CCM leaves it for `service`: its name, tags, frontends and backends, and the id annotation. */
export async function scwCcmLoadBalancer(w: LbWorld, svc: Service, pool: readonly string[]) {
  const lb = (
    await w.h.call("POST", `${Z}/lbs`, {
      name: svc.metadata?.uid,
      description: "kubernetes service web",
      type: "lb-s",
      tags: ["managed-by-scaleway-cloud-controller-manager"],
    })
  ).body;
  for (const p of svc.spec?.ports ?? []) {
    const b = (
      await w.h.call("POST", `${Z}/lbs/${lb.id}/backends`, {
        name: `${svc.metadata?.uid}_tcp_${p.nodePort}`,
        forward_protocol: "tcp",
        forward_port: p.nodePort,
        forward_port_algorithm: "roundrobin",
        sticky_sessions: "none",
        proxy_protocol: "proxy_protocol_none",
        on_marked_down_action: "on_marked_down_action_none",
        timeout_server: "10s",
        timeout_connect: "600s",
        timeout_tunnel: "600s",
        ssl_bridging: false,
        health_check: {
          port: p.nodePort,
          check_delay: "5s",
          check_timeout: "5s",
          check_max_retries: 5,
          tcp_config: {},
        },
        server_ip: pool,
      })
    ).body;
    await w.h.call("POST", `${Z}/lbs/${lb.id}/frontends`, {
      name: `${svc.metadata?.uid}_tcp_${p.port}`,
      inbound_port: p.port,
      backend_id: b.id,
      timeout_client: "600s",
      certificate_ids: [],
    });
  }
  return { id: lb.id as string, ip: lb.ip[0].ip_address as string, ipId: lb.ip[0].id as string };
}

export const externalIPs = (nodes: readonly Node[]) =>
  nodes.map((n) => n.status?.addresses?.find((a) => a.type === "ExternalIP")?.address ?? "");
