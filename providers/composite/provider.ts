/**
 * The composite provider: several providers in one manager. Nodes are served by the part their provider ID leads
 * to (instances.ts); load balancers and routes by the part the cloud-config names for each; the switches combine.
 */
import type { Node } from "../../kube/objects.ts";
import type { CloudProvider, ProviderFactory, ProviderRuntime, RateLimit } from "../cloud.ts";
import type { CompositeConfig } from "./config.ts";
import { createCompositeInstances } from "./instances.ts";
import { createNodeWarnings, type NodeWarnings, silentNodeWarnings } from "./node-warnings.ts";
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

/** The registered factory: builds every part through `factories` (the registry). */
export function compositeFactory(factories: PartFactories): ProviderFactory {
  return async (input) => {
    const { config, parts } = await buildParts(factories, input);
    return createCompositeProvider(config, parts);
  };
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
): CompositeProvider {
  let warnings: NodeWarnings = silentNodeWarnings;
  const nodeParts: NodePart[] = parts
    .filter((p) => p.servesNodes && p.provider.instancesV2)
    .map((p) => ({ name: p.name, schemes: p.schemes, instances: p.provider.instancesV2! }));
  const byName = (name: string | undefined) => parts.find((p) => p.name === name)?.provider;

  async function initialize(runtime: ProviderRuntime): Promise<void> {
    warnings = createNodeWarnings(runtime);
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
    instancesV2:
      nodeParts.length > 0 ? createCompositeInstances({ parts: nodeParts, warnings: () => warnings }) : undefined,
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
