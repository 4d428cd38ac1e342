/**
 * What a Service asks of its DigitalOcean load balancer, as plain values: the Service, its annotations (already
 * read), the Nodes with their Droplet IDs, the certificate ID (already looked up) and the configuration in; the
 * create/update body out. Pure: no call, no clock. It follows DO CCM's `buildLoadBalancerRequest`:
 *
 * - **Rules**: a `REGIONAL` load balancer forwards each Service port to its node port, with the protocol the
 *   annotations give the port (`udp` for a UDP port); `https` and `http2` end TLS with the certificate (then speak
 *   `http` to the Droplets) or pass it through; a certificate or passthrough without `tls-ports` makes port 443
 *   `https`. `http3-port` adds one `http3` rule. A `REGIONAL_NETWORK` one forwards each port to the same port.
 * - **Health check**: kube-proxy's (`http` on 10256, `/healthz`), or the Service's `healthCheckNodePort` with
 *   `externalTrafficPolicy: Local`, unless `override-health-check` says otherwise.
 * - **Droplets**: for a `REGIONAL_NETWORK` `EXTERNAL` load balancer only Nodes with a public IPv4 address (IPv6-only
 *   Nodes are left out); every Node otherwise.
 * - **Type and network** are read at creation: for an existing load balancer its own are kept, and a Service asking
 *   for others gets a warning instead of a refused update.
 */
import type { Node, Service } from "../../../kube/objects.ts";
import { defaultLoadBalancerName } from "../../cloud.ts";
import type { DigitalOceanAnnotationValues } from "../annotations.ts";
import type { CloudLoadBalancer, LoadBalancerBody } from "../api/load-balancers.ts";
import { LoadBalancerSpecError } from "./errors.ts";
import { healthCheck, networkRules, regionalRules } from "./rules.ts";

export interface DesiredInput {
  readonly service: Service;
  readonly values: DigitalOceanAnnotationValues;
  /** The Nodes to serve with, each with its Droplet ID (`undefined` when none is known: left out, with a warning). */
  readonly nodes: readonly { readonly node: Node; readonly dropletID: number | undefined }[];
  readonly config: {
    readonly region: string;
    readonly vpcID?: string | undefined;
    readonly defaultLoadBalancerType: "REGIONAL" | "REGIONAL_NETWORK";
  };
  /** `certificate-id`, or the ID `certificate-name` names. */
  readonly certificateID?: string | undefined;
  /** The tags that make it this cluster's and this Service's. */
  readonly tags: readonly string[];
  /** The load balancer as it is, when there is one: its type, network, region and size are kept. */
  readonly current?: CloudLoadBalancer | undefined;
}

export interface DesiredLoadBalancer {
  readonly name: string;
  readonly body: LoadBalancerBody;
  /** The hostname to report instead of the IP. */
  readonly hostname?: string | undefined;
  readonly proxyProtocol: boolean;
  /** Things that do not stop the sync but that the Service's owner should hear about. */
  readonly warnings: readonly string[];
}

export function desiredLoadBalancer(input: DesiredInput): DesiredLoadBalancer {
  const { service, values, current } = input;
  const warnings: string[] = [];
  const annotatedType = values.type ?? input.config.defaultLoadBalancerType;
  const annotatedNetwork = values.network ?? "EXTERNAL";
  const type = (current?.type as typeof annotatedType | undefined) ?? annotatedType;
  const network = current?.network ?? annotatedNetwork;
  if (current && values.type !== undefined && values.type !== type) {
    warnings.push(`do-loadbalancer-type ${values.type} is read at creation: load balancer ${current.id} stays ${type}`);
  }
  if (current && values.network !== undefined && values.network !== network) {
    warnings.push(
      `do-loadbalancer-network ${values.network} is read at creation: load balancer ${current.id} stays ${network}`,
    );
  }
  if (values.sizeSlug !== undefined && values.sizeUnit !== undefined) {
    throw new LoadBalancerSpecError("set only one of do-loadbalancer-size-slug and do-loadbalancer-size-unit");
  }

  const backends = eligibleNodes(input.nodes, type, network);
  const missing = backends.filter((b) => b.dropletID === undefined).map((b) => b.node.metadata?.name ?? "");
  if (missing.length > 0) warnings.push(`no Droplet found for Node(s) ${missing.join(", ")}: left out`);
  const rules =
    type === "REGIONAL_NETWORK" ? networkRules(service) : regionalRules(service, values, input.certificateID);
  const stack = networkStack(values, type, network, backends);
  const size =
    values.sizeUnit !== undefined
      ? { size_unit: values.sizeUnit }
      : values.sizeSlug !== undefined
        ? { size: values.sizeSlug }
        : sizeOf(current);
  const ids = backends.flatMap((b) => (b.dropletID === undefined ? [] : [b.dropletID]));
  const name = values.name ?? defaultLoadBalancerName(service);
  const body: LoadBalancerBody = {
    name,
    region: current?.region?.slug ?? input.config.region,
    ...size,
    type,
    network,
    network_stack: current?.network_stack ?? stack,
    algorithm: values.algorithm,
    forwarding_rules: rules,
    health_check: healthCheck(service, values),
    sticky_sessions: sticky(values),
    redirect_http_to_https: values.redirectHttpToHttps,
    enable_proxy_protocol: values.proxyProtocol,
    enable_backend_keepalive: values.backendKeepalive,
    disable_lets_encrypt_dns_records: values.disableLetsEncryptDNSRecords,
    http_idle_timeout_seconds: values.httpIdleTimeout ?? 60,
    firewall: firewall(service, values),
    ...(current
      ? current.vpc_uuid
        ? { vpc_uuid: current.vpc_uuid }
        : {}
      : input.config.vpcID
        ? { vpc_uuid: input.config.vpcID }
        : {}),
    ...(!current && values.subnetUUID !== undefined ? { vpc_subnet_uuid: values.subnetUUID } : {}),
    ...(!current && values.ip !== undefined ? { ip: values.ip } : {}),
    tags: [...new Set([...(current?.tags ?? []), ...input.tags])],
    droplet_ids: [...new Set(ids)].sort((a, b) => a - b),
  };
  return { name, body, hostname: values.hostname?.toLowerCase(), proxyProtocol: values.proxyProtocol, warnings };
}

function sizeOf(current: CloudLoadBalancer | undefined): { size_unit?: number } | { size?: string } {
  if (current?.size_unit) return { size_unit: current.size_unit };
  if (current?.size) return { size: current.size };
  return {};
}

type Backend = DesiredInput["nodes"][number];

function externalFamilies(node: Node): { v4: boolean; v6: boolean } {
  const external = (node.status?.addresses ?? []).filter((a) => a.type === "ExternalIP").map((a) => a.address);
  return { v4: external.some((a) => !a.includes(":")), v6: external.some((a) => a.includes(":")) };
}

/** DO CCM's `filterAndClassifyNodes`: a `REGIONAL_NETWORK` `EXTERNAL` load balancer needs public IPv4 backends. */
function eligibleNodes(nodes: DesiredInput["nodes"], type: string, network: string): Backend[] {
  if (network === "INTERNAL") return [...nodes];
  const privateOk = type === "REGIONAL";
  const out = nodes.filter(({ node }) => {
    const f = externalFamilies(node);
    if (f.v4) return true;
    if (f.v6) return false;
    return privateOk && (node.status?.addresses ?? []).some((a) => a.type === "InternalIP" && !a.address.includes(":"));
  });
  if (out.length === 0 && nodes.length > 0 && type === "REGIONAL_NETWORK") {
    throw new LoadBalancerSpecError(
      'a REGIONAL_NETWORK EXTERNAL load balancer needs at least one Node with a public IPv4 address; for private-only Nodes set service.beta.kubernetes.io/do-loadbalancer-type to "REGIONAL" or service.beta.kubernetes.io/do-loadbalancer-network to "INTERNAL"',
    );
  }
  return out;
}

function networkStack(
  values: DigitalOceanAnnotationValues,
  type: string,
  network: string,
  backends: Backend[],
): string {
  const stack =
    values.networkStack ??
    (network === "INTERNAL"
      ? "IPV4"
      : type === "REGIONAL_NETWORK"
        ? backends.length > 0 && backends.every((b) => externalFamilies(b.node).v6)
          ? "DUALSTACK"
          : "IPV4"
        : "DUALSTACK");
  if (stack === "DUALSTACK" && network === "INTERNAL") {
    throw new LoadBalancerSpecError(
      "do-loadbalancer-network-stack DUALSTACK does not work with an INTERNAL load balancer",
    );
  }
  if (stack === "DUALSTACK" && type === "REGIONAL_NETWORK") {
    const v4only = backends.filter((b) => !externalFamilies(b.node).v6).map((b) => b.node.metadata?.name ?? "");
    if (v4only.length > 0) {
      throw new LoadBalancerSpecError(
        `do-loadbalancer-network-stack DUALSTACK on a REGIONAL_NETWORK load balancer needs IPv6 on every Node; ${v4only.slice(0, 3).join(", ")} have none`,
      );
    }
  }
  return stack;
}

function sticky(values: DigitalOceanAnnotationValues): LoadBalancerBody["sticky_sessions"] {
  if (values.stickyType !== "cookies") return { type: "none" };
  if (values.stickyCookieName === undefined || values.stickyCookieTTL === undefined) {
    throw new LoadBalancerSpecError(
      "do-loadbalancer-sticky-sessions-type cookies needs do-loadbalancer-sticky-sessions-cookie-name and -cookie-ttl",
    );
  }
  return { type: "cookies", cookie_name: values.stickyCookieName, cookie_ttl_seconds: values.stickyCookieTTL };
}

function firewall(service: Service, values: DigitalOceanAnnotationValues): LoadBalancerBody["firewall"] {
  const ranges = service.spec?.loadBalancerSourceRanges ?? [];
  const allow = ranges.length > 0 ? ranges.map((r) => `cidr:${r.trim()}`) : (values.allowRules ?? []);
  return { allow, deny: values.denyRules ?? [] };
}
