/**
 * A load balancer's services (listeners) and targets: the rules of `add_service`, `update_service`,
 * `delete_service`, `add_target` and `remove_target`, with the API's defaults and error codes.
 */
import { HcloudError, invalidInput, limitExceeded } from "../errors.ts";
import { parseIPv4 } from "../ipv4.ts";
import { parseLabelSelector } from "../labels.ts";
import type { HealthCheck, LBService, LBTarget, LoadBalancer } from "./types.ts";
import type { World } from "./world.ts";

type Protocol = LBService["protocol"];

export interface HealthCheckSpec {
  protocol?: HealthCheck["protocol"] | undefined;
  port?: number | undefined;
  interval?: number | undefined;
  timeout?: number | undefined;
  retries?: number | undefined;
  http?: Partial<NonNullable<HealthCheck["http"]>> | undefined;
}

export interface ServiceSpec {
  protocol?: Protocol | undefined;
  listen_port?: number | undefined;
  destination_port?: number | undefined;
  proxyprotocol?: boolean | undefined;
  http?: Partial<NonNullable<LBService["http"]>> | undefined;
  health_check?: HealthCheckSpec | undefined;
}

export type TargetSpec =
  | { type: "server"; server: { id: number }; use_private_ip?: boolean | undefined }
  | { type: "label_selector"; label_selector: { selector: string }; use_private_ip?: boolean | undefined }
  | { type: "ip"; ip: { ip: string } };

/** A new service from a spec: the API's defaults filled in, its rules checked against the load balancer. */
export function newService(world: World, lb: LoadBalancer, spec: ServiceSpec): LBService {
  const protocol = spec.protocol;
  if (protocol === undefined) throw invalidInput({ protocol: ["is required: tcp, http or https"] });
  const listen = spec.listen_port ?? (protocol === "http" ? 80 : protocol === "https" ? 443 : undefined);
  const destination = spec.destination_port ?? (protocol === "tcp" ? undefined : 80);
  const missing: Record<string, string[]> = {};
  if (listen === undefined) missing.listen_port = ["is required for protocol tcp"];
  if (destination === undefined) missing.destination_port = ["is required for protocol tcp"];
  if (listen === undefined || destination === undefined) throw invalidInput(missing);
  if (lb.services.some((s) => s.listen_port === listen)) {
    throw new HcloudError("source_port_already_used", `listen port ${listen} is already used by another service`);
  }
  if (lb.services.length >= lb.load_balancer_type.max_services) {
    throw limitExceeded(
      "services",
      `${lb.load_balancer_type.name} holds at most ${lb.load_balancer_type.max_services} services`,
    );
  }
  const service: LBService = {
    protocol,
    listen_port: listen,
    destination_port: destination,
    proxyprotocol: spec.proxyprotocol ?? false,
    http: protocol === "tcp" ? null : mergeHttp(null, spec.http),
    health_check: mergeHealthCheck(defaultHealthCheck(destination), spec.health_check),
  };
  checkService(world, lb, service);
  return service;
}

/** The service at `listenPort` with `spec`'s fields changed; the rest kept. */
export function updatedService(world: World, lb: LoadBalancer, listenPort: number, spec: ServiceSpec): LBService {
  const current = lb.services.find((s) => s.listen_port === listenPort);
  if (!current)
    throw new HcloudError("not_found", `load balancer ${lb.id} has no service on listen port ${listenPort}`);
  const protocol = spec.protocol ?? current.protocol;
  const service: LBService = {
    protocol,
    listen_port: listenPort,
    destination_port: spec.destination_port ?? current.destination_port,
    proxyprotocol: spec.proxyprotocol ?? current.proxyprotocol,
    http: protocol === "tcp" ? null : mergeHttp(current.http, spec.http),
    health_check: mergeHealthCheck(current.health_check, spec.health_check),
  };
  checkService(world, lb, service);
  return service;
}

function checkService(world: World, lb: LoadBalancer, service: LBService): void {
  const certificates = service.http?.certificates ?? [];
  if (service.protocol === "https" && certificates.length === 0) {
    throw invalidInput({ "http.certificates": ["a service of protocol https needs at least one certificate"] });
  }
  const unknown = certificates.filter((id) => !world.certificates.has(id));
  if (unknown.length > 0) throw invalidInput({ "http.certificates": [`no certificate with ID ${unknown.join(", ")}`] });
  const max = lb.load_balancer_type.max_assigned_certificates;
  const assigned = new Set([...lb.services.flatMap((s) => s.http?.certificates ?? []), ...certificates]);
  if (assigned.size > max) {
    throw limitExceeded("assigned_certificates", `${lb.load_balancer_type.name} holds at most ${max} certificates`);
  }
  if (service.health_check.protocol !== "tcp" && service.health_check.http === null) {
    service.health_check.http = { domain: null, path: "/", response: "", status_codes: ["2??", "3??"], tls: false };
  }
}

const defaultHealthCheck = (port: number): HealthCheck => ({
  protocol: "tcp",
  port,
  interval: 15,
  timeout: 10,
  retries: 3,
  http: null,
});

function mergeHealthCheck(base: HealthCheck, spec: HealthCheckSpec | undefined): HealthCheck {
  if (!spec) return structuredClone(base);
  const protocol = spec.protocol ?? base.protocol;
  const http =
    protocol === "tcp"
      ? null
      : {
          domain: null,
          path: "/",
          response: "",
          status_codes: ["2??", "3??"],
          tls: false,
          ...(base.http ?? {}),
          ...definedOnly(spec.http ?? {}),
        };
  return {
    protocol,
    port: spec.port ?? base.port,
    interval: spec.interval ?? base.interval,
    timeout: spec.timeout ?? base.timeout,
    retries: spec.retries ?? base.retries,
    http,
  };
}

function mergeHttp(base: LBService["http"], spec: ServiceSpec["http"]): NonNullable<LBService["http"]> {
  return {
    cookie_name: "HCLBSTICKY",
    cookie_lifetime: 300,
    certificates: [],
    redirect_http: false,
    sticky_sessions: false,
    timeout_idle: 60,
    ...(base ?? {}),
    ...definedOnly(spec ?? {}),
  };
}

/** A new target from a spec, checked against the load balancer's targets, type and networks. */
export function newTarget(world: World, lb: LoadBalancer, spec: TargetSpec): LBTarget {
  if (lb.targets.some((t) => sameTarget(t, spec))) {
    throw new HcloudError("target_already_defined", `load balancer ${lb.id} already has this ${spec.type} target`);
  }
  if (lb.targets.length >= lb.load_balancer_type.max_targets) {
    throw limitExceeded(
      "targets",
      `${lb.load_balancer_type.name} holds at most ${lb.load_balancer_type.max_targets} targets`,
    );
  }
  if (spec.type === "ip") {
    checkIpTarget(world, spec.ip.ip);
    return { type: "ip", ip: { ip: spec.ip.ip } };
  }
  const usePrivate = spec.use_private_ip ?? false;
  if (usePrivate && lb.private_net.length === 0) {
    throw new HcloudError(
      "load_balancer_not_attached_to_network",
      `load balancer ${lb.id} is not attached to a network`,
    );
  }
  if (spec.type === "label_selector") {
    parseLabelSelector(spec.label_selector.selector);
    return {
      type: "label_selector",
      label_selector: { selector: spec.label_selector.selector },
      use_private_ip: usePrivate,
    };
  }
  const server = world.server(spec.server.id);
  if (usePrivate && !server.private_net.some((p) => lb.private_net.some((n) => n.network === p.network))) {
    throw new HcloudError(
      "server_not_attached_to_network",
      `server ${server.id} is not attached to the network of load balancer ${lb.id}`,
    );
  }
  return { type: "server", server: { id: server.id }, use_private_ip: usePrivate };
}

/** The index of the target `spec` names; `target_not_found` when there is none. */
export function targetIndex(lb: LoadBalancer, spec: TargetSpec): number {
  const at = lb.targets.findIndex((t) => sameTarget(t, spec));
  if (at < 0) throw new HcloudError("target_not_found", `load balancer ${lb.id} has no such ${spec.type} target`);
  return at;
}

function sameTarget(t: LBTarget, spec: TargetSpec): boolean {
  if (t.type === "server" && spec.type === "server") return t.server.id === spec.server.id;
  if (t.type === "label_selector" && spec.type === "label_selector") {
    return t.label_selector.selector === spec.label_selector.selector;
  }
  return t.type === "ip" && spec.type === "ip" && t.ip.ip === spec.ip.ip;
}

/** IP targets are for servers outside Hetzner Cloud (Robot): a public address no cloud resource holds. */
function checkIpTarget(world: World, ip: string): void {
  const n = parseIPv4(ip);
  if (n === undefined && !/^[0-9a-f:]+$/i.test(ip)) throw invalidInput({ "ip.ip": [`'${ip}' is not an IP address`] });
  const owned = [...world.servers.values()].some((s) => s.public_net.ipv4?.ip === ip);
  const lbOwned = [...world.loadBalancers.values()].some((lb) => lb.public_net.ipv4.ip === ip);
  if (owned || lbOwned) {
    throw new HcloudError(
      "cloud_resource_ip_not_allowed",
      `${ip} belongs to a Hetzner Cloud resource; use a server target`,
    );
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
