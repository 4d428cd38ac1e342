/**
 * The cloud-node and lifecycle controllers' first pass, planned: the same cloud reads and the same planners as
 * `node/node-sync.ts` and `nodelifecycle/controller.ts`, with every write recorded instead of made.
 */
import type { Node, NodeAddress, Taint } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { fetchInitializationMetadata, getRefreshMetadata } from "../node/metadata.ts";
import {
  applyModifiers,
  awaitingInitialization,
  planAddressUpdate,
  planInitialization,
  planLabelReconciliation,
  SYNCED_EVENT,
} from "../node/plan.ts";
import { probeNodes } from "../nodelifecycle/cloud.ts";
import { type LifecycleDecision, planAfterProbe, planReadiness, SHUTDOWN_TAINT } from "../nodelifecycle/plan.ts";
import { nodeObject, type PlanBuilder } from "./model.ts";

const nameOf = (node: Node): string => node.metadata?.name ?? "";

/**
 * Each node as the cloud-node controller would leave it: uninitialised ones initialised (with the addresses patched
 * right after), initialised ones with their labels reconciled and addresses refreshed. Returns the nodes as they
 * would be afterwards, for the planners that run after this one.
 */
export async function planCloudNodes(
  out: PlanBuilder,
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
): Promise<Node[]> {
  const after: Node[] = [];
  const initialised: Node[] = [];
  for (const node of nodes) {
    const why = awaitingInitialization(node);
    if (!why) {
      initialised.push(node);
      after.push(reconcileLabels(out, node));
      continue;
    }
    after.push(await initialize(out, cloud, ctx, node, why));
  }
  if (initialised.length === 0) return after;
  const answers = await getRefreshMetadata(cloud, ctx, initialised);
  for (const node of initialised) {
    const answer = answers.get(nameOf(node));
    if (answer?.kind === "error") {
      out.problem(nodeObject(nameOf(node)), answer.error);
      continue;
    }
    const plan = planAddressUpdate(node, answer?.metadata ?? null);
    if (plan.kind === "update") {
      out.write(
        nodeObject(nameOf(node)),
        "update-addresses",
        "addresses refresh",
        addressChanges(node, plan.addresses),
      );
    } else if (plan.error) {
      out.note(nodeObject(nameOf(node)), `not updating addresses: ${plan.reason}: ${plan.error.message}`);
    }
  }
  return after;
}

async function initialize(
  out: PlanBuilder,
  cloud: CloudProvider,
  ctx: CallContext,
  node: Node,
  why: string,
): Promise<Node> {
  const name = nameOf(node);
  const object = nodeObject(name);
  let metadata: Awaited<ReturnType<typeof fetchInitializationMetadata>>;
  try {
    metadata = await fetchInitializationMetadata(cloud, ctx, node, (m) => out.note(object, m));
  } catch (err) {
    out.problem(object, err);
    return node;
  }
  const plan = planInitialization(node, metadata);
  if (plan.kind === "wait") {
    out.note(object, `node ${name} stays uninitialized: ${plan.reason}`);
    return node;
  }
  if (plan.kind === "error") {
    out.problem(object, plan.error);
    return node;
  }
  for (const warning of plan.warnings) out.note(object, warning);
  const next = applyModifiers(node, plan.modifiers);
  if (!next.changed) return node;
  out.write(object, "initialize", why, nodeChanges(node, next.node));
  const addresses = planAddressUpdate(next.node, metadata);
  if (addresses.kind === "update") {
    out.write(object, "update-addresses", "addresses after initialization", addressChanges(node, addresses.addresses));
  }
  out.write(object, "event", "node initialized", [eventText(SYNCED_EVENT)]);
  return next.node;
}

function reconcileLabels(out: PlanBuilder, node: Node): Node {
  const labels = planLabelReconciliation(node);
  if (!labels) return node;
  out.write(
    nodeObject(nameOf(node)),
    "set-labels",
    "a deprecated (beta) label differs from its stable counterpart",
    Object.entries(labels).map(([k, v]) => `label ${k}=${v}`),
  );
  const copy = structuredClone(node);
  copy.metadata = { ...copy.metadata, labels: { ...copy.metadata?.labels, ...labels } };
  return copy;
}

/** The lifecycle controller's `MonitorNodes` pass: shutdown taints and deletions. */
export async function planLifecycle(
  out: PlanBuilder,
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
): Promise<void> {
  const toProbe: Node[] = [];
  for (const node of nodes) {
    const decision = planReadiness(node);
    if (decision.kind === "probe") toProbe.push(node);
    else record(out, node, decision);
  }
  if (toProbe.length === 0) return;
  const probes = await probeNodes(cloud, ctx, toProbe);
  for (const node of toProbe) {
    const probe = probes.get(nameOf(node)) ?? { kind: "existsFailed" as const, error: new Error("no answer") };
    record(out, node, planAfterProbe(node, probe));
  }
}

function record(out: PlanBuilder, node: Node, decision: LifecycleDecision): void {
  const object = nodeObject(nameOf(node));
  const taint = `taint ${SHUTDOWN_TAINT.key}:${SHUTDOWN_TAINT.effect}`;
  switch (decision.kind) {
    case "none":
      if (decision.error !== undefined) out.problem(object, decision.error);
      return;
    case "probe":
      return;
    case "removeShutdownTaint":
      out.write(object, "remove-taint", "node is Ready again", [`remove ${taint}`]);
      return;
    case "addShutdownTaint":
      out.write(object, "add-taint", "instance is shut down", [`add ${taint}`]);
      return;
    case "delete":
      out.write(object, "event", decision.event.message, [eventText(decision.event)]);
      out.write(object, "delete", decision.event.message, [`delete Node ${nameOf(node)}`]);
      return;
  }
}

/** Provider ID, labels and taints that differ between `before` and `after`. */
export function nodeChanges(before: Node, after: Node): string[] {
  const changes: string[] = [];
  const id = after.spec?.providerID ?? "";
  if (id !== (before.spec?.providerID ?? "")) changes.push(`spec.providerID ${id}`);
  const was = before.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(after.metadata?.labels ?? {})) {
    if (was[k] !== v) changes.push(was[k] === undefined ? `label ${k}=${v}` : `label ${k}=${v} (was ${was[k]})`);
  }
  const key = (t: Taint) => `${t.key}=${t.value ?? ""}:${t.effect}`;
  const taintsAfter = new Set((after.spec?.taints ?? []).map(key));
  const taintsBefore = new Set((before.spec?.taints ?? []).map(key));
  for (const t of before.spec?.taints ?? []) if (!taintsAfter.has(key(t))) changes.push(`remove taint ${t.key}`);
  for (const t of after.spec?.taints ?? []) if (!taintsBefore.has(key(t))) changes.push(`add taint ${key(t)}`);
  return changes;
}

/** The new address list, marking what is new. */
function addressChanges(node: Node, addresses: readonly NodeAddress[]): string[] {
  const had = new Set((node.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`));
  const changes = addresses.map(
    (a) => `address ${a.type} ${a.address}${had.has(`${a.type} ${a.address}`) ? "" : " (new)"}`,
  );
  const now = new Set(addresses.map((a) => `${a.type} ${a.address}`));
  for (const a of node.status?.addresses ?? []) {
    if (!now.has(`${a.type} ${a.address}`)) changes.push(`remove address ${a.type} ${a.address}`);
  }
  return changes;
}

export function eventText(e: { type: string; reason: string; message: string }): string {
  return `${e.type} ${e.reason}: ${e.message}`;
}
