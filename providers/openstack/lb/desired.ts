/**
 * What a Service asks of its Octavia load balancer, as plain values (OCCM's `serviceConfig` and its create
 * options): the Service, its annotations (already read), the Nodes, `[LoadBalancer]`, and where the VIP goes (looked
 * up by the caller). No I/O, no clock: `plan.ts` compares this with the load balancer as it is.
 *
 * Names are OCCM's (`kube_service_<cluster>_<namespace>_<name>`, `listener_<i>_<lb>`, `pool_<i>_<lb>`,
 * `monitor_<i>_<lb>`, cut to 255 characters) so its load balancers are found and kept. Ownership is this
 * project's: the tag `kube_service_uid=<Service UID>`, which no other cluster's Service can carry.
 */
import type { Node, Service, ServicePort } from "../../../kube/objects.ts";
import { parseIP } from "../../../net/ip.ts";
import { annotationPrefix, INTERNAL_ANNOTATION, type OpenStackAnnotationValues } from "../annotations.ts";
import type { ListenerBody, MemberBody, MonitorBody, PoolBody } from "../api/octavia.ts";
import type { OpenStackConfig } from "../config.ts";

/** The ownership tag's prefix: `kube_service_uid=<uid>`. */
export const OWNER_TAG_PREFIX = "kube_service_uid=";
export const ownerTag = (uid: string) => `${OWNER_TAG_PREFIX}${uid}`;
/** OCCM's mark on the floating IPs it made (`deleteFIPIfCreatedByProvider`): only those are ever deleted. */
export const FLOATING_IP_MARK = "Floating IP for Kubernetes external service";

/** A Service that cannot get a load balancer as written; the message names what to change. */
export class LoadBalancerSpecError extends Error {
  override readonly name = "LoadBalancerSpecError";
}

export interface DesiredInput {
  readonly service: Service;
  readonly values: OpenStackAnnotationValues;
  readonly nodes: readonly Node[];
  readonly clusterName: string;
  readonly config: Pick<OpenStackConfig, "loadBalancer" | "loadBalancerClasses">;
  /** The VIP's network when neither subnet nor network is configured (the first Node's port's network). */
  readonly fallbackNetworkID?: string | undefined;
}

export interface DesiredListener {
  /** `TCP:80`: one listener per protocol and port. */
  readonly key: string;
  readonly listener: ListenerBody;
  readonly pool: PoolBody;
  readonly members: readonly MemberBody[];
  readonly monitor: MonitorBody | undefined;
}

export interface DesiredLoadBalancer {
  readonly uid: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly provider: string;
  readonly flavorID?: string;
  readonly availabilityZone?: string;
  readonly vip: {
    readonly subnetID?: string;
    readonly networkID?: string;
    readonly portID?: string;
    readonly address?: string;
  };
  readonly listeners: readonly DesiredListener[];
  /** Where its floating IP comes from; `undefined` for an internal one or without a floating network. */
  readonly floating?: {
    readonly networkID: string;
    readonly subnetID?: string;
    /** When no subnet ID is given: the subnet by name pattern and tags (`lb/subnet-match.ts`). */
    readonly subnetPattern?: string;
    readonly subnetTags?: string;
    readonly address?: string;
  };
  readonly floatingDescription: string;
  /** Internal (annotation or `[LoadBalancer] internal-lb`): a floating IP on its VIP is taken off. */
  readonly internal: boolean;
  readonly keepFloatingIP: boolean;
  readonly proxyProtocol: boolean;
  readonly hostname?: string;
  /** `[LoadBalancer] enable-ingress-hostname` with the PROXY protocol: the status says `<ip>.<suffix>`. */
  readonly ingressHostnameSuffix?: string;
}

/** `fmt.Sprintf` cut to 255 characters, as OCCM's `Sprintf255`. */
const cut = (s: string) => s.slice(0, 255);

export function loadBalancerName(clusterName: string, service: Service): string {
  return cut(`kube_service_${clusterName}_${service.metadata?.namespace ?? ""}_${service.metadata?.name ?? ""}`);
}

export function desiredLoadBalancer(input: DesiredInput): DesiredLoadBalancer {
  const { service, values: a, config } = input;
  const lbConf = config.loadBalancer;
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to own its load balancer by");
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0) throw new LoadBalancerSpecError("the Service has no ports");
  if (a.proxyProtocol !== undefined && a.xForwardedFor) {
    throw new LoadBalancerSpecError(
      `${annotationPrefix}proxy-protocol and ${annotationPrefix}x-forwarded-for cannot be used together; remove one`,
    );
  }
  const klass = a.class === undefined ? undefined : config.loadBalancerClasses[a.class];
  if (a.class !== undefined && !klass) {
    const known = Object.keys(config.loadBalancerClasses);
    throw new LoadBalancerSpecError(
      `${annotationPrefix}class names "${a.class}", which cloud.conf has no [LoadBalancerClass "${a.class}"] for (${known.length > 0 ? `it has ${known.join(", ")}` : "it has none"})`,
    );
  }
  const provider = lbConf["lb-provider"];
  const method = a.lbMethod;
  if (provider === "ovn" && method !== "SOURCE_IP_PORT") {
    throw new LoadBalancerSpecError(
      `the ovn provider takes only the SOURCE_IP_PORT algorithm; set ${annotationPrefix}lb-method=SOURCE_IP_PORT or [LoadBalancer] lb-method`,
    );
  }
  const internal = lbConf["internal-lb"] || a.internal;
  const name = loadBalancerName(input.clusterName, service);
  const ns = `${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
  const family = service.spec?.ipFamilies?.[0] === "IPv6" ? "IPv6" : "IPv4";
  const local = service.spec?.externalTrafficPolicy === "Local" ? (service.spec.healthCheckNodePort ?? 0) : 0;
  const monitorPort = a.enableHealthMonitor && local > 0 ? local : undefined;
  const members = (port: ServicePort) =>
    membersFor(input, port, family, klass?.["member-subnet-id"] ?? a.memberSubnetID, monitorPort);
  const proxy = a.proxyProtocol;
  const tls = a.defaultTLSContainerRef;
  const cidrs = sourceRanges(service, family);

  const listeners = ports.map((port, i): DesiredListener => {
    const protocol = port.protocol ?? "TCP";
    const listenerProtocol = tls !== undefined ? "TERMINATED_HTTPS" : a.xForwardedFor ? "HTTP" : protocol;
    const poolProtocol = proxy ?? (a.xForwardedFor || tls !== undefined ? "HTTP" : protocol);
    const listener: ListenerBody = {
      name: cut(`listener_${i}_${name}`),
      protocol: listenerProtocol,
      protocol_port: port.port,
      connection_limit: a.connectionLimit,
      timeout_client_data: a.timeoutClientData,
      timeout_member_connect: a.timeoutMemberConnect,
      timeout_member_data: a.timeoutMemberData,
      timeout_tcp_inspect: a.timeoutTCPInspect,
      ...(a.xForwardedFor ? { insert_headers: { "X-Forwarded-For": "true" } } : {}),
      ...(cidrs.length > 0 ? { allowed_cidrs: cidrs } : {}),
      ...(tls === undefined ? {} : { default_tls_container_ref: tls }),
      tags: [name],
    };
    const pool: PoolBody = {
      name: cut(`pool_${i}_${name}`),
      protocol: poolProtocol,
      lb_algorithm: method,
      session_persistence: service.spec?.sessionAffinity === "ClientIP" ? { type: "SOURCE_IP" } : null,
    };
    return {
      key: `${listenerProtocol}:${port.port}`,
      listener,
      pool,
      members: members(port),
      monitor: a.enableHealthMonitor ? monitorFor(service, port, a, cut(`monitor_${i}_${name}`), provider) : undefined,
    };
  });

  const floatingNetwork = klass?.["floating-network-id"] ?? a.floatingNetworkID;
  const subnetID = klass?.["subnet-id"] ?? a.subnetID;
  const networkID =
    klass?.["network-id"] ?? a.networkID ?? (subnetID === undefined ? input.fallbackNetworkID : undefined);
  if (a.portID === undefined && subnetID === undefined && networkID === undefined) {
    throw new LoadBalancerSpecError(
      `no network for the VIP: set [LoadBalancer] subnet-id or network-id, or ${annotationPrefix}subnet-id, or give the Nodes an InternalIP on a Neutron port`,
    );
  }
  const requestedIP = service.spec?.loadBalancerIP || undefined;
  const floatingSubnet = klass?.["floating-subnet-id"] ?? a.floatingSubnetID;
  const subnetPattern = klass?.["floating-subnet"] ?? a.floatingSubnet;
  const subnetTags = klass?.["floating-subnet-tags"] ?? a.floatingSubnetTags;
  return {
    uid,
    name,
    description: `Kubernetes external service ${ns} from cluster ${input.clusterName}`,
    tags: [name, ownerTag(uid)],
    provider,
    ...(a.flavorID === undefined ? {} : { flavorID: a.flavorID }),
    ...(a.availabilityZone === undefined ? {} : { availabilityZone: a.availabilityZone }),
    vip:
      a.portID !== undefined
        ? { portID: a.portID }
        : {
            ...(subnetID === undefined ? {} : { subnetID }),
            ...(networkID === undefined ? {} : { networkID }),
            ...(requestedIP !== undefined && (internal || family === "IPv6") ? { address: requestedIP } : {}),
          },
    listeners,
    ...(internal || !floatingNetwork
      ? {}
      : {
          floating: {
            networkID: floatingNetwork,
            ...(floatingSubnet === undefined ? {} : { subnetID: floatingSubnet }),
            ...(floatingSubnet !== undefined || subnetPattern === undefined ? {} : { subnetPattern }),
            ...(floatingSubnet !== undefined || subnetTags === undefined ? {} : { subnetTags }),
            ...(requestedIP === undefined ? {} : { address: requestedIP }),
          },
        }),
    floatingDescription: `${FLOATING_IP_MARK} ${ns} from cluster ${input.clusterName}`,
    internal,
    keepFloatingIP: a.keepFloatingIP,
    proxyProtocol: proxy !== undefined,
    ...(a.hostname === undefined ? {} : { hostname: a.hostname }),
    ...(proxy !== undefined && lbConf["enable-ingress-hostname"]
      ? { ingressHostnameSuffix: lbConf["ingress-hostname-suffix"] }
      : {}),
  };
}

/** `loadBalancerSourceRanges` of the VIP's family, or none when they allow everyone (OCCM leaves the ACL off). */
function sourceRanges(service: Service, family: "IPv4" | "IPv6"): string[] {
  const ranges = service.spec?.loadBalancerSourceRanges ?? [];
  const mine = ranges.filter((r) => r.includes(":") === (family === "IPv6"));
  return mine.every((r) => r === "0.0.0.0/0" || r === "::/0") ? [] : mine;
}

function monitorFor(
  service: Service,
  port: ServicePort,
  a: OpenStackAnnotationValues,
  name: string,
  provider: string,
): MonitorBody {
  const timings = {
    name,
    delay: a.healthMonitorDelay,
    timeout: a.healthMonitorTimeout,
    max_retries: a.healthMonitorMaxRetries,
    max_retries_down: a.healthMonitorMaxRetriesDown,
  };
  // OCCM's HTTP monitor on kube-proxy's health check port with `Local` traffic (not on ovn, which has no HTTP one).
  const local = service.spec?.externalTrafficPolicy === "Local" && (service.spec.healthCheckNodePort ?? 0) > 0;
  if (local && provider !== "ovn" && port.protocol !== "UDP" && port.protocol !== "SCTP") {
    return { ...timings, type: "HTTP", url_path: "/healthz", http_method: "GET", expected_codes: "200" };
  }
  return { ...timings, type: port.protocol === "UDP" ? "UDP-CONNECT" : (port.protocol ?? "TCP") };
}

/** A member per selected Node with an address of the VIP's family: the InternalIP, else the ExternalIP (OCCM). */
function membersFor(
  input: DesiredInput,
  port: ServicePort,
  family: "IPv4" | "IPv6",
  subnetID: string | undefined,
  monitorPort: number | undefined,
): MemberBody[] {
  if (!port.nodePort) {
    throw new LoadBalancerSpecError(`port ${port.name ?? port.port} has no nodePort yet; it is set by the API server`);
  }
  const selector = input.values.nodeSelector;
  const out: MemberBody[] = [];
  for (const node of input.nodes) {
    const labels = node.metadata?.labels ?? {};
    if (!Object.entries(selector).every(([k, want]) => k in labels && (want === "" || labels[k] === want))) continue;
    const address = nodeAddress(node, family);
    if (address === undefined) continue;
    out.push({
      name: node.metadata?.name ?? "",
      address,
      protocol_port: port.nodePort,
      ...(subnetID === undefined ? {} : { subnet_id: subnetID }),
      ...(monitorPort === undefined ? {} : { monitor_port: monitorPort }),
    });
  }
  return out.sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
}

export function nodeAddress(node: Node, family: "IPv4" | "IPv6"): string | undefined {
  const addresses = node.status?.addresses ?? [];
  for (const type of ["InternalIP", "ExternalIP"]) {
    for (const a of addresses) {
      if (a.type !== type) continue;
      const ip = parseIP(a.address);
      if (ip && (ip.family === 4) === (family === "IPv4")) return a.address;
    }
  }
  return undefined;
}

export { INTERNAL_ANNOTATION };
