/**
 * Instance servers with their public IPs (routed `inet` and `inet6`), the legacy `ipv6`, `public_ip` and
 * `private_ip` fields, and private NICs. A NIC attached to a private network gets its IPv4 from IPAM, as on
 * Scaleway: the server's own answer carries only the NIC, its address is an IPAM IP of `instance_private_nic`.
 */
import { notFound } from "../errors.ts";
import { allocatePrivateIp } from "./ipam.ts";
import { iso, publicV4, publicV6, regionOf, type World } from "./world.ts";

export const instanceStates = ["running", "stopped", "stopped in place", "starting", "stopping", "locked"] as const;
export type InstanceState = (typeof instanceStates)[number];

export interface ServerIp {
  readonly id: string;
  readonly address: string;
  readonly family: "inet" | "inet6";
  readonly provisioningMode: "dhcp" | "manual" | "slaac";
  readonly gateway: string;
  readonly netmask: string;
}

export interface PrivateNic {
  readonly id: string;
  readonly privateNetworkId: string;
  readonly macAddress: string;
  readonly created: number;
}

export interface InstanceServer {
  readonly id: string;
  name: string;
  readonly zone: string;
  readonly project: string;
  readonly organization: string;
  readonly commercialType: string;
  state: InstanceState;
  tags: string[];
  publicIps: ServerIp[];
  /** The legacy field, null unless the spec asked for it. */
  privateIp: string | null;
  privateNics: PrivateNic[];
  readonly created: number;
  modified: number;
}

export interface InstanceSpec {
  readonly name: string;
  readonly zone?: string | undefined;
  readonly commercial_type?: string | undefined;
  readonly state?: InstanceState | undefined;
  readonly project?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  /** A routed public IPv4 (DHCP); default true. */
  readonly public_ipv4?: boolean | undefined;
  /** A routed public IPv6 (SLAAC); default false. */
  readonly public_ipv6?: boolean | undefined;
  /** Private network IDs: a NIC on each, with an IPAM IPv4 (and IPv6). */
  readonly private_networks?: readonly string[] | undefined;
  /** The legacy `private_ip` field. */
  readonly private_ip?: string | undefined;
}

function mac(world: World): string {
  const bytes = Array.from({ length: 5 }, () => Math.floor(world.random() * 256));
  return ["02", ...bytes.map((b) => b.toString(16).padStart(2, "0"))].join(":");
}

export function createInstanceServer(world: World, spec: InstanceSpec): InstanceServer {
  const now = world.now();
  const zone = spec.zone ?? "fr-par-1";
  const publicIps: ServerIp[] = [];
  if (spec.public_ipv4 ?? true) {
    const n = world.nextAddress();
    const address = publicV4(n);
    const gateway = "62.210.0.1";
    publicIps.push({ id: world.uuid(), address, family: "inet", provisioningMode: "dhcp", gateway, netmask: "32" });
  }
  if (spec.public_ipv6 ?? false) {
    const address = publicV6(world.nextAddress());
    publicIps.push({
      id: world.uuid(),
      address,
      family: "inet6",
      provisioningMode: "slaac",
      gateway: "fe80::1",
      netmask: "64",
    });
  }
  const server: InstanceServer = {
    id: world.uuid(),
    name: spec.name,
    zone,
    project: spec.project ?? world.defaultProject.id,
    organization: world.organizationId,
    commercialType: spec.commercial_type ?? "DEV1-S",
    state: spec.state ?? "running",
    tags: [...(spec.tags ?? [])],
    publicIps,
    privateIp: spec.private_ip ?? null,
    privateNics: [],
    created: now,
    modified: now,
  };
  for (const pn of spec.private_networks ?? []) {
    const nic: PrivateNic = { id: world.uuid(), privateNetworkId: pn, macAddress: mac(world), created: now };
    server.privateNics.push(nic);
    allocatePrivateIp(world, {
      region: regionOf(zone),
      project: server.project,
      privateNetworkId: pn,
      resource: { type: "instance_private_nic", id: nic.id, macAddress: nic.macAddress, name: server.name },
    });
  }
  world.instances.set(server.id, server);
  return server;
}

/** The server in `zone`; another zone's is not found there, as on Scaleway. */
export function getInstanceServer(world: World, zone: string, id: string): InstanceServer {
  const server = world.instances.get(id);
  if (!server || server.zone !== zone) throw notFound("instance_server", id);
  return server;
}

export function deleteInstanceServer(world: World, id: string): void {
  const server = world.instances.get(id);
  if (!server) throw notFound("instance_server", id);
  for (const nic of server.privateNics) {
    for (const [ipId, ip] of world.ips) if (ip.resource?.id === nic.id) world.ips.delete(ipId);
  }
  world.instances.delete(id);
}

function ipView(ip: ServerIp) {
  return {
    id: ip.id,
    address: ip.address,
    dynamic: false,
    gateway: ip.gateway,
    netmask: ip.netmask,
    family: ip.family,
    provisioning_mode: ip.provisioningMode,
    tags: [],
    state: "attached",
    ipam_id: ip.id,
  };
}

/** The server as `GET /instance/v1/zones/{zone}/servers/{id}` sends it (the fields a CCM could read, and more). */
export function instanceServerView(s: InstanceServer) {
  const v4 = s.publicIps.find((ip) => ip.family === "inet");
  return {
    id: s.id,
    name: s.name,
    organization: s.organization,
    project: s.project,
    allowed_actions: s.state === "running" ? ["poweroff", "terminate", "reboot"] : ["poweron", "backup"],
    tags: s.tags,
    commercial_type: s.commercialType,
    creation_date: iso(s.created),
    dynamic_ip_required: false,
    routed_ip_enabled: true,
    enable_ipv6: false,
    hostname: s.name,
    image: null,
    protected: false,
    private_ip: s.privateIp,
    public_ip: v4 ? ipView(v4) : null,
    public_ips: s.publicIps.map(ipView),
    mac_address: "de:00:00:00:00:01",
    modification_date: iso(s.modified),
    state: s.state,
    location: null,
    ipv6: null,
    boot_type: "local",
    volumes: {},
    security_group: null,
    maintenances: [],
    state_detail: s.state === "running" ? "booted" : "",
    arch: "x86_64",
    placement_group: null,
    private_nics: s.privateNics.map((nic) => ({
      id: nic.id,
      server_id: s.id,
      private_network_id: nic.privateNetworkId,
      mac_address: nic.macAddress,
      state: "available",
      tags: [],
      creation_date: iso(nic.created),
      zone: s.zone,
    })),
    zone: s.zone,
    filesystems: [],
    end_of_service: false,
  };
}
