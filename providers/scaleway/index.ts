/**
 * The scaleway provider: a drop-in for scw CCM (Instances and Elastic Metal servers). Importing this module
 * registers it as `scaleway`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { scaleway } from "./provider.ts";

registerCloudProvider(scaleway.name, scaleway.factory);

export { readScalewayConfig, type ScalewayConfig } from "./config.ts";
export { scaleway, scalewayProvider, scalewayProviderName } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
