/**
 * The emulator's stored resources, in the API's field names. What the API derives (a server's `load_balancers`, a
 * network's `servers`, a certificate's `used_by`, a label-selector target's members) is computed when a resource
 * is viewed, so it can never go stale.
 */
import type { Labels } from "../labels.ts";
import type { LoadBalancerType, Location, ServerType } from "./catalog.ts";

export type ServerStatus =
  | "initializing"
  | "starting"
  | "running"
  | "stopping"
  | "off"
  | "deleting"
  | "migrating"
  | "rebuilding"
  | "unknown";

export interface PrivateNet {
  network: number;
  /** Optional in Hetzner's API document: a test may attach an entry without one, as the API may send it. */
  ip?: string;
  alias_ips: string[];
  mac_address: string;
}

export interface Server {
  id: number;
  name: string;
  status: ServerStatus;
  /** The status an action moves the server to when it ends (`initializing` → `running`). */
  settle: { status: ServerStatus; atMs: number } | null;
  created: string;
  labels: Labels;
  server_type: ServerType;
  location: Location;
  public_net: {
    ipv4: { id: number; ip: string; blocked: boolean; dns_ptr: string } | null;
    /** The server's /64. */
    ipv6: { id: number; ip: string; blocked: boolean; dns_ptr: { ip: string; dns_ptr: string }[] } | null;
    floating_ips: number[];
    firewalls: { id: number; status: string }[];
  };
  private_net: PrivateNet[];
  protection: { delete: boolean; rebuild: boolean };
  image: { id: number; name: string; type: string } | null;
}

export interface Subnet {
  type: "cloud" | "server" | "vswitch";
  ip_range: string;
  network_zone: string;
  gateway: string;
  vswitch_id?: number;
}

export interface Route {
  destination: string;
  gateway: string;
}

export interface Network {
  id: number;
  name: string;
  ip_range: string;
  subnets: Subnet[];
  routes: Route[];
  labels: Labels;
  protection: { delete: boolean };
  expose_routes_to_vswitch: boolean;
  created: string;
}

export interface HealthCheck {
  protocol: "tcp" | "http" | "https";
  port: number;
  interval: number;
  timeout: number;
  retries: number;
  http: { domain: string | null; path: string; response: string; status_codes: string[]; tls: boolean } | null;
}

export interface LBService {
  protocol: "tcp" | "http" | "https";
  listen_port: number;
  destination_port: number;
  proxyprotocol: boolean;
  http: {
    cookie_name: string;
    cookie_lifetime: number;
    certificates: number[];
    redirect_http: boolean;
    sticky_sessions: boolean;
    timeout_idle: number;
  } | null;
  health_check: HealthCheck;
}

export type LBTarget =
  | { type: "server"; server: { id: number }; use_private_ip: boolean }
  | { type: "label_selector"; label_selector: { selector: string }; use_private_ip: boolean }
  | { type: "ip"; ip: { ip: string } };

export interface LoadBalancer {
  id: number;
  name: string;
  labels: Labels;
  created: string;
  location: Location;
  load_balancer_type: LoadBalancerType;
  algorithm: { type: "round_robin" | "least_connections" };
  protection: { delete: boolean };
  public_net: {
    enabled: boolean;
    ipv4: { ip: string; dns_ptr: string };
    ipv6: { ip: string; dns_ptr: string };
  };
  private_net: { network: number; ip: string }[];
  services: LBService[];
  targets: LBTarget[];
}

export interface Certificate {
  id: number;
  name: string;
  labels: Labels;
  type: "uploaded" | "managed";
  certificate: string | null;
  created: string;
  not_valid_before: string | null;
  not_valid_after: string | null;
  domain_names: string[];
  fingerprint: string | null;
  /** Managed certificates only; the view derives it from the issuance action. */
  status: {
    issuance: "pending" | "completed" | "failed";
    renewal: "scheduled" | "pending" | "failed" | "unavailable";
    error: { code: string; message: string } | null;
  } | null;
}
