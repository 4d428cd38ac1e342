/**
 * The hcloud provider: a drop-in for hcloud-cloud-controller-manager (Hetzner Cloud servers, Robot dedicated
 * servers, routes in a private network, load balancers). Importing this module registers it as `hcloud`; that is
 * its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { hcloud } from "./provider.ts";

registerCloudProvider(hcloud.name, hcloud.factory);

export { type HcloudConfig, readHcloudConfig } from "./config.ts";
export { hcloud, hcloudProvider, hcloudProviderName, hcloudSettings } from "./provider.ts";
export { formatCloudProviderID, formatRobotProviderID, parseProviderID } from "./provider-id.ts";
