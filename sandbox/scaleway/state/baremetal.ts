/**
 * Elastic Metal servers: status (`ready`, `stopped`, …), the offer they were ordered as (`offer_id`, `offer_name`),
 * their public IPs (`IPv4`, `IPv6`) and the domain Scaleway gives them.
 */
import { notFound } from "../errors.ts";
import { iso, publicV4, publicV6, type World } from "./world.ts";

export const baremetalStatuses = [
  "unknown",
  "delivering",
  "ready",
  "stopping",
  "stopped",
  "starting",
  "error",
  "deleting",
  "locked",
  "out_of_stock",
  "ordered",
  "resetting",
  "migrating",
] as const;
export type BaremetalStatus = (typeof baremetalStatuses)[number];

export interface BaremetalIp {
  readonly id: string;
  readonly address: string;
  readonly version: "IPv4" | "IPv6";
}

export interface BaremetalServer {
  readonly id: string;
  name: string;
  readonly zone: string;
  readonly project: string;
  readonly organization: string;
  readonly offerId: string;
  readonly offerName: string;
  status: BaremetalStatus;
  tags: string[];
  ips: BaremetalIp[];
  readonly created: number;
  updated: number;
}

export interface BaremetalSpec {
  readonly name: string;
  readonly zone?: string | undefined;
  readonly offer_name?: string | undefined;
  readonly status?: BaremetalStatus | undefined;
  readonly project?: string | undefined;
  readonly tags?: readonly string[] | undefined;
}

export function createBaremetalServer(world: World, spec: BaremetalSpec): BaremetalServer {
  const now = world.now();
  const n = world.nextAddress();
  const server: BaremetalServer = {
    id: world.uuid(),
    name: spec.name,
    zone: spec.zone ?? "fr-par-2",
    project: spec.project ?? world.defaultProject.id,
    organization: world.organizationId,
    offerId: world.uuid(),
    offerName: spec.offer_name ?? "EM-A115X-SSD",
    status: spec.status ?? "ready",
    tags: [...(spec.tags ?? [])],
    ips: [
      { id: world.uuid(), address: publicV4(n), version: "IPv4" },
      { id: world.uuid(), address: publicV6(n), version: "IPv6" },
    ],
    created: now,
    updated: now,
  };
  world.baremetal.set(server.id, server);
  return server;
}

export function getBaremetalServer(world: World, zone: string, id: string): BaremetalServer {
  const server = world.baremetal.get(id);
  if (!server || server.zone !== zone) throw notFound("baremetal_server", id);
  return server;
}

export function deleteBaremetalServer(world: World, id: string): void {
  if (!world.baremetal.delete(id)) throw notFound("baremetal_server", id);
}

export function baremetalServerView(s: BaremetalServer) {
  return {
    id: s.id,
    organization_id: s.organization,
    project_id: s.project,
    name: s.name,
    description: "",
    updated_at: iso(s.updated),
    created_at: iso(s.created),
    status: s.status,
    offer_id: s.offerId,
    offer_name: s.offerName,
    tags: s.tags,
    ips: s.ips.map((ip) => ({
      id: ip.id,
      address: ip.address,
      reverse: "",
      version: ip.version,
      reverse_status: "active",
      reverse_status_message: "",
    })),
    domain: `${s.id}.${s.zone}.baremetal.scw.cloud`,
    boot_type: "normal",
    zone: s.zone,
    install: null,
    ping_status: s.status === "ready" ? "ping_status_up" : "ping_status_down",
    options: [],
    rescue_server: null,
    user_data: null,
    protected: false,
  };
}
