/**
 * Whose a load balancer is: owned by cluster and Service, never by name alone (DO CCM takes any load balancer
 * with the Service's name, so two clusters using one `do-loadbalancer-name` destroy each other's: its issues #916,
 * #556). Pure: the reads come in, a decision comes out.
 *
 * - **The cluster's tag** `k8s:<id>`, DO CCM's own (`buildK8sTag`): `<id>` is `DO_CLUSTER_ID` when set (so the
 *   load balancers DO CCM made on DOKS carry it already), else the manager's `--cluster-name`.
 * - **The Service's tag** `ccm-service:<uid>`, added to every load balancer the provider makes or adopts, so a
 *   renamed Service keeps its load balancer (renamed in place, DO CCM's #224) and a create whose answer was lost is
 *   found again instead of made twice.
 *
 * The order: the ID the Service's `kubernetes.digitalocean.com/load-balancer-id` names (DO CCM's record: adopted in
 * place, whatever its tags, unless it is another Service's); then the one with this Service's tag; then the one with
 * the Service's name (or Kubernetes' default name), taken only when it carries this cluster's tag and no other
 * Service's. A load balancer with the name but not this cluster's tag is another cluster's (or a person's): refused,
 * never changed, never deleted.
 */
import type { CloudLoadBalancer } from "../api/load-balancers.ts";

export const SERVICE_TAG_PREFIX = "ccm-service:";

/** The cluster's tag, as DO CCM spells it; characters a tag cannot hold become `-`. */
export function clusterTag(clusterID: string): string {
  return `k8s:${clusterID.replace(/[^A-Za-z0-9_:-]/g, "-")}`.slice(0, 255);
}

export function serviceTag(uid: string): string {
  return `${SERVICE_TAG_PREFIX}${uid}`;
}

export type Ownership =
  /** No load balancer is this Service's: one may be created. */
  | { readonly kind: "none" }
  /** This Service's own (it has the Service's tag). */
  | { readonly kind: "own"; readonly lb: CloudLoadBalancer }
  /** Made elsewhere (DO CCM) and taken over in place: same ID, same IP; `how` says by what it was found. */
  | { readonly kind: "adopt"; readonly lb: CloudLoadBalancer; readonly how: "id-annotation" | "name-and-cluster-tag" }
  /** Found, but not this Service's to take: the reason names it and what to do. Nothing is written or deleted. */
  | { readonly kind: "refuse"; readonly lb: CloudLoadBalancer; readonly reason: string };

export interface OwnershipInput {
  /** The load balancer the ID annotation names, when the Service has one and it exists. */
  readonly byID?: CloudLoadBalancer | undefined;
  /** Every load balancer of the account (asked for only when `byID` did not settle it). */
  readonly all: readonly CloudLoadBalancer[];
  /** The names the Service's load balancer may have: the annotated one, then Kubernetes' default. */
  readonly names: readonly string[];
  readonly clusterTag: string;
  readonly serviceTag: string;
}

const otherService = (lb: CloudLoadBalancer, mine: string) =>
  (lb.tags ?? []).find((t) => t.startsWith(SERVICE_TAG_PREFIX) && t !== mine);

/** Settled by the ID alone, without a listing: the annotation names an existing load balancer. */
export function ownershipByID(lb: CloudLoadBalancer, tags: { clusterTag: string; serviceTag: string }): Ownership {
  const other = otherService(lb, tags.serviceTag);
  if (other) {
    return {
      kind: "refuse",
      lb,
      reason: `load balancer ${lb.id} (${lb.name}), which kubernetes.digitalocean.com/load-balancer-id names, belongs to another Service (tag ${other}); remove the annotation from this Service`,
    };
  }
  if ((lb.tags ?? []).includes(tags.serviceTag)) return { kind: "own", lb };
  return { kind: "adopt", lb, how: "id-annotation" };
}

export function decideOwnership(input: OwnershipInput): Ownership {
  if (input.byID) return ownershipByID(input.byID, input);
  const tagged = input.all.filter((lb) => (lb.tags ?? []).includes(input.serviceTag));
  if (tagged.length > 1) {
    throw new Error(
      `load balancers ${tagged.map((l) => `${l.id} (${l.name})`).join(", ")} all carry tag ${input.serviceTag}; delete all but one in the DigitalOcean control panel`,
    );
  }
  if (tagged[0]) return { kind: "own", lb: tagged[0] };
  const named = input.names.map((n) => input.all.find((lb) => lb.name === n)).find((lb) => lb !== undefined);
  if (!named) return { kind: "none" };
  const other = otherService(named, input.serviceTag);
  if (other) {
    return {
      kind: "refuse",
      lb: named,
      reason: `load balancer ${named.id} (${named.name}) has this Service's name but belongs to another Service (tag ${other}); choose another name with service.beta.kubernetes.io/do-loadbalancer-name`,
    };
  }
  if ((named.tags ?? []).includes(input.clusterTag)) return { kind: "adopt", lb: named, how: "name-and-cluster-tag" };
  const tags = (named.tags ?? []).length > 0 ? `tags ${(named.tags ?? []).join(", ")}` : "no tags";
  return {
    kind: "refuse",
    lb: named,
    reason: `load balancer ${named.id} (${named.name}) has this Service's name but not this cluster's tag ${input.clusterTag} (it has ${tags}): it is another cluster's, so it is left alone; choose another name with service.beta.kubernetes.io/do-loadbalancer-name, or, to take it over, set kubernetes.digitalocean.com/load-balancer-id: ${named.id} on this Service`,
  };
}
