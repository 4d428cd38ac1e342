/**
 * The route controller's planner (upstream: route_controller.go `reconcile`): which cloud routes to delete and create
 * for the cluster's nodes, and what each node's `NetworkUnavailable` condition should say afterwards. Plain values in,
 * plain values out.
 */
import type { Node, NodeAddress, NodeCondition, ObjectReference } from "../../kube/objects.ts";
import { Conditions } from "../../kube/well-known.ts";
import { type Cidr, cidrContains, formatCIDR, lastAddress, tryParseCIDR } from "../../net/cidr.ts";
import { formatGoDuration } from "../../platform/go-format.ts";
import type { Route } from "../../providers/cloud.ts";

/** Upstream's actions; `remove` exists upstream but is never assigned, so it is left out. */
export type RouteAction = "keep" | "add" | "update";

export interface RouteCreate {
  readonly nodeName: string;
  /** The node's UID. A dual-stack node gets the same hint for each of its routes. */
  readonly nameHint: string;
  /** `targetNodeAddresses` = the node's `status.addresses`; `enableNodeAddresses` is not set (as upstream). */
  readonly route: Route;
}

export interface RouteDelete {
  readonly route: Route;
  /** Why it goes, for the log line. */
  readonly reason: string;
}

export interface RoutePlan {
  /**
   * pod CIDR → action, for every node with an entry: nodes with pod CIDRs and targets of listed routes. An empty
   * map means "has routes but no pod CIDRs".
   */
  readonly actions: ReadonlyMap<string, ReadonlyMap<string, RouteAction>>;
  readonly deletes: readonly RouteDelete[];
  readonly creates: readonly RouteCreate[];
  /**
   * True when the first listed route has `enableNodeAddresses`: deletions must finish before creations start, so
   * an update (delete + create of the same route) cannot delete the fresh copy. Otherwise both run together.
   */
  readonly waitForDeletes: boolean;
}

const podCIDRsOf = (node: Node): readonly string[] => node.spec?.podCIDRs ?? [];

/**
 * Upstream's address comparison: same length and every address of `a` found in `b` (so `[x, x]` equals `[x, y]`;
 * kept for compatibility).
 */
export function sameNodeAddresses(a: readonly NodeAddress[], b: readonly NodeAddress[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x) => b.some((y) => x.type === y.type && x.address === y.address));
}

function actionFor(routes: readonly Route[], cidr: string, addresses: readonly NodeAddress[]): RouteAction {
  const existing = routes.find((r) => r.destinationCIDR === cidr);
  if (!existing) return "add";
  if (!existing.enableNodeAddresses) return "keep";
  return sameNodeAddresses(addresses, existing.targetNodeAddresses ?? []) ? "keep" : "update";
}

/**
 * Why the controller is not responsible for a route, or `undefined` when it is: its CIDR parses and its first or
 * last address lies inside one of the cluster CIDRs.
 */
export function notResponsibleForRoute(route: Route, clusterCIDRs: readonly Cidr[]): string | undefined {
  const cidr = tryParseCIDR(route.destinationCIDR);
  if (!cidr) return `unparsable CIDR ${JSON.stringify(route.destinationCIDR)}`;
  const first = { family: cidr.family, value: cidr.network };
  const last = { family: cidr.family, value: lastAddress(cidr) };
  const inside = clusterCIDRs.some((c) => cidrContains(c, first) || cidrContains(c, last));
  return inside ? undefined : `${formatCIDR(cidr)} is outside the cluster CIDRs`;
}

/** Plans one reconcile pass over the listed nodes and the cloud's listed routes. */
export function planRoutes(nodes: readonly Node[], routes: readonly Route[], clusterCIDRs: readonly Cidr[]): RoutePlan {
  const routesByNode = new Map<string, Route[]>();
  const actions = new Map<string, Map<string, RouteAction>>();
  for (const route of routes) {
    if (route.targetNode === "") continue;
    routesByNode.set(route.targetNode, [...(routesByNode.get(route.targetNode) ?? []), route]);
    if (!actions.has(route.targetNode)) actions.set(route.targetNode, new Map());
  }

  const withPodCIDRs = new Set<string>();
  for (const node of nodes) {
    const name = node.metadata?.name ?? "";
    const podCIDRs = podCIDRsOf(node);
    if (podCIDRs.length === 0) continue;
    withPodCIDRs.add(name);
    const nodeActions = actions.get(name) ?? new Map<string, RouteAction>();
    actions.set(name, nodeActions);
    const own = routesByNode.get(name) ?? [];
    for (const cidr of podCIDRs) nodeActions.set(cidr, actionFor(own, cidr, node.status?.addresses ?? []));
  }

  const deletes: RouteDelete[] = [];
  for (const route of routes) {
    if (notResponsibleForRoute(route, clusterCIDRs) !== undefined) continue;
    const action = actions.get(route.targetNode)?.get(route.destinationCIDR);
    if (route.blackhole) deletes.push({ route, reason: "blackhole route" });
    else if (route.targetNode === "") deletes.push({ route, reason: "route has no target node" });
    else if (!withPodCIDRs.has(route.targetNode)) deletes.push({ route, reason: "no listed node with pod CIDRs" });
    else if (action === undefined) deletes.push({ route, reason: "CIDR is no longer assigned to the node" });
    else if (action === "update") deletes.push({ route, reason: "node addresses changed" });
  }

  const creates: RouteCreate[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? "";
    for (const cidr of podCIDRsOf(node)) {
      const action = actions.get(name)?.get(cidr);
      if (action !== "add" && action !== "update") continue;
      const route: Route = {
        name: "",
        targetNode: name,
        targetNodeAddresses: node.status?.addresses ?? [],
        destinationCIDR: cidr,
      };
      creates.push({ nodeName: name, nameHint: node.metadata?.uid ?? "", route });
    }
  }

  return { actions, deletes, creates, waitForDeletes: routes[0]?.enableNodeAddresses === true };
}

/**
 * Per listed node with an entry in the plan: are all its routes in place after the creations? `created` tells
 * which (node, CIDR) creations succeeded. Nodes without an entry are left out (their condition is left alone).
 */
export function routesCreatedByNode(
  plan: RoutePlan,
  nodes: readonly Node[],
  created: (nodeName: string, cidr: string) => boolean,
): { node: Node; routesCreated: boolean }[] {
  const out: { node: Node; routesCreated: boolean }[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? "";
    const nodeActions = plan.actions.get(name);
    if (!nodeActions) continue;
    if (nodeActions.size === 0) {
      out.push({ node, routesCreated: false });
      continue;
    }
    let all = true;
    for (const [cidr, action] of nodeActions) {
      if (action !== "keep" && !created(name, cidr)) all = false;
    }
    out.push({ node, routesCreated: all });
  }
  return out;
}

export const RouteConditionReasons = {
  created: "RouteCreated",
  notCreated: "NoRouteCreated",
} as const;

/** RFC 3339 in UTC with whole seconds, as `metav1.Time` marshals. */
export function formatKubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * The `NetworkUnavailable` condition to write for a node, or `undefined` when its (cached) condition already says
 * so with our reason. Any other state — absent, a CNI's reason, the opposite status — is overwritten, and the
 * transition time is bumped even when only the reason changes (as upstream).
 */
export function networkUnavailableCondition(
  node: Node,
  routesCreated: boolean,
  nowMs: number,
): NodeCondition | undefined {
  const current = node.status?.conditions?.find((c) => c.type === Conditions.networkUnavailable);
  if (routesCreated && current?.status === "False" && current.reason === RouteConditionReasons.created) return;
  if (!routesCreated && current?.status === "True" && current.reason === RouteConditionReasons.notCreated) return;
  const now = formatKubeTime(nowMs);
  return {
    type: Conditions.networkUnavailable,
    status: routesCreated ? "False" : "True",
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason: routesCreated ? RouteConditionReasons.created : RouteConditionReasons.notCreated,
    message: routesCreated ? "RouteController created a route" : "RouteController failed to create a route",
  };
}

/** The strategic-merge patch for the node's `status` subresource (conditions merge by `type`). */
export function networkConditionPatch(condition: NodeCondition): { status: { conditions: NodeCondition[] } } {
  return { status: { conditions: [condition] } };
}

export interface RouteEvent {
  readonly type: "Warning";
  readonly reason: "FailedToCreateRoute";
  readonly message: string;
}

/** The reference events about a node carry (apiVersion must be set, upstream tests assert it). */
export function nodeReference(node: Node): ObjectReference {
  return { apiVersion: "v1", kind: "Node", name: node.metadata?.name ?? "", uid: node.metadata?.uid ?? "" };
}

/** `Could not create route <nameHint> <cidr> for node <node> after <duration>: <err>`. */
export function failedToCreateRouteEvent(create: RouteCreate, elapsedMs: number, err: unknown): RouteEvent {
  const detail = err instanceof Error ? err.message : String(err);
  return {
    type: "Warning",
    reason: "FailedToCreateRoute",
    message: `Could not create route ${create.nameHint} ${create.route.destinationCIDR} for node ${create.nodeName} after ${formatGoDuration(elapsedMs)}: ${detail}`,
  };
}
