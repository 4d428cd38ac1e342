/**
 * What a Service asks of its Hetzner load balancer, as plain values: the Service, its annotations (already read, so
 * invalid ones never get here), the Nodes, the settings, and what the caller looked up (the network's ID, Robot's
 * servers, certificate IDs). No I/O, no clock: `plan.ts` compares this with the load balancer as it is.
 *
 * `undefined` in a field means what hccm means by an unset annotation: the API's default at creation, the load
 * balancer's current value left alone afterwards.
 */
import type { Node, Service } from "../../../kube/objects.ts";
import { formatCIDR } from "../../../net/cidr.ts";
import { formatIP } from "../../../net/ip.ts";
import { defaultLoadBalancerName } from "../../cloud.ts";
import { type HcloudAnnotationValues, annotationKey as key } from "../annotations.ts";
import type { HealthCheckBody, ServiceBody, TargetBody } from "../api/load-balancers.ts";
import type { RobotServer } from "../api/robot.ts";
import type { HcloudConfig } from "../config.ts";
import { tryParseProviderID } from "../provider-id.ts";

export interface DesiredInput {
  readonly service: Service;
  readonly values: HcloudAnnotationValues;
  /** The Nodes the framework offers (excluded ones already left out); the node selector is applied here. */
  readonly nodes: readonly Node[];
  readonly config: {
    readonly loadBalancers: Pick<HcloudConfig["loadBalancers"], "type">;
    readonly robot: Pick<HcloudConfig["robot"], "enabled">;
  };
  /** `HCLOUD_NETWORK`'s ID, when set. */
  readonly networkID?: number | undefined;
  /** Robot's servers by number, when Robot is on with credentials. */
  readonly robotServers?: ReadonlyMap<number, RobotServer> | undefined;
  /** The IDs of the https certificates (uploaded ones resolved by name, or the managed one). */
  readonly certificateIDs?: readonly number[] | undefined;
}

/** What creation takes that cannot change afterwards (location, network zone) or is set once there. */
export interface DesiredCreate {
  readonly type: string;
  readonly location?: string;
  readonly networkZone?: string;
  readonly algorithm?: string;
  readonly publicInterface?: boolean;
}

export interface DesiredNetwork {
  readonly id: number;
  /** `private-ipv4`: the address it must have there; otherwise any. */
  readonly ip?: string;
  /** `private-subnet-ip-range`: only used when attaching. */
  readonly ipRange?: string;
}

export interface DesiredLoadBalancer {
  readonly uid: string;
  /** The name to create with. */
  readonly name: string;
  /** Set when the name annotation is: an existing load balancer is renamed to it. */
  readonly rename?: string;
  readonly create: DesiredCreate;
  /** Change the type only when the annotation or `HCLOUD_LOAD_BALANCERS_TYPE` names one (hccm). */
  readonly type?: string;
  readonly algorithm?: string;
  readonly publicInterface?: boolean;
  readonly ipv4RDNS?: string;
  readonly ipv6RDNS?: string;
  /** The network to be attached to; every other attachment is detached (hccm), all of them when this is unset. */
  readonly network?: DesiredNetwork;
  /** One per TCP port of the Service, by listen port. */
  readonly services: readonly ServiceBody[];
  readonly targets: readonly TargetBody[];
  /** For the status. */
  readonly proxyProtocol: boolean;
  readonly ingress: { readonly hostname?: string; readonly ipv6: boolean; readonly privateIngress: boolean };
  /** Things worth a Warning event that do not stop the sync. */
  readonly warnings: readonly string[];
}

/** A Service that cannot get a load balancer as written; the message names what to change. */
export class LoadBalancerSpecError extends Error {
  override readonly name = "LoadBalancerSpecError";
}

export function desiredLoadBalancer(input: DesiredInput): DesiredLoadBalancer {
  const { service, values: a } = input;
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to own its load balancer by");
  const warnings: string[] = [];
  const name = a.name ?? defaultLoadBalancerName(service);
  const typeSet = service.metadata?.annotations?.[key("type")] !== undefined || input.config.loadBalancers.type;
  if (a.usePrivateIP && input.networkID === undefined) {
    throw new LoadBalancerSpecError(
      `${key("use-private-ip")} (or HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP) needs a private network: set HCLOUD_NETWORK`,
    );
  }
  if (a.disablePublicNetwork && input.networkID === undefined) {
    throw new LoadBalancerSpecError(
      `${key("disable-public-network")} (or HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK) leaves the load balancer reachable only over a private network: set HCLOUD_NETWORK`,
    );
  }
  if (a.disablePublicNetwork && !a.usePrivateIP) {
    throw new LoadBalancerSpecError(
      `${key("disable-public-network")} needs ${key("use-private-ip")}=true (or HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP): without a public interface the load balancer reaches its targets over the network only`,
    );
  }
  const create: DesiredCreate = {
    type: a.type,
    ...placement(a),
    ...(a.algorithm === undefined ? {} : { algorithm: a.algorithm }),
    ...(a.disablePublicNetwork === undefined ? {} : { publicInterface: !a.disablePublicNetwork }),
  };
  const network: DesiredNetwork | undefined =
    input.networkID === undefined
      ? undefined
      : {
          id: input.networkID,
          ...(a.privateIPv4 === undefined ? {} : { ip: formatIP(a.privateIPv4) }),
          ...(a.privateSubnet === undefined ? {} : { ipRange: formatCIDR(a.privateSubnet) }),
        };
  return {
    uid,
    name,
    ...(a.name === undefined ? {} : { rename: a.name }),
    create,
    ...(typeSet ? { type: a.type } : {}),
    ...(a.algorithm === undefined ? {} : { algorithm: a.algorithm }),
    ...(a.disablePublicNetwork === undefined ? {} : { publicInterface: !a.disablePublicNetwork }),
    ...(a.ipv4RDNS === undefined ? {} : { ipv4RDNS: a.ipv4RDNS }),
    ...(a.ipv6RDNS === undefined ? {} : { ipv6RDNS: a.ipv6RDNS }),
    ...(network === undefined ? {} : { network }),
    services: listeners(input, warnings),
    targets: targets(input, warnings),
    proxyProtocol: a.proxyProtocol,
    ingress: {
      ...(a.hostname === undefined ? {} : { hostname: a.hostname }),
      ipv6: !a.ipv6Disabled,
      privateIngress: !a.disablePrivateIngress,
    },
    warnings,
  };
}

/** The location wins over the network zone; one of them is required (hccm refuses to create without). */
function placement(a: HcloudAnnotationValues): { location?: string; networkZone?: string } {
  if (a.location) return { location: a.location };
  if (a.networkZone) return { networkZone: a.networkZone };
  return {};
}

function listeners(input: DesiredInput, warnings: string[]): ServiceBody[] {
  const { service, values: a } = input;
  const out: ServiceBody[] = [];
  for (const port of service.spec?.ports ?? []) {
    const protocol = port.protocol ?? "TCP";
    if (protocol !== "TCP") {
      warnings.push(`port ${port.port}/${protocol}: Hetzner load balancers forward TCP only; the port is left out`);
      continue;
    }
    if (!port.nodePort) {
      throw new LoadBalancerSpecError(
        `port ${port.port} has no nodePort: Hetzner load balancers forward to NodePorts; leave spec.allocateLoadBalancerNodePorts unset or true`,
      );
    }
    out.push({
      listen_port: port.port,
      protocol: a.protocol,
      destination_port: port.nodePort,
      proxyprotocol: a.proxyProtocol,
      ...httpOptions(input, warnings),
      health_check: healthCheck(a, port.nodePort),
    });
  }
  return out;
}

function httpOptions(input: DesiredInput, warnings: string[]): Pick<ServiceBody, "http"> {
  const a = input.values;
  const http = {
    ...(a.cookieName === undefined ? {} : { cookie_name: a.cookieName }),
    ...(a.cookieLifetime === undefined ? {} : { cookie_lifetime: a.cookieLifetime / 1000 }),
    ...(input.certificateIDs === undefined ? {} : { certificates: input.certificateIDs }),
    ...(a.redirectHTTP === undefined ? {} : { redirect_http: a.redirectHTTP }),
    ...(a.stickySessions === undefined ? {} : { sticky_sessions: a.stickySessions }),
    ...(a.timeoutIdle === undefined ? {} : { timeout_idle: a.timeoutIdle / 1000 }),
  };
  if (Object.keys(http).length === 0) return {};
  if (a.protocol === "tcp") {
    const w = `${key("protocol")} is tcp, so the HTTP options (${Object.keys(http).join(", ")}) are not applied; set it to http or https`;
    if (!warnings.includes(w)) warnings.push(w);
    return {};
  }
  return { http };
}

/**
 * Hetzner's defaults for what the API document requires of every health check, used when neither an annotation nor
 * the provider's `HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_*` setting gives a value: seconds, seconds, tries.
 */
export const HEALTH_CHECK_DEFAULTS = { interval: 15, timeout: 10, retries: 3 } as const;

/**
 * hccm's rule: a check of its own when any health-check annotation (or setting) is given, its protocol the port's
 * unless named; otherwise a TCP check of the NodePort. Always complete: `interval`, `timeout` and `retries` are
 * required by the API document, so a value not given is Hetzner's default.
 */
function healthCheck(a: HcloudAnnotationValues, nodePort: number): HealthCheckBody {
  const timing = {
    interval: a.healthCheckInterval === undefined ? HEALTH_CHECK_DEFAULTS.interval : a.healthCheckInterval / 1000,
    timeout: a.healthCheckTimeout === undefined ? HEALTH_CHECK_DEFAULTS.timeout : a.healthCheckTimeout / 1000,
    retries: a.healthCheckRetries ?? HEALTH_CHECK_DEFAULTS.retries,
  };
  const own =
    a.healthCheckProtocol !== undefined ||
    a.healthCheckPort !== undefined ||
    a.healthCheckInterval !== undefined ||
    a.healthCheckTimeout !== undefined ||
    a.healthCheckRetries !== undefined;
  if (!own) return { protocol: "tcp", port: nodePort, ...timing };
  const protocol = a.healthCheckProtocol ?? a.protocol;
  const http = {
    ...(a.healthCheckHTTPDomain === undefined ? {} : { domain: a.healthCheckHTTPDomain }),
    ...(a.healthCheckHTTPPath === undefined ? {} : { path: a.healthCheckHTTPPath }),
    ...(a.healthCheckHTTPStatusCodes === undefined ? {} : { status_codes: a.healthCheckHTTPStatusCodes }),
    ...(a.healthCheckHTTPValidateCertificate === undefined ? {} : { tls: a.healthCheckHTTPValidateCertificate }),
  };
  return {
    protocol,
    port: a.healthCheckPort ?? nodePort,
    ...timing,
    ...(protocol !== "tcp" && Object.keys(http).length > 0 ? { http } : {}),
  };
}

/**
 * Cloud Nodes by server ID (over their private IP with `use-private-ip`); Robot Nodes, when Robot is on, by IP:
 * the server's main IP from Robot, or the Node's InternalIP with `use-private-ip` (the only way without Robot
 * credentials, as in hccm).
 */
function targets(input: DesiredInput, warnings: string[]): TargetBody[] {
  const { values: a } = input;
  const selected = input.nodes.filter((n) => a.nodeSelector?.matches(n.metadata?.labels ?? {}) ?? true);
  const servers: TargetBody[] = [];
  const ips: TargetBody[] = [];
  for (const node of selected) {
    const name = node.metadata?.name ?? "";
    const parsed = tryParseProviderID(node.spec?.providerID ?? "");
    if (!parsed) {
      warnings.push(`Node ${name} has no hcloud:// or hrobot:// provider ID; it is not a target`);
      continue;
    }
    if (parsed.kind === "cloud") {
      servers.push({ type: "server", server: { id: parsed.id }, use_private_ip: a.usePrivateIP });
      continue;
    }
    if (!input.config.robot.enabled) {
      warnings.push(`Node ${name} is a Robot server and ROBOT_ENABLED is off; it is not a target`);
      continue;
    }
    const ip = robotTargetIP(input, node, parsed.number, warnings);
    if (ip !== undefined && !ips.some((t) => t.type === "ip" && t.ip.ip === ip)) ips.push({ type: "ip", ip: { ip } });
  }
  const unique = new Map(servers.map((t) => [t.type === "server" ? t.server.id : 0, t]));
  return [...unique.values(), ...ips];
}

function robotTargetIP(input: DesiredInput, node: Node, number: number, warnings: string[]): string | undefined {
  const name = node.metadata?.name ?? "";
  const internal = node.status?.addresses?.find((x) => x.type === "InternalIP")?.address;
  if (input.values.usePrivateIP) {
    if (internal) return internal;
    if (!input.robotServers) {
      warnings.push(
        `Robot Node ${name} has no InternalIP, and without Robot credentials it cannot be a target; it is left out`,
      );
      return undefined;
    }
    warnings.push(`${key("use-private-ip")} is on but Robot Node ${name} has no InternalIP; its public IP is used`);
  }
  if (!input.robotServers) {
    warnings.push(
      `Robot Node ${name}: without ROBOT_USER and ROBOT_PASSWORD only ${key("use-private-ip")} targets are possible; it is left out`,
    );
    return undefined;
  }
  const server = input.robotServers.get(number);
  if (!server?.ip) {
    warnings.push(`Robot has no server ${number} with an IPv4 address for Node ${name}; it is not a target`);
    return undefined;
  }
  return server.ip;
}
