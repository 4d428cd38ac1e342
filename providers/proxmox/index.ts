/**
 * The proxmox provider: node initialisation for Kubernetes VMs on one or more Proxmox VE clusters. Importing this
 * module registers it as `proxmox`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { proxmox } from "./provider.ts";

registerCloudProvider(proxmox.name, proxmox.factory);

export type { ProxmoxApi } from "./api/client.ts";
export { ProxmoxHttpApi } from "./api/http.ts";
export { type ProxmoxConfig, parseProxmoxConfig } from "./config.ts";
export { ProxmoxLabels } from "./labels.ts";
export { proxmox, proxmoxProvider, proxmoxProviderName, proxmoxSettings } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
