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
import type { CloudLoadBalancer, ForwardingRule, HealthCheck, LoadBalancerBody } from "../api/load-balancers.ts";

/** The Service cannot be served as its annotations and spec say; the message names the setting to change. */
export class LoadBalancerSpecError extends Error {
  override readonly name = "LoadBalancerSpecError";
}

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

const KUBE_PROXY_HEALTH_PORT = 10256;

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
  const rules = type === "REGIONAL_NETWORK" ? networkRules(service) : regionalRules(input);
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

function servicePorts(service: Service) {
  const ports = service.spec?.ports ?? [];
  for (const p of ports) {
    if ((p.protocol ?? "TCP") !== "TCP" && p.protocol !== "UDP") {
      throw new LoadBalancerSpecError(`port ${p.port} is ${p.protocol}: only TCP and UDP ports can be load balanced`);
    }
  }
  return ports;
}

function networkRules(service: Service): ForwardingRule[] {
  return servicePorts(service).map((p) => {
    const protocol = p.protocol === "UDP" ? "udp" : "tcp";
    return { entry_protocol: protocol, entry_port: p.port, target_protocol: protocol, target_port: p.port };
  });
}

function regionalRules(input: DesiredInput): ForwardingRule[] {
  const { service, values, certificateID } = input;
  const http = values.httpPorts ?? [];
  const https = [...(values.tlsPorts ?? [])];
  const http2 = values.http2Ports ?? [];
  const all = [...http, ...https, ...http2];
  const shared = [...new Set(all.filter((p, i) => all.indexOf(p) !== i))].sort((a, b) => a - b);
  if (shared.length > 0) {
    throw new LoadBalancerSpecError(
      `port(s) ${shared.join(", ")} are in more than one of do-loadbalancer-http-ports, -tls-ports and -http2-ports`,
    );
  }
  const passthrough = values.tlsPassthrough;
  if (certificateID !== undefined && passthrough) {
    throw new LoadBalancerSpecError(
      "set either a certificate (do-loadbalancer-certificate-id or -name) or do-loadbalancer-tls-passthrough, not both",
    );
  }
  if ((certificateID !== undefined || passthrough) && https.length === 0 && !http2.includes(443)) https.push(443);
  const rules: ForwardingRule[] = [];
  for (const p of servicePorts(service)) {
    let protocol: string = values.protocol;
    if (http.includes(p.port)) protocol = "http";
    if (https.includes(p.port)) protocol = "https";
    if (http2.includes(p.port)) protocol = "http2";
    if (p.protocol === "UDP") protocol = "udp";
    const nodePort = p.nodePort;
    if (nodePort === undefined) {
      throw new LoadBalancerSpecError(`port ${p.port} has no node port yet (a REGIONAL load balancer forwards to it)`);
    }
    if (protocol === "https" || protocol === "http2") {
      if (certificateID === undefined && !passthrough) {
        throw new LoadBalancerSpecError(
          `port ${p.port} is ${protocol}: set do-loadbalancer-certificate-id (or -name) or do-loadbalancer-tls-passthrough`,
        );
      }
      rules.push(
        passthrough
          ? {
              entry_protocol: protocol,
              entry_port: p.port,
              target_protocol: protocol,
              target_port: nodePort,
              tls_passthrough: true,
            }
          : {
              entry_protocol: protocol,
              entry_port: p.port,
              target_protocol: "http",
              target_port: nodePort,
              certificate_id: certificateID as string,
            },
      );
    } else {
      rules.push({ entry_protocol: protocol, entry_port: p.port, target_protocol: protocol, target_port: nodePort });
    }
  }
  if (values.http3Port !== undefined) {
    if (passthrough) throw new LoadBalancerSpecError("do-loadbalancer-http3-port does not work with TLS passthrough");
    if (certificateID === undefined) {
      throw new LoadBalancerSpecError(
        "do-loadbalancer-http3-port needs a certificate (do-loadbalancer-certificate-id or -name)",
      );
    }
    const p = (service.spec?.ports ?? []).find((sp) => sp.port === values.http3Port);
    if (p) {
      rules.push({
        entry_protocol: "http3",
        entry_port: p.port,
        target_protocol: "http",
        target_port: p.nodePort ?? 0,
        certificate_id: certificateID,
      });
    }
  }
  return rules;
}

function healthCheck(service: Service, values: DigitalOceanAnnotationValues): HealthCheck {
  const timing = {
    check_interval_seconds: values.healthCheckInterval,
    response_timeout_seconds: values.healthCheckTimeout,
    unhealthy_threshold: values.unhealthyThreshold,
    healthy_threshold: values.healthyThreshold,
  };
  if (values.overrideHealthCheck) {
    const path = values.healthCheckPath ?? "";
    const protocol = values.healthCheckProtocol ?? (path !== "" ? "http" : "tcp");
    return { protocol, port: healthCheckNodePort(service, values.healthCheckPort), path, ...timing };
  }
  const local = service.spec?.externalTrafficPolicy === "Local" && service.spec.healthCheckNodePort;
  return local
    ? {
        protocol: "http",
        port: service.spec?.healthCheckNodePort as number,
        path: "/healthz",
        proxy_protocol: false,
        ...timing,
      }
    : { protocol: "http", port: KUBE_PROXY_HEALTH_PORT, path: "/healthz", proxy_protocol: false, ...timing };
}

function healthCheckNodePort(service: Service, port: number | undefined): number {
  const ports = service.spec?.ports ?? [];
  const chosen =
    port === undefined ? ports.find((p) => (p.protocol ?? "TCP") === "TCP") : ports.find((p) => p.port === port);
  if (!chosen) throw new LoadBalancerSpecError("the Service has no TCP port for the health check");
  if (chosen.nodePort === undefined) {
    throw new LoadBalancerSpecError(`port ${chosen.port} has no node port yet for the health check to probe`);
  }
  return chosen.nodePort;
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
