/**
 * The metal provider: node metadata from an inventory and load-balancer addresses from pools, for clusters without
 * a cloud API. Importing this module registers it as `metal`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { createMetalProvider, metalProviderName } from "./provider.ts";

registerCloudProvider(metalProviderName, (input) => createMetalProvider(input));

/** Read by scripts/build.ts: every per-provider executable holds metal too, for the composite to add to its cloud. */
export const inEveryExecutable = true;

export { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
export { type MetalConfig, parseMetalConfig } from "./config.ts";
export { parseKubeVipConfigMap } from "./kube-vip-format.ts";
export { createMetalProvider, type MetalProviderDeps, metalProvider, metalProviderName } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
