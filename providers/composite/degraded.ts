/**
 * Starting a composite while one part's cloud is down. A part whose `initialize` fails because its cloud is
 * unavailable (no answer, 5xx, 429: `cloudFailureKind`) does not stop the manager, which would also stop every other
 * part (and a restart policy would crash-loop it until that cloud answers). It starts degraded instead:
 * - its Nodes are "cannot tell", as when its cloud fails at run time: every instance question fails, so the
 *   framework keeps the Node as it is (never deleted, never tainted) and asks again;
 * - its load balancer and route calls fail with a `PartUnavailableError` (a `RetryError`), which the controllers
 *   retry;
 * - its `initialize` is tried again with capped exponential back-off until it succeeds or the term ends;
 * - `/readyz` fails one check named after it, and the log says so once per change of state, not per attempt.
 *
 * A part whose credentials are refused or whose configuration is wrong still fails the composite's `initialize`, and
 * so stops the manager: no retry would fix it.
 */
import type { ConsolaInstance } from "consola";
import type { Now, Sleep } from "../../kube/clock.ts";
import type { InstancesV2, LoadBalancer, Routes } from "../cloud.ts";
import { RetryError } from "../errors.ts";
import { type CloudFailureKind, cloudFailureKind } from "../kit/http/errors.ts";

/** The back-off between a degraded part's attempts to initialize: from `firstMs`, doubling, at most `capMs`. */
export interface PartBackoff {
  readonly firstMs: number;
  readonly capMs: number;
}

export const DEFAULT_PART_BACKOFF: PartBackoff = { firstMs: 1_000, capMs: 60_000 };

/** A call to a part that has not initialized yet because its cloud is unavailable: retried after `retryAfterMs`. */
export class PartUnavailableError extends RetryError {}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const because: Record<CloudFailureKind, string> = {
  unavailable: "its cloud is unavailable",
  credentials: "its cloud refuses its credentials",
  configuration: "its configuration does not work",
};

/** Whether a part is serving, and the gate its calls go through. */
export interface PartState {
  readonly name: string;
  /** Why the part is not serving, for `/readyz`; undefined when it is. */
  problem(): string | undefined;
  /**
   * Throws `PartUnavailableError` while the part is degraded, its message prefixed with `composite/<part>.<operation>`
   * when `operation` is given (instances.ts prefixes the instance questions itself).
   */
  assertUp(operation?: string): void;
  degrade(error: unknown, retryAt: number): void;
  recover(): void;
}

export function createPartState(name: string, now: Now): PartState {
  let degraded: { error: unknown; retryAt: number } | undefined;
  return {
    name,
    problem: () =>
      degraded &&
      `provider "${name}" has not initialized, its cloud is unavailable (retried with back-off): ${messageOf(degraded.error)}`,
    assertUp(operation) {
      if (!degraded) return;
      const prefix = operation === undefined ? "" : `composite/${name}.${operation}: `;
      throw new PartUnavailableError(
        `${prefix}provider "${name}" has not initialized yet, its cloud is unavailable: ${messageOf(degraded.error)}`,
        Math.max(1_000, degraded.retryAt - now()),
        { cause: degraded.error },
      );
    },
    degrade(error, retryAt) {
      degraded = { error, retryAt };
    },
    recover() {
      degraded = undefined;
    },
  };
}

/** The part's InstancesV2, answering nothing while it is degraded. */
export function gatedInstances(instances: InstancesV2, state: PartState): InstancesV2 {
  const gated: InstancesV2 = {
    async instanceExists(ctx, node) {
      state.assertUp();
      return instances.instanceExists(ctx, node);
    },
    async instanceShutdown(ctx, node) {
      state.assertUp();
      return instances.instanceShutdown(ctx, node);
    },
    async instanceMetadata(ctx, node) {
      state.assertUp();
      return instances.instanceMetadata(ctx, node);
    },
  };
  const bulk = instances.instanceMetadataBulk?.bind(instances);
  if (bulk) {
    gated.instanceMetadataBulk = async (ctx, nodes) => {
      state.assertUp();
      return bulk(ctx, nodes);
    };
  }
  return gated;
}

/** The part's LoadBalancer, failing every cloud call while it is degraded (the name and classes need no cloud). */
export function gatedLoadBalancer(lb: LoadBalancer, state: PartState): LoadBalancer {
  const gated: LoadBalancer = {
    classes: lb.classes,
    getLoadBalancerName: (ctx, clusterName, service) => lb.getLoadBalancerName(ctx, clusterName, service),
    async getLoadBalancer(ctx, clusterName, service) {
      state.assertUp("getLoadBalancer");
      return lb.getLoadBalancer(ctx, clusterName, service);
    },
    async ensureLoadBalancer(ctx, clusterName, service, nodes) {
      state.assertUp("ensureLoadBalancer");
      return lb.ensureLoadBalancer(ctx, clusterName, service, nodes);
    },
    async updateLoadBalancer(ctx, clusterName, service, nodes) {
      state.assertUp("updateLoadBalancer");
      return lb.updateLoadBalancer(ctx, clusterName, service, nodes);
    },
    async ensureLoadBalancerDeleted(ctx, clusterName, service) {
      state.assertUp("ensureLoadBalancerDeleted");
      return lb.ensureLoadBalancerDeleted(ctx, clusterName, service);
    },
  };
  const plan = lb.planLoadBalancer?.bind(lb);
  if (plan) {
    gated.planLoadBalancer = async (ctx, clusterName, service, nodes) => {
      state.assertUp("planLoadBalancer");
      return plan(ctx, clusterName, service, nodes);
    };
  }
  return gated;
}

/** The part's Routes, failing every call while it is degraded. */
export function gatedRoutes(routes: Routes, state: PartState): Routes {
  return {
    async listRoutes(ctx, clusterName) {
      state.assertUp("listRoutes");
      return routes.listRoutes(ctx, clusterName);
    },
    async createRoute(ctx, clusterName, nameHint, route) {
      state.assertUp("createRoute");
      return routes.createRoute(ctx, clusterName, nameHint, route);
    },
    async deleteRoute(ctx, clusterName, route) {
      state.assertUp("deleteRoute");
      return routes.deleteRoute(ctx, clusterName, route);
    },
  };
}

export interface RetryInput {
  readonly state: PartState;
  /** One attempt at the part's `initialize`. */
  readonly attempt: () => Promise<void>;
  /** The first attempt's error, already found to be `unavailable`. */
  readonly firstError: unknown;
  readonly backoff: PartBackoff;
  readonly logger: ConsolaInstance;
  readonly now: Now;
  readonly sleep: Sleep;
  /** The term's: the attempts stop with it. */
  readonly signal: AbortSignal;
}

/**
 * Degrades the part and tries `attempt` again with capped exponential back-off until it succeeds (the part then
 * serves) or `signal` aborts. Logs when the part degrades, when the kind of failure changes (the cloud answering
 * again, but refusing the credentials, is worth a line), and when it recovers; each attempt only at debug.
 */
export async function retryInitialize(input: RetryInput): Promise<void> {
  const { state, logger, backoff, signal } = input;
  const name = state.name;
  let delay = backoff.firstMs;
  let attempts = 1;
  let kind: CloudFailureKind = "unavailable";
  state.degrade(input.firstError, input.now() + delay);
  logger.warn(
    `provider "${name}" could not initialize, its cloud is unavailable: ${messageOf(input.firstError)}; starting without it: its Nodes are kept as they are and its calls fail until it initializes (retried with back-off up to ${backoff.capMs / 1000}s)`,
  );
  for (;;) {
    await input.sleep(delay, signal);
    if (signal.aborted) return;
    try {
      await input.attempt();
    } catch (err) {
      if (signal.aborted) return;
      attempts++;
      delay = Math.min(backoff.capMs, delay * 2);
      state.degrade(err, input.now() + delay);
      const now = cloudFailureKind(err);
      if (now !== kind) {
        logger.warn(`provider "${name}" still cannot initialize, now because ${because[now]}: ${messageOf(err)}`);
        kind = now;
      } else {
        logger.debug(`provider "${name}": attempt ${attempts} to initialize failed: ${messageOf(err)}`);
      }
      continue;
    }
    state.recover();
    logger.info(`provider "${name}" initialized after ${attempts + 1} attempts; it serves again`);
    return;
  }
}
