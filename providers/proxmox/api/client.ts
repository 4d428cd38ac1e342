/**
 * The Proxmox VE calls the proxmox provider makes, one client per cluster, behind an interface the provider defines
 * (read-only: the provider never changes a cluster). `http.ts` implements it over the API at `/api2/json`
 * (/work/shared/reference/proxmox-api.md; the public API viewer).
 *
 * Error contract:
 * - A VM that is gone is an answer: `vmConfig` resolves to `undefined`.
 * - Anything else throws an `Error` whose message starts with `proxmox/api[<region>].<method>: `; when the cluster
 *   answered at all, its `cause` chain holds the cloud-API kit's `CloudApiError` with the status.
 */
import type { CallContext } from "../../cloud.ts";

/** One guest of `GET /cluster/resources?type=vm`. */
export interface ProxmoxVM {
  readonly vmid: number;
  readonly type: "qemu" | "lxc";
  readonly name: string;
  /** The Proxmox node the guest runs on now. */
  readonly node: string;
  /** `running`, `stopped`, `paused`, …; `unknown` while its Proxmox node is offline. */
  readonly status: string;
  readonly template: boolean;
  /** vCPUs (the `cpus` of the VM's status). */
  readonly maxcpu: number;
  /** Bytes of memory. */
  readonly maxmem: number;
}

/** What the provider reads of a VM's config: its SMBIOS type-1 fields. */
export interface VMConfig {
  /** Lower case; absent when the config sets none. */
  readonly uuid?: string;
  /** The instance type written by Cluster API / the peer's autoscaler (`sku`, always base64, as the peer reads it). */
  readonly sku?: string;
}

/** One interface the QEMU guest agent reports, with its addresses (no prefix length). */
export interface AgentInterface {
  readonly name: string;
  readonly addresses: readonly string[];
}

/** An HA group (Proxmox VE 8 and older) and the Proxmox nodes in it. */
export interface HAGroup {
  readonly group: string;
  readonly nodes: readonly string[];
}

export interface ProxmoxApi {
  /** The Proxmox VE version, e.g. `8.2.4`: proves the URL and the token. */
  version(ctx: CallContext): Promise<string>;
  /** Every guest of the cluster, QEMU VMs and containers, in one call. */
  listVMs(ctx: CallContext): Promise<ProxmoxVM[]>;
  /** The VM's config, or `undefined` when the VM is gone. */
  vmConfig(ctx: CallContext, node: string, vmid: number): Promise<VMConfig | undefined>;
  /** The guest agent's interfaces; throws when the agent does not answer (not installed, not running, VM off). */
  agentInterfaces(ctx: CallContext, node: string, vmid: number): Promise<AgentInterface[]>;
  /** HA groups; throws on Proxmox VE 9, where groups became rules. */
  haGroups(ctx: CallContext): Promise<HAGroup[]>;
}
