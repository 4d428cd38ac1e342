/**
 * Octavia's load balancers and their children, and Neutron's floating IPs, as the emulator keeps them.
 *
 * The provisioning state machine: a create leaves the load balancer `PENDING_CREATE`, any change to it or a child
 * `PENDING_UPDATE`, a delete `PENDING_DELETE`; each read of the load balancer moves it one step on, and after
 * `pendingReads` reads it is `ACTIVE` (or gone, for a delete). While `PENDING_*` every change is refused with 409
 * (Octavia's `ImmutableObject`), as it is in `ERROR` except a delete. A fault set on a load balancer plays the
 * Octavia issues a manager must survive: `stuck` (never leaves `PENDING_*`), `error` (lands in `ERROR` instead of
 * `ACTIVE`).
 */
import { OsError } from "./errors.ts";
import { nextAddress, type Port, type World } from "./state.ts";

export type ProvisioningStatus = "ACTIVE" | "PENDING_CREATE" | "PENDING_UPDATE" | "PENDING_DELETE" | "ERROR";

export interface HealthMonitor {
  readonly id: string;
  name: string;
  readonly type: string;
  delay: number;
  timeout: number;
  maxRetries: number;
  maxRetriesDown: number;
  urlPath?: string;
  httpMethod?: string;
  expectedCodes?: string;
}

export interface Member {
  readonly id: string;
  name: string;
  readonly address: string;
  readonly protocolPort: number;
  readonly subnetID: string;
  weight: number;
  monitorPort: number | null;
}

export interface Pool {
  readonly id: string;
  name: string;
  readonly protocol: string;
  lbAlgorithm: string;
  sessionPersistence: { type: string } | null;
  listenerID: string | undefined;
  members: Member[];
  monitor: HealthMonitor | undefined;
}

export interface Listener {
  readonly id: string;
  name: string;
  readonly protocol: string;
  readonly protocolPort: number;
  connectionLimit: number;
  defaultPoolID: string | null;
  timeouts: { clientData: number; memberConnect: number; memberData: number; tcpInspect: number };
  insertHeaders: Record<string, string>;
  allowedCIDRs: string[];
  defaultTlsContainerRef: string | null;
  tags: string[];
}

export interface LoadBalancer {
  readonly id: string;
  name: string;
  description: string;
  readonly provider: string;
  readonly vipAddress: string;
  readonly vipPortID: string;
  readonly vipSubnetID: string;
  readonly vipNetworkID: string;
  readonly flavorID: string;
  readonly availabilityZone: string | null;
  tags: string[];
  status: ProvisioningStatus;
  /** Reads left before a `PENDING_*` status settles. */
  pendingLeft: number;
  /** An injected fault for the next settling. */
  fault: "stuck" | "error" | undefined;
  readonly listeners: Listener[];
  readonly pools: Pool[];
  readonly created: number;
}

export interface FloatingIP {
  readonly id: string;
  readonly address: string;
  readonly networkID: string;
  portID: string | null;
  fixedIP: string | null;
  description: string;
  tags: string[];
  readonly created: number;
}

export class OctaviaWorld {
  readonly loadBalancers = new Map<string, LoadBalancer>();
  readonly floatingIPs = new Map<string, FloatingIP>();
  /** How many reads a `PENDING_*` status lasts (at least 1). */
  pendingReads = 1;
}

/** The settled status after one more read; a finished delete removes the load balancer and its VIP port. */
export function settle(world: World, lb: LoadBalancer): void {
  if (!lb.status.startsWith("PENDING_") || lb.fault === "stuck") return;
  lb.pendingLeft--;
  if (lb.pendingLeft > 0) return;
  if (lb.status === "PENDING_DELETE") {
    removeLoadBalancer(world, lb);
    return;
  }
  lb.status = lb.fault === "error" ? "ERROR" : "ACTIVE";
  lb.fault = undefined;
}

export function removeLoadBalancer(world: World, lb: LoadBalancer): void {
  world.octavia.loadBalancers.delete(lb.id);
  world.ports.delete(lb.vipPortID);
  // Neutron disassociates a floating IP whose port goes.
  for (const fip of world.octavia.floatingIPs.values()) {
    if (fip.portID === lb.vipPortID) {
      fip.portID = null;
      fip.fixedIP = null;
    }
  }
}

/** Refuses a change unless the load balancer is `ACTIVE`; else marks it `PENDING_UPDATE`. */
export function beginUpdate(world: World, lb: LoadBalancer): void {
  if (lb.status !== "ACTIVE") {
    throw new OsError(409, `Invalid state ${lb.status} of loadbalancer resource ${lb.id}`);
  }
  lb.status = "PENDING_UPDATE";
  lb.pendingLeft = world.octavia.pendingReads;
}

/** The VIP port of a new load balancer: a port on `networkID` owned by Octavia. */
export function addVipPort(world: World, networkID: string, lbID: string, address?: string): Port {
  const network = world.networks.get(networkID);
  if (!network) throw new OsError(400, `Network ${networkID} could not be found.`);
  const port: Port = {
    id: world.uuid(),
    networkID,
    deviceID: `lb-${lbID}`,
    status: "DOWN",
    macAddress: world.mac(),
    fixedIPs: [address ?? nextAddress(network)],
  };
  world.ports.set(port.id, port);
  return port;
}

/** The load balancer owning the pool `poolID`, or a 404 naming the pool. */
export function poolOwner(world: World, poolID: string): { lb: LoadBalancer; pool: Pool } {
  for (const lb of world.octavia.loadBalancers.values()) {
    const pool = lb.pools.find((p) => p.id === poolID);
    if (pool) return { lb, pool };
  }
  throw new OsError(404, `Pool ${poolID} could not be found.`);
}

export function listenerOwner(world: World, listenerID: string): { lb: LoadBalancer; listener: Listener } {
  for (const lb of world.octavia.loadBalancers.values()) {
    const listener = lb.listeners.find((l) => l.id === listenerID);
    if (listener) return { lb, listener };
  }
  throw new OsError(404, `Listener ${listenerID} could not be found.`);
}

export function monitorOwner(world: World, monitorID: string): { lb: LoadBalancer; pool: Pool } {
  for (const lb of world.octavia.loadBalancers.values()) {
    const pool = lb.pools.find((p) => p.monitor?.id === monitorID);
    if (pool) return { lb, pool };
  }
  throw new OsError(404, `Health Monitor ${monitorID} could not be found.`);
}
