/**
 * hccm's two Warning events about a load balancer's type, given on every sync of the Service (create, change or
 * Node update), with hccm's reasons so alerts and `kubectl get events --field-selector reason=…` written for hccm
 * keep working:
 *
 * - `LoadBalancerTypeUnconfigured`: neither the `type` annotation nor `HCLOUD_LOAD_BALANCERS_TYPE` names a type
 *   (hccm: the type will be required in the future; until then `lb11` at creation).
 * - `LoadBalancerTypeDeprecated`: the type carries the API's `deprecation` object: orderable until
 *   `unavailable_after`, or no longer orderable past it.
 *
 * The deprecation is read from the load balancer's own `load_balancer_type`, which the API sends whole inside every
 * load balancer: no call beyond the reads the sync makes anyway. (hccm looks the chosen type up in the type list
 * instead; without a configured type it checks `lb11`, where this checks the type the load balancer has.) Unlike
 * hccm, an unavailable type is a warning, not a failed sync: the load balancer exists, and failing would stop its
 * listeners and targets from following the Service. Pure: the caller passes the time.
 */
import { annotationKey } from "../annotations.ts";

export const LoadBalancerTypeReasons = {
  unconfigured: "LoadBalancerTypeUnconfigured",
  deprecated: "LoadBalancerTypeDeprecated",
} as const;

export interface TypeWarning {
  readonly reason: (typeof LoadBalancerTypeReasons)[keyof typeof LoadBalancerTypeReasons];
  readonly message: string;
}

/** The type as a load balancer carries it (`CloudLoadBalancer["load_balancer_type"]` fits). */
export interface LoadBalancerTypeInfo {
  readonly name: string;
  readonly deprecation?: { readonly announced: string; readonly unavailable_after: string } | null | undefined;
}

export interface TypeWarningsInput {
  /** Whether the annotation or `HCLOUD_LOAD_BALANCERS_TYPE` names the type (`DesiredLoadBalancer.type` is set). */
  readonly configured: boolean;
  /** The load balancer's type after the sync's changes. */
  readonly type: LoadBalancerTypeInfo;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

const CHOOSE = `choose another with the annotation ${annotationKey("type")} or HCLOUD_LOAD_BALANCERS_TYPE`;

export function loadBalancerTypeWarnings(input: TypeWarningsInput): TypeWarning[] {
  const warnings: TypeWarning[] = [];
  if (!input.configured) {
    warnings.push({
      reason: LoadBalancerTypeReasons.unconfigured,
      message: `no load balancer type is set, which will be required in the future: set the annotation ${annotationKey("type")} on the Service, or HCLOUD_LOAD_BALANCERS_TYPE for the cluster (new load balancers get lb11 until then)`,
    });
  }
  const deprecation = input.type.deprecation;
  if (deprecation) {
    const until = Date.parse(deprecation.unavailable_after);
    const day = Number.isNaN(until) ? deprecation.unavailable_after : new Date(until).toISOString().slice(0, 10);
    const gone = !Number.isNaN(until) && input.now > until;
    warnings.push({
      reason: LoadBalancerTypeReasons.deprecated,
      message: gone
        ? `load balancer type "${input.type.name}" is no longer available to order (since ${day}); ${CHOOSE}`
        : `load balancer type "${input.type.name}" is deprecated and can be ordered until ${day} only; ${CHOOSE}`,
    });
  }
  return warnings;
}
