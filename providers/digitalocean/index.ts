/**
 * The digitalocean provider: a drop-in for DO CCM (Droplets, load balancers). Importing this module registers it
 * as `digitalocean`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { digitalocean } from "./provider.ts";

registerCloudProvider(digitalocean.name, digitalocean.factory);

export { type DigitalOceanConfig, readDigitalOceanConfig } from "./config.ts";
export { digitalOceanProvider, digitalOceanProviderName, digitalocean } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
