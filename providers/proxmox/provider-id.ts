/**
 * Provider IDs of Proxmox VMs, in the two forms proxmox-cloud-controller-manager writes, so Nodes it initialised
 * keep theirs:
 *
 * - `proxmox://<region>/<vmid>` (`features.provider: default`): the cluster's region and the VM's numeric ID. The
 *   peer accepts an empty region (`proxmox:///101`); so do we, and then look the VM ID up in every cluster.
 * - `proxmox://<system UUID>` (`features.provider: capmox`, as the Cluster API provider for Proxmox sets it): the
 *   VM's SMBIOS UUID, which is the Node's `status.nodeInfo.systemUUID`.
 */
import { ProviderIDError } from "../kit/provider-id.ts";

export const providerIDScheme = "proxmox";
const prefix = `${providerIDScheme}://`;
const VM_FORM = /^([^/]*)\/([0-9]+)$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Proxmox VE gives guests IDs from 100 to 999999999. */
const MIN_VMID = 100;
const MAX_VMID = 999_999_999;

export type ParsedProviderID =
  | { readonly kind: "vm"; readonly region: string; readonly vmid: number }
  | { readonly kind: "uuid"; readonly uuid: string };

/** Either form; throws `ProviderIDError` saying what is wrong. UUIDs are returned in lower case. */
export function parseProviderID(providerID: string): ParsedProviderID {
  if (!providerID.startsWith(prefix)) {
    throw new ProviderIDError(`provider ID "${providerID}" does not start with "${prefix}"`);
  }
  const rest = providerID.slice(prefix.length);
  const vm = VM_FORM.exec(rest);
  if (vm) {
    const vmid = Number(vm[2]);
    if (vmid < MIN_VMID || vmid > MAX_VMID) {
      throw new ProviderIDError(`provider ID "${providerID}" has VM ID ${vm[2]}, outside ${MIN_VMID}-${MAX_VMID}`);
    }
    return { kind: "vm", region: vm[1] ?? "", vmid };
  }
  if (UUID.test(rest)) return { kind: "uuid", uuid: rest.toLowerCase() };
  throw new ProviderIDError(
    `provider ID "${providerID}" is neither ${prefix}<region>/<vmid> nor ${prefix}<system UUID>`,
  );
}

/** `proxmox://<region>/<vmid>`. */
export function formatProviderID(region: string, vmid: number): string {
  return `${prefix}${region}/${vmid}`;
}

/** `proxmox://<uuid>` (capmox), lower case as the SMBIOS UUID is compared. */
export function formatUUIDProviderID(uuid: string): string {
  if (!UUID.test(uuid)) throw new ProviderIDError(`"${uuid}" is not a UUID and cannot form a provider ID`);
  return `${prefix}${uuid.toLowerCase()}`;
}

/** `parseProviderID`, or `undefined` for an ID that is not ours or not readable. */
export function tryParseProviderID(providerID: string): ParsedProviderID | undefined {
  try {
    return parseProviderID(providerID);
  } catch {
    return undefined;
  }
}
