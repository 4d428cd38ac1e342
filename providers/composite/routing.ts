/**
 * Which part of a composite a Node belongs to, from its provider ID alone: pure, no cloud call. A Node with a
 * provider ID belongs to the part that declares its scheme, or to none; a Node without one is offered to the
 * Node-serving parts in the configured order (the first that finds its instance wins, see instances.ts).
 */
import type { Node } from "../../kube/objects.ts";
import type { InstancesV2 } from "../cloud.ts";
import { schemeOf } from "./config.ts";

/** A part that serves Nodes: its InstancesV2 and the provider-ID schemes of the Nodes it owns. */
export interface NodePart {
  readonly name: string;
  readonly schemes: readonly string[];
  readonly instances: InstancesV2;
}

export type NodeRoute<P extends NodePart = NodePart> =
  /** The provider ID's scheme is this part's. */
  | { readonly kind: "part"; readonly part: P }
  /** No provider ID yet: ask the parts in order. */
  | { readonly kind: "unassigned" }
  /** A provider ID whose scheme no part declares (or that has no scheme): the Node is some other system's. */
  | { readonly kind: "foreign"; readonly providerID: string; readonly scheme: string | undefined };

export function routeNode<P extends NodePart>(parts: readonly P[], node: Node): NodeRoute<P> {
  const providerID = node.spec?.providerID ?? "";
  if (providerID === "") return { kind: "unassigned" };
  const scheme = schemeOf(providerID);
  const part = scheme === undefined ? undefined : parts.find((p) => p.schemes.includes(scheme));
  return part ? { kind: "part", part } : { kind: "foreign", providerID, scheme };
}

/** One line saying which part a Node belongs to, for `doctor` and for events. */
export function describeRoute(parts: readonly NodePart[], node: Node): string {
  const route = routeNode(parts, node);
  switch (route.kind) {
    case "part":
      return `provider "${route.part.name}" (provider ID ${node.spec?.providerID})`;
    case "unassigned":
      return parts.length === 0
        ? "no provider: no configured provider serves Nodes"
        : `not yet assigned (no provider ID): offered to ${parts.map((p) => `"${p.name}"`).join(", then ")}`;
    case "foreign":
      return route.scheme === undefined
        ? `no configured provider: provider ID "${route.providerID}" has no scheme`
        : `no configured provider: none of ${parts.map((p) => p.name).join(", ")} declares scheme "${route.scheme}"`;
  }
}

/** Why a provider ID leads to no part, and the fix. */
export function foreignText(parts: readonly NodePart[], providerID: string, scheme: string | undefined): string {
  const known = parts.map((p) => `${p.name} (${p.schemes.join(", ")})`).join(", ") || "none";
  const what = scheme === undefined ? "has no scheme" : `has scheme "${scheme}"`;
  return `provider ID "${providerID}" ${what}, which no configured provider declares (schemes: ${known}); if one of them owns this Node, add the scheme to that provider's schemes: in the cloud-config`;
}
