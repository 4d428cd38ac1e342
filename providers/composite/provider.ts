/**
 * The composite provider: several providers in one manager. Nodes are served by the part their provider ID leads
 * to (instances.ts); load balancers and routes by the part the cloud-config names for each; the switches combine.
 */

import { abortableSleep, type Now, type Sleep } from "../../kube/clock.ts";
import type { Node } from "../../kube/objects.ts";
import type { CloudProvider, ProviderController, ProviderRuntime, RateLimit } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { cloudFailureKind } from "../kit/http/errors.ts";
import type { WarningRecorder } from "../kit/warning-events.ts";
import { compositeCidrAllocator } from "./cidr-allocator.ts";
import type { CompositeConfig } from "./config.ts";
import {
  createPartState,
  DEFAULT_PART_BACKOFF,
  gatedInstances,
  gatedLoadBalancer,
  gatedRoutes,
  type PartBackoff,
  type PartState,
  retryInitialize,
} from "./degraded.ts";
import { createCompositeInstances } from "./instances.ts";
import { buildParts, compositeProviderName, type Part, type PartFactories } from "./parts.ts";
import { describeRoute, type NodePart } from "./routing.ts";

/** The composite as `doctor` sees it: its parts, and which of them a Node belongs to. */
export interface CompositeProvider extends CloudProvider {
  readonly parts: readonly Part[];
  /** One line: the part that owns `node`, or why none does. */
  ownerOf(node: Node): string;
  /**
   * Why the part named `name` is not serving (it started degraded: its cloud was unavailable when the composite
   * initialized, and it is being retried), for `/readyz`; undefined when it serves.
   */
  partProblem(name: string): string | undefined;
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
      return createCompositeProvider(config, parts, {
        warnings: ctx.runtime.nodeWarnings,
        now: ctx.clock.now,
        sleep: ctx.clock.sleep,
      });
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

export interface CompositeOptions {
  /** Warnings about the Nodes it keeps: the runtime handle's (events once initialized); default none. */
  readonly warnings?: WarningRecorder<Node>;
  readonly now?: Now;
  readonly sleep?: Sleep;
  /** Between a degraded part's attempts to initialize (degraded.ts). */
  readonly backoff?: PartBackoff;
}

export function createCompositeProvider(
  config: Pick<CompositeConfig, "loadBalancer" | "routes">,
  parts: readonly Part[],
  {
    warnings = { warn() {} },
    now = Date.now,
    sleep = abortableSleep,
    backoff = DEFAULT_PART_BACKOFF,
  }: CompositeOptions = {},
): CompositeProvider {
  const states = new Map<string, PartState>(parts.map((p) => [p.name, createPartState(p.name, now)]));
  const stateOf = (name: string) => states.get(name)!;
  const nodeParts: NodePart[] = parts
    .filter((p) => p.servesNodes && p.provider.instancesV2)
    .map((p) => ({
      name: p.name,
      schemes: p.schemes,
      instances: gatedInstances(p.provider.instancesV2!, stateOf(p.name)),
    }));
  const byName = (name: string | undefined) => parts.find((p) => p.name === name);
  const lbPart = byName(config.loadBalancer);
  const routesPart = byName(config.routes);

  /**
   * Every part's, at once. A part whose cloud is unavailable starts degraded and is retried in the background
   * (degraded.ts); any other failure (credentials, configuration) fails the whole, as it would the provider alone.
   */
  async function initialize(runtime: ProviderRuntime): Promise<void> {
    const attempt = (part: Part) => async () => {
      await part.provider.initialize?.({ ...runtime, logger: runtime.logger.withTag(part.name) });
    };
    const first = await Promise.allSettled(parts.map((part) => attempt(part)()));
    const failed = first.flatMap((r, i) => (r.status === "rejected" ? [{ part: parts[i]!, error: r.reason }] : []));
    const fatal = failed.find((f) => cloudFailureKind(f.error) !== "unavailable");
    if (fatal) {
      throw new Error(
        `composite: provider "${fatal.part.name}" failed to initialize: ${(fatal.error as Error)?.message ?? fatal.error}`,
        { cause: fatal.error },
      );
    }
    for (const part of parts) stateOf(part.name).recover();
    for (const { part, error } of failed) {
      void retryInitialize({
        state: stateOf(part.name),
        attempt: attempt(part),
        firstError: error,
        backoff,
        logger: runtime.logger,
        now,
        sleep,
        signal: runtime.signal,
      });
    }
  }

  return {
    providerName: compositeProviderName,
    parts,
    ownerOf: (node) => describeRoute(nodeParts, node),
    partProblem: (name) => states.get(name)?.problem(),
    hasClusterID: () => parts.every((p) => p.provider.hasClusterID()),
    initialize,
    instancesV2: nodeParts.length > 0 ? createCompositeInstances({ parts: nodeParts, warnings }) : undefined,
    loadBalancer:
      lbPart?.provider.loadBalancer && gatedLoadBalancer(lbPart.provider.loadBalancer, stateOf(lbPart.name)),
    routes: routesPart?.provider.routes && gatedRoutes(routesPart.provider.routes, stateOf(routesPart.name)),
    // The load-balancer part's webhooks (its Service annotations are the ones that matter here), answered as that
    // part answers: admission needs no cloud call, so a degraded part still judges its annotations.
    webhooks: lbPart?.provider.loadBalancer ? lbPart.provider.webhooks : undefined,
    // Every part's own loops (DigitalOcean's public-access firewall), as each would run alone; each handles its
    // cloud's failures itself, so a degraded part's loop retries rather than ending the term.
    controllers: withControllers(parts),
    cidrAllocator: compositeCidrAllocator(
      nodeParts.map((n) => ({ ...n, cidrAllocator: byName(n.name)?.provider.cidrAllocator })),
    ),
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

function withControllers(parts: readonly Part[]): readonly ProviderController[] | undefined {
  const all = parts.flatMap((p) => p.provider.controllers ?? []);
  return all.length > 0 ? all : undefined;
}
