/**
 * The sandbox provider: an HTTP client of the sandbox's simulated cloud, and the example to copy when writing a
 * provider. Importing this module registers it as `sandbox`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { sandbox } from "./provider.ts";

registerCloudProvider(sandbox.name, sandbox.factory);

export type { SandboxApi } from "./api/client.ts";
export { SandboxHttpApi } from "./api/http.ts";
export { parseSandboxConfig, type SandboxConfig, sandboxSettings, tokenEnvVar } from "./config.ts";
export { sandbox, sandboxProvider, sandboxProviderName } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
