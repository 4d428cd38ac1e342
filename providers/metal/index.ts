/**
 * The metal provider: node metadata from an inventory and load-balancer addresses from pools, for clusters without
 * a cloud API. Importing this module registers it as `metal`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { metal } from "./provider.ts";

registerCloudProvider(metal.name, metal.factory);

/** Read by scripts/build.ts: every per-provider executable holds metal too, for the composite to add to its cloud. */
export const inEveryExecutable = true;

export { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
export { type MetalConfig, parseMetalConfig } from "./config.ts";
export { parseKubeVipConfigMap } from "./kube-vip-format.ts";
export { type MetalProviderDeps, metal, metalProvider, metalProviderName } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
