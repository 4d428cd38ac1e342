/**
 * Test support for the digitalocean LoadBalancer: an emulator with three Droplets as Nodes (public and private
 * IPv4), an uploaded certificate, and the capability over the real clients, with the warnings it gave and the ID
 * annotations it recorded. Nothing in production imports this file.
 */
import { afterEach } from "bun:test";
import type { Node, Service } from "../../../kube/objects.ts";
import {
  createLoadBalancer,
  type LoadBalancer as EmulatedLB,
} from "../../../sandbox/digitalocean/state/load-balancers.ts";
import { type Harness, startHarness, TOKEN } from "../../../sandbox/digitalocean/testing.ts";
import type { CallContext } from "../../cloud.ts";
import { annotationPrefix } from "../annotations.ts";
import { HttpCertificatesApi } from "../api/certificates.ts";
import { createDoClient } from "../api/client.ts";
import { HttpDropletsApi } from "../api/droplets.ts";
import { HttpLoadBalancersApi } from "../api/load-balancers.ts";
import { createDigitalOceanLoadBalancer, type DigitalOceanLoadBalancerDeps } from "../load-balancers.ts";
import { unpaced } from "../testing.ts";

export const ctx: CallContext = { signal: new AbortController().signal };
export const A = annotationPrefix;
export const UID = "11111111-2222-3333-4444-555555555555";
export const DEFAULT_NAME = `a${UID.replaceAll("-", "")}`.slice(0, 32);
export const CLUSTER = "c0ffee00-0000-4000-8000-000000000001";
export const CLUSTER_TAG = `k8s:${CLUSTER}`;

export type LBWorld = Awaited<ReturnType<typeof startLB>>;

/** Each test's emulator, stopped after it. */
export function emulatorPerTest() {
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return {
    setUp: (o: LBSetup = {}) => {
      current = startHarness();
      return startLB(current, o);
    },
  };
}

export interface LBSetup {
  /** `DO_CLUSTER_ID`; default `CLUSTER`; `null` leaves it unset (the cluster name tags). */
  readonly clusterID?: string | null;
  readonly defaultType?: "REGIONAL" | "REGIONAL_NETWORK";
  /** Retries of the API client (0 by default: a fault is seen by the test). */
  readonly retries?: number;
  /** The client's fetch instead of the global one (one that loses answers, say). */
  readonly fetch?: typeof fetch;
}

export async function startLB(h: Harness, o: LBSetup = {}) {
  const ids = ["n1", "n2", "n3"].map((name) => h.droplet({ name }));
  const cert = await h.call("POST", "/certificates", {
    name: "web-cert",
    private_key: "-----BEGIN PRIVATE KEY-----",
    leaf_certificate: "-----BEGIN CERTIFICATE-----",
  });
  const client = createDoClient({
    token: TOKEN,
    url: h.emulator.endpoint,
    now: h.clock.now,
    sleep: h.clock.sleep,
    random: () => 0.5,
    retry: { maxRetries: o.retries ?? 0 },
    rateLimit: unpaced,
    ...(o.fetch && { fetch: o.fetch }),
  });
  const api = new HttpLoadBalancersApi(client);
  const warnings: string[] = [];
  /** The load balancer IDs recorded, by Service UID. */
  const recorded = new Map<string, string>();
  /** Every annotation written, as `key=value`, in order. */
  const annotated: string[] = [];
  const deps: DigitalOceanLoadBalancerDeps = {
    lbs: api,
    certificates: new HttpCertificatesApi(client),
    droplets: new HttpDropletsApi(client),
    config: {
      region: "nyc3",
      vpcID: undefined,
      clusterID: o.clusterID === null ? undefined : (o.clusterID ?? CLUSTER),
      defaultLoadBalancerType: o.defaultType ?? "REGIONAL",
    },
    warn: (_s, reason, message) => warnings.push(`${reason}: ${message}`),
    annotate: async (_ctx, s, annotations) => {
      const id = annotations["kubernetes.digitalocean.com/load-balancer-id"];
      if (id !== undefined) recorded.set(s.metadata?.uid ?? "", id);
      for (const [k, v] of Object.entries(annotations)) annotated.push(`${k}=${v}`);
    },
  };
  const world = h.emulator.world;
  const nodes: Node[] = ids.map((id, i) => {
    const d = world.droplets.get(id);
    const addresses = [
      { type: "InternalIP", address: d?.privateV4 ?? `10.10.0.${i + 2}` },
      { type: "ExternalIP", address: d?.publicV4 ?? `192.0.2.${i + 2}` },
    ];
    return {
      metadata: { name: `n${i + 1}` },
      spec: { providerID: `digitalocean://${id}` },
      status: { addresses },
    } as Node;
  });
  return {
    h,
    api,
    lb: createDigitalOceanLoadBalancer(deps),
    deps,
    nodes,
    ids,
    certID: cert.body.certificate.id as string,
    warnings,
    recorded,
    annotated,
    world,
    all: (): EmulatedLB[] => [...world.loadBalancers.values()],
    /** The one emulated load balancer; fails when there is not exactly one. */
    only(): EmulatedLB {
      const all = [...world.loadBalancers.values()];
      if (all.length !== 1) throw new Error(`expected one load balancer, found ${all.length}`);
      return all[0] as EmulatedLB;
    },
  };
}

export function service(annotations: Record<string, string> = {}, uid = UID): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default", uid, annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, nodePort: 30080, protocol: "TCP" },
        { name: "https", port: 443, nodePort: 30443, protocol: "TCP" },
      ],
    },
  };
}

/** A load balancer in DO CCM's shape, made in the emulator directly (as DO CCM's create would leave it). */
export function doCcmLB(w: LBWorld, name: string, tags: string[]) {
  return createLoadBalancer(w.world, {
    name,
    region: "nyc3",
    size_unit: 1,
    size: "lb-small",
    algorithm: "round_robin",
    forwarding_rules: [
      {
        entry_protocol: "tcp",
        entry_port: 80,
        target_protocol: "tcp",
        target_port: 30080,
        certificate_id: "",
        tls_passthrough: false,
      },
    ],
    health_check: {
      protocol: "http",
      port: 10256,
      path: "/healthz",
      check_interval_seconds: 3,
      response_timeout_seconds: 5,
      unhealthy_threshold: 3,
      healthy_threshold: 5,
    },
    sticky_sessions: { type: "none" },
    redirect_http_to_https: false,
    enable_proxy_protocol: false,
    enable_backend_keepalive: false,
    http_idle_timeout_seconds: 60,
    disable_lets_encrypt_dns_records: false,
    network: "EXTERNAL",
    network_stack: "IPV4",
    type: "REGIONAL",
    vpc_uuid: "5a4981aa-9653-4bd1-bef5-d6bff52042e4",
    project_id: "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30",
    firewall: {},
    tag: "",
    tags,
    vpc_subnet_uuid: "",
    droplet_ids: [...w.ids],
  });
}
