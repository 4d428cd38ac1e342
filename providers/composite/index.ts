/**
 * The composite provider: several providers in one manager, for mixed fleets (Nodes routed to a provider by the
 * scheme of their provider ID) and for capabilities from different providers (load balancers from one, routes from
 * another). Importing this module registers it as `composite`; it composes the providers registered in the same
 * executable, so the build puts it, with `metal`, into every per-provider executable.
 */
import { globalRegistry, registerCloudProvider } from "../registry.ts";
import { compositeDefinition } from "./provider.ts";

const composite = compositeDefinition(globalRegistry);
registerCloudProvider(composite.name, composite.factory);

export { type CompositeConfig, schemeOf } from "./config.ts";
export { UnownedNodeError } from "./instances.ts";
export { NodeWarningReasons } from "./node-warnings.ts";
export { buildParts, compositeProviderName, type Part } from "./parts.ts";
export {
  type CompositeProvider,
  compositeDefinition,
  createCompositeProvider,
  isCompositeProvider,
} from "./provider.ts";

/** Read by scripts/build.ts: in every executable (it composes what each holds), with no executable of its own. */
export const composesOthers = true;
