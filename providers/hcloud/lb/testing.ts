/**
 * Test support for the hcloud LoadBalancer: the emulators, a network `k8s` with two subnets, three cloud servers as
 * Nodes, an uploaded certificate, and the capability over the real clients, with the warnings it gave (the type
 * warnings apart). Nothing in production imports this file.
 */
import { afterEach } from "bun:test";
import * as v from "valibot";
import type { Node, Service } from "../../../kube/objects.ts";
import { selfSignedTls } from "../../../sandbox/apiserver/tls.ts";
import type { LoadBalancer as EmulatedLB } from "../../../sandbox/hcloud/state/types.ts";
import { createNetwork, createServer } from "../../../sandbox/hcloud/testing.ts";
import type { CallContext } from "../../cloud.ts";
import { annotationPrefix } from "../annotations.ts";
import { HcloudCertificates } from "../api/certificates.ts";
import type { HcloudTransport } from "../api/client.ts";
import { HcloudLoadBalancers } from "../api/load-balancers.ts";
import { hcloudConfigSchema } from "../config.ts";
import { createHcloudLoadBalancer, type HcloudLoadBalancerDeps } from "../load-balancers.ts";
import { networkRef } from "../network.ts";
import { type Emulators, node, providerID, startEmulators } from "../testing.ts";

export const ctx: CallContext = { signal: new AbortController().signal };
export const A = annotationPrefix;
export const UID = "11111111-2222-3333-4444-555555555555";
/** Kubernetes' default name for the Service with `UID`. */
export const DEFAULT_NAME = `a${UID.replaceAll("-", "")}`.slice(0, 32);

export interface LBSetup {
  /** `HCLOUD_*` settings beside `HCLOUD_LOAD_BALANCERS_LOCATION=fsn1` (`undefined` leaves that one out). */
  readonly env?: Record<string, string | undefined>;
  /** Set `HCLOUD_NETWORK=k8s`. */
  readonly network?: boolean;
  /** Robot on with credentials. */
  readonly robot?: boolean;
  /** The load balancers' transport instead of the emulators' own (one that loses answers, say). */
  readonly transport?: HcloudTransport;
}

export type LBWorld = Awaited<ReturnType<typeof startLB>>;

/**
 * For a test file: each test's emulators are started by `start` (or `setUp`, which starts the load balancer on them
 * too) and stopped after the test; `current` is the running test's, undefined before it started any.
 */
export function emulatorsPerTest() {
  let current: Emulators | undefined;
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  const start = (): Emulators => {
    current = startEmulators();
    return current;
  };
  return {
    start,
    setUp: (o: LBSetup = {}) => startLB(start(), o),
    current: (): Emulators | undefined => current,
  };
}

export async function startLB(e: Emulators, o: LBSetup = {}) {
  const h = e.h;
  const net = await createNetwork(h, "k8s");
  const subnet = await h.call("POST", `/networks/${net}/actions/add_subnet`, {
    type: "cloud",
    network_zone: "eu-central",
    ip_range: "10.0.2.0/24",
  });
  if (subnet.status !== 201) throw new Error(`adding a subnet: ${JSON.stringify(subnet.body)}`);
  const ids: number[] = [];
  for (const name of ["n1", "n2", "n3"]) ids.push(await createServer(h, name, { networks: [net] }));
  const tls = await selfSignedTls(h.clock.now);
  const cert = await h.call("POST", "/certificates", { name: "web-cert", certificate: tls.cert, private_key: tls.key });
  const env = {
    HCLOUD_TOKEN: "-",
    HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
    ...(o.network ? { HCLOUD_NETWORK: "k8s" } : {}),
    ...(o.robot ? { ROBOT_ENABLED: "true" } : {}),
    ...o.env,
  };
  const config = v.parse(
    hcloudConfigSchema,
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
  );
  const warnings: string[] = [];
  /** hccm's type warnings (lb/type-warnings.ts), apart: every sync without a configured type gives one. */
  const typeWarnings: string[] = [];
  const lbs = new HcloudLoadBalancers(o.transport ?? e.t);
  const deps: HcloudLoadBalancerDeps = {
    lbs,
    network: o.network ? networkRef(e.networks, "k8s") : undefined,
    robot: o.robot ? e.robotApi : undefined,
    certificates: new HcloudCertificates(e.t),
    config,
    warn: (_s, reason, message) =>
      (reason.startsWith("LoadBalancerType") ? typeWarnings : warnings).push(`${reason}: ${message}`),
    now: e.t.now,
  };
  const nodes: Node[] = ["n1", "n2", "n3"].map((n, i) =>
    node(n, providerID(`hcloud://${ids[i]}`), (x) => {
      x.metadata = { ...x.metadata, labels: { role: n === "n1" ? "edge" : "worker" } };
    }),
  );
  const world = h.emulator.world;
  return {
    h,
    lbs,
    lb: createHcloudLoadBalancer(deps),
    deps,
    nodes,
    ids,
    net,
    certID: cert.body.certificate.id as number,
    warnings,
    typeWarnings,
    world,
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
    spec: { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] },
  };
}
