/**
 * What a Service wants of its Scaleway load balancer, as scw CCM reads it (scaleway/loadbalancers.go
 * `servicePortToFrontend`, `servicePortToBackend`, `createLoadBalancer`): pure, from the Service, its annotations
 * (already read), the Nodes and the configuration. No call is made here.
 *
 * - Name `SCW_CCM_PREFIX` + the Service UID; frontends `<uid>_<protocol>_<port>`, backends
 *   `<uid>_<protocol>_<nodePort>`, so scw CCM's frontends and backends are kept, not remade.
 * - One frontend and one backend per TCP port (others are left out, as by scw CCM, with a warning).
 * - Targets: the Nodes' ExternalIPs, or their InternalIPs with `force-internal-ip`, `PN_ID` or `pn-ids`. A Node
 *   without provider ID (a kubelet started without `--cloud-provider=external`) is left out and named in a warning;
 *   when that leaves no target at all, `pool` is `undefined`: the current servers are kept, never emptied.
 */
import type { Node, Service, ServicePort } from "../../../kube/objects.ts";
import { certificatesForPort, selects, valueForPort } from "../annotation-readers.ts";
import type { ScalewayAnnotationValues } from "../annotations.ts";
import type { BackendSpec, FrontendSpec, HealthCheckSpec } from "../api/lb-schemas.ts";
import type { ScalewayConfig } from "../config.ts";
import { aclAllowList } from "./acls.ts";

/** scw CCM's tag on every load balancer it creates. */
export const MANAGED_TAG = "managed-by-scaleway-cloud-controller-manager";

export class LoadBalancerSpecError extends Error {
  override readonly name = "LoadBalancerSpecError";
}

export interface PortPair {
  readonly frontend: FrontendSpec;
  readonly backend: BackendSpec;
}

export interface DesiredLoadBalancer extends LoadBalancerIdentity {
  readonly private: boolean;
  /** The `type` annotation: the type a load balancer is migrated to when it differs. */
  readonly type?: string | undefined;
  readonly sslCompatibilityLevel: string;
  /** What a create sends, besides the IPs. */
  readonly create: {
    readonly type: string;
    readonly description: string;
    readonly tags: readonly string[];
    readonly ipv6: boolean;
  };
  /** Flexible IPs by ID (`ip-ids`); `spec.loadBalancerIP` is resolved to one by the caller. */
  readonly ipIds: readonly string[];
  readonly loadBalancerIP?: string | undefined;
  /** The private networks to attach (`pn-ids`, else `PN_ID`). */
  readonly privateNetworks: readonly string[];
  /** IPAM IPs for the attachment (`private-ip-ids`), with one private network only. */
  readonly privateIpIds: readonly string[];
  readonly ports: readonly PortPair[];
  /** The backends' servers; `undefined`: keep what each has. */
  readonly pool: readonly string[] | undefined;
  /** What each frontend's access list allows (`spec.loadBalancerSourceRanges` and the Nodes); empty: no list. */
  readonly aclAllow: readonly string[];
  /** Only frontends and backends whose name starts with this are this Service's (externally managed). */
  readonly ownPrefix: string;
  readonly ingress: { readonly useHostname: boolean; readonly ipMode: "Proxy" | "VIP" };
  readonly warnings: readonly string[];
}

export interface DesiredInput {
  readonly service: Service;
  readonly values: ScalewayAnnotationValues;
  readonly nodes: readonly Node[];
  readonly config: Pick<ScalewayConfig, "loadBalancer" | "privateNetworkID" | "zone" | "region">;
}

/** Which load balancer is the Service's, and how far it is its own: what finding and deleting need. */
export interface LoadBalancerIdentity {
  readonly uid: string;
  readonly name: string;
  readonly zone: string;
  readonly ref?: { readonly zone: string; readonly id: string } | undefined;
  readonly externallyManaged: boolean;
}

export function identityOf(
  service: Service,
  values: Pick<ScalewayAnnotationValues, "id" | "zone" | "externallyManaged">,
  config: DesiredInput["config"],
): LoadBalancerIdentity {
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to name its load balancer by");
  return {
    uid,
    name: `${config.loadBalancer.prefix}${uid}`,
    zone: values.id?.zone ?? values.zone ?? config.zone ?? `${config.region}-1`,
    ref: values.id,
    externallyManaged: values.externallyManaged,
  };
}

export function desiredLoadBalancer(input: DesiredInput): DesiredLoadBalancer {
  const { service, values, config } = input;
  const identity = identityOf(service, values, config);
  const uid = identity.uid;
  const warnings: string[] = [];
  const privateNetworks =
    values.pnIds && values.pnIds.length > 0
      ? values.pnIds
      : config.privateNetworkID === undefined
        ? []
        : [config.privateNetworkID];
  if (values.private && privateNetworks.length === 0) {
    throw new LoadBalancerSpecError(
      "a private load balancer (scw-loadbalancer-private=true) needs a private network: set PN_ID or service.beta.kubernetes.io/scw-loadbalancer-pn-ids",
    );
  }
  const staticIP = (values.ipIds?.length ?? 0) > 0 || !!service.spec?.loadBalancerIP;
  if (values.private && staticIP) {
    throw new LoadBalancerSpecError(
      "a private load balancer takes no public IP: remove service.beta.kubernetes.io/scw-loadbalancer-ip-ids and spec.loadBalancerIP, or set scw-loadbalancer-private=false",
    );
  }
  if (values.externallyManaged && !values.id) {
    throw new LoadBalancerSpecError(
      "scw-loadbalancer-externally-managed=true needs service.beta.kubernetes.io/scw-loadbalancer-id set to the load balancer's zone/id",
    );
  }
  if (values.stickySessions === "cookie" && !values.stickySessionsCookieName) {
    throw new LoadBalancerSpecError(
      "scw-loadbalancer-sticky-sessions=cookie needs service.beta.kubernetes.io/scw-loadbalancer-sticky-sessions-cookie-name",
    );
  }
  if ((values.privateIpIds?.length ?? 0) > 0 && privateNetworks.length !== 1) {
    throw new LoadBalancerSpecError(
      "service.beta.kubernetes.io/scw-loadbalancer-private-ip-ids needs exactly one private network (PN_ID or one scw-loadbalancer-pn-ids); with several, leave the addresses to IPAM",
    );
  }
  const useInternal = values.forceInternalIp || privateNetworks.length > 0;
  const tcpPorts = (service.spec?.ports ?? []).filter((p) => (p.protocol ?? "TCP") === "TCP");
  const skipped = (service.spec?.ports ?? []).filter((p) => (p.protocol ?? "TCP") !== "TCP");
  if (skipped.length > 0) {
    warnings.push(
      `ports ${skipped.map((p) => `${p.port}/${p.protocol}`).join(", ")} are left out: Scaleway load balancers forward TCP only`,
    );
  }
  const labels = values.targetNodeLabels ?? {};
  const chosen = input.nodes.filter((n) => Object.entries(labels).every(([k, v]) => n.metadata?.labels?.[k] === v));
  return {
    ...identity,
    private: values.private,
    type: values.type?.toLowerCase(),
    sslCompatibilityLevel: values.sslCompatibilityLevel,
    create: {
      type: (values.type ?? config.loadBalancer.defaultType ?? "lb-s").toLowerCase(),
      description: `kubernetes service ${service.metadata?.name ?? ""}`,
      tags: [...config.loadBalancer.tags, MANAGED_TAG],
      ipv6: values.flexibleIpTypes.ipv6,
    },
    ipIds: values.ipIds ?? [],
    loadBalancerIP: service.spec?.loadBalancerIP || undefined,
    privateNetworks,
    privateIpIds: values.privateIpIds ?? [],
    ports: tcpPorts.map((p) => ({
      frontend: frontendOf(values, uid, p),
      backend: backendOf(service, values, uid, p),
    })),
    pool: poolOf(chosen, useInternal, warnings),
    aclAllow: aclAllowList(service, chosen, warnings),
    ownPrefix: values.externallyManaged ? `${uid}_` : "",
    ingress: ingressOf(service, values),
    warnings,
  };
}

/**
 * How the Service's ingress reports the load balancer: `ipMode: Proxy` when every TCP port sends the PROXY protocol
 * (scw CCM's `ipMode`), unless `ip-mode` says otherwise. Never throws: a port in both PROXY versions reads as VIP
 * here and is refused by `desiredLoadBalancer`.
 */
export function ingressOf(
  service: Service,
  values: ScalewayAnnotationValues,
): { readonly useHostname: boolean; readonly ipMode: "Proxy" | "VIP" } {
  const ports = (service.spec?.ports ?? []).filter((p) => (p.protocol ?? "TCP") === "TCP");
  const proxied = ports.filter((p) => {
    try {
      return proxyProtocolOf(values, p.port) !== "proxy_protocol_none";
    } catch {
      return false;
    }
  }).length;
  const ipMode = values.ipMode ?? (ports.length > 0 && proxied === ports.length ? "Proxy" : "VIP");
  return { useHostname: values.useHostname, ipMode };
}

function poolOf(chosen: readonly Node[], useInternal: boolean, warnings: string[]): readonly string[] | undefined {
  const unnamed = chosen.filter((n) => !n.spec?.providerID);
  if (unnamed.length > 0) {
    warnings.push(
      `Nodes ${unnamed.map((n) => n.metadata?.name ?? "?").join(", ")} have no provider ID (is their kubelet started with --cloud-provider=external?): they are not load-balancer targets`,
    );
  }
  const kind = useInternal ? "InternalIP" : "ExternalIP";
  const ips = chosen
    .filter((n) => n.spec?.providerID)
    .flatMap((n) => (n.status?.addresses ?? []).filter((a) => a.type === kind).map((a) => a.address));
  if (ips.length === 0 && unnamed.length > 0) {
    warnings.push("no Node can be a target: the load balancer's servers are kept as they are");
    return undefined;
  }
  return [...new Set(ips)];
}

function frontendOf(values: ScalewayAnnotationValues, uid: string, p: ServicePort): FrontendSpec {
  return {
    name: `${uid}_tcp_${p.port}`,
    inboundPort: p.port,
    timeoutClientMs: values.timeoutClient,
    certificateIds: values.certificateIds ? certificatesForPort(values.certificateIds, p.port) : [],
    enableHttp3: values.enableHttp3,
    enableAccessLogs: values.enableAccessLogs,
    connectionRateLimit: values.connectionRateLimit,
  };
}

export function proxyProtocolOf(values: ScalewayAnnotationValues, port: number): string {
  const v1 = values.proxyProtocolV1 !== undefined && selects(values.proxyProtocolV1, port);
  const v2 = values.proxyProtocolV2 !== undefined && selects(values.proxyProtocolV2, port);
  if (v1 && v2) {
    throw new LoadBalancerSpecError(
      `port ${port} is in both scw-loadbalancer-proxy-protocol-v1 and -v2; name it in one of them`,
    );
  }
  if (v1) return "proxy_protocol_v1";
  if (v2 || (values.sendProxyV2 !== undefined && selects(values.sendProxyV2, port))) return "proxy_protocol_v2";
  return "proxy_protocol_none";
}

function backendOf(service: Service, values: ScalewayAnnotationValues, uid: string, p: ServicePort): BackendSpec {
  const nodePort = p.nodePort;
  if (!nodePort) throw new LoadBalancerSpecError(`port ${p.port} has no nodePort yet; the sync is retried`);
  const http = values.protocolHttp !== undefined && selects(values.protocolHttp, p.port);
  return {
    name: `${uid}_tcp_${nodePort}`,
    forwardProtocol: http ? "http" : "tcp",
    forwardPort: nodePort,
    algorithm: values.forwardPortAlgorithm,
    stickySessions: values.stickySessions,
    cookieName: values.stickySessions === "cookie" ? (values.stickySessionsCookieName ?? "") : "",
    proxyProtocol: proxyProtocolOf(values, p.port),
    onMarkedDownAction: values.onMarkedDownAction,
    timeoutServerMs: values.timeoutServer,
    timeoutConnectMs: values.timeoutConnect,
    timeoutTunnelMs: values.timeoutTunnel,
    timeoutQueueMs: values.timeoutQueue,
    failoverHost: values.failoverHost,
    sslBridging: values.httpBackendTls !== undefined && selects(values.httpBackendTls, p.port),
    ignoreSslServerVerify:
      values.httpBackendTlsSkipVerify === undefined ? undefined : selects(values.httpBackendTlsSkipVerify, p.port),
    redispatchAttemptCount: values.redispatchAttemptCount,
    maxRetries: values.maxRetries,
    maxConnections: values.maxConnections,
    healthCheck: healthCheckOf(service, values, p.port, nodePort),
  };
}

function healthCheckOf(service: Service, values: ScalewayAnnotationValues, port: number, nodePort: number) {
  const common = {
    delayMs: values.healthCheckDelay,
    timeoutMs: values.healthCheckTimeout,
    maxRetries: values.healthCheckMaxRetries,
    transientDelayMs: values.healthTransientCheckDelay,
  };
  const native = values.healthCheckFromService !== undefined && selects(values.healthCheckFromService, port);
  const hcNodePort = service.spec?.healthCheckNodePort;
  if (native && hcNodePort) {
    return {
      ...common,
      port: hcNodePort,
      sendProxy: false,
      kind: "http",
      http: { uri: "/healthz", method: "GET", code: 200, hostHeader: "" },
    } satisfies HealthCheckSpec;
  }
  const kind = (values.healthCheckType && valueForPort(values.healthCheckType, port)) ?? "tcp";
  const spec: HealthCheckSpec = { ...common, port: nodePort, sendProxy: values.healthCheckSendProxy, kind };
  if (kind === "http" || kind === "https") {
    const uri = (values.healthCheckHttpUri && valueForPort(values.healthCheckHttpUri, port)) ?? { host: "", path: "/" };
    return {
      ...spec,
      http: {
        uri: uri.path,
        hostHeader: uri.host,
        method: (values.healthCheckHttpMethod && valueForPort(values.healthCheckHttpMethod, port)) ?? "GET",
        code: (values.healthCheckHttpCode && valueForPort(values.healthCheckHttpCode, port)) ?? 200,
      },
    };
  }
  const users =
    kind === "mysql" ? values.healthCheckMysqlUser : kind === "pgsql" ? values.healthCheckPgsqlUser : undefined;
  const user = users && valueForPort(users, port);
  if ((kind === "mysql" || kind === "pgsql") && user === undefined) {
    throw new LoadBalancerSpecError(
      `port ${port}'s ${kind} health check needs service.beta.kubernetes.io/scw-loadbalancer-health-check-${kind}-user`,
    );
  }
  return user === undefined ? spec : { ...spec, user };
}
