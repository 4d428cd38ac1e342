/**
 * The composite provider: several providers in one manager. Nodes are served by the part their provider ID leads
 * to (instances.ts); load balancers and routes by the part the cloud-config names for each; the switches combine.
 */
import type { Node } from "../../kube/objects.ts";
import type { CloudProvider, ProviderRuntime, RateLimit } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import type { WarningRecorder } from "../kit/warning-events.ts";
import type { CompositeConfig } from "./config.ts";
import { createCompositeInstances } from "./instances.ts";
import { buildParts, compositeProviderName, type Part, type PartFactories } from "./parts.ts";
import { describeRoute, type NodePart } from "./routing.ts";

/** The composite as `doctor` sees it: its parts, and which of them a Node belongs to. */
export interface CompositeProvider extends CloudProvider {
  readonly parts: readonly Part[];
  /** One line: the part that owns `node`, or why none does. */
  ownerOf(node: Node): string;
}

export function isCompositeProvider(provider: CloudProvider): provider is CompositeProvider {
  return provider.providerName === compositeProviderName && Array.isArray((provider as CompositeProvider).parts);
}

/**
 * The composite's declaration over `factories` (the registry). Its settings are its parts': `create` builds each
 * part through its own registered factory from its entry in the cloud-config (buildParts), so every problem of the
 * file and of every part is one `ConfigError`. The parts get the manager's logger and metrics as the composite does.
 */
export function compositeDefinition(factories: PartFactories) {
  return defineProvider({
    name: compositeProviderName,
    settings: { read: () => ({ value: undefined }) },
    async create(ctx) {
      const { config, parts } = await buildParts(factories, ctx.input);
      return createCompositeProvider(config, parts, { warnings: ctx.runtime.nodeWarnings });
    },
  });
}

/**
 * The combined rate limit the framework sizes its node workers and its one cloud gate by: the sum of the Node
 * parts' limits, since each part's client still keeps to its own; undeclared (the framework's single worker) as
 * soon as one Node part declares none, which is that part's way of asking for upstream's sequential calls.
 */
export function combinedRateLimit(parts: readonly Part[]): RateLimit | undefined {
  const limits = parts.filter((p) => p.servesNodes).map((p) => p.provider.rateLimit);
  if (limits.length === 0 || limits.some((l) => l === undefined)) return undefined;
  return limits.reduce<RateLimit>((sum, l) => ({ qps: sum.qps + l!.qps, burst: sum.burst + l!.burst }), {
    qps: 0,
    burst: 0,
  });
}

export function createCompositeProvider(
  config: Pick<CompositeConfig, "loadBalancer" | "routes">,
  parts: readonly Part[],
  /** Warnings about the Nodes it keeps: the runtime handle's (events once initialized); default none. */
  { warnings = { warn() {} } }: { readonly warnings?: WarningRecorder<Node> } = {},
): CompositeProvider {
  const nodeParts: NodePart[] = parts
    .filter((p) => p.servesNodes && p.provider.instancesV2)
    .map((p) => ({ name: p.name, schemes: p.schemes, instances: p.provider.instancesV2! }));
  const byName = (name: string | undefined) => parts.find((p) => p.name === name)?.provider;

  async function initialize(runtime: ProviderRuntime): Promise<void> {
    await Promise.all(
      parts.map(async (part) => {
        try {
          await part.provider.initialize?.({ ...runtime, logger: runtime.logger.withTag(part.name) });
        } catch (err) {
          throw new Error(`composite: provider "${part.name}" failed to initialize: ${(err as Error).message}`, {
            cause: err,
          });
        }
      }),
    );
  }

  return {
    providerName: compositeProviderName,
    parts,
    ownerOf: (node) => describeRoute(nodeParts, node),
    hasClusterID: () => parts.every((p) => p.provider.hasClusterID()),
    initialize,
    instancesV2: nodeParts.length > 0 ? createCompositeInstances({ parts: nodeParts, warnings }) : undefined,
    loadBalancer: byName(config.loadBalancer)?.loadBalancer,
    routes: byName(config.routes)?.routes,
    rateLimit: combinedRateLimit(parts),
    /** Every part is checked, at once; the error names each failing part and its own message. */
    async verifyAccess(ctx) {
      const results = await Promise.allSettled(parts.map((p) => p.provider.verifyAccess?.(ctx)));
      const failed = results.flatMap((r, i) =>
        r.status === "rejected" ? [`provider "${parts[i]?.name}": ${(r.reason as Error)?.message ?? r.reason}`] : [],
      );
      if (failed.length > 0) {
        throw new Error(`composite: ${failed.length} of ${parts.length} providers failed: ${failed.join("; ")}`, {
          cause: results.find((r) => r.status === "rejected")?.reason,
        });
      }
    },
  };
}
