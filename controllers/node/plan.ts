/**
 * The cloud-node controller's planners: pure, no I/O, no clock. Each returns "nothing to do" for a
 * node that needs no change, so a resync of an unchanged cluster makes no writes.
 *
 * Initialisation (syncNode steps 2–5):
 * The runner reads the node from the lister, asks `fetchInitializationMetadata` (metadata.ts), calls
 * `planInitialization`, then inside its conflict-retry loop re-reads the node, `applyModifiers` to a fresh copy
 * and sends the difference as a merge patch that carries the copy's resourceVersion (node-sync.ts). Modifiers
 * re-check what they change, so applying them to a newer copy stays correct.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { NodeAddressType } from "../../kube/objects.ts";
import { Annotations, Labels, Taints } from "../../kube/well-known.ts";
import type { InstanceMetadata } from "../../providers/cloud.ts";
import { ProvidedNodeIPError } from "./errors.ts";
import { getNodeAddressesFromNodeIP, nodeAddressesChangeDetected } from "./node-ip.ts";

/** One change to a node, applied in place to a copy the runner owns. */
export type NodeModifier = (node: Node) => void;

export type InitializationPlan =
  /** Apply `modifiers` (in order) and update the node; `warnings` are for the log, once. */
  | { readonly kind: "initialize"; readonly modifiers: readonly NodeModifier[]; readonly warnings: readonly string[] }
  /** The cloud answered `null`: leave the node tainted, report success (no back-off retry). */
  | { readonly kind: "wait"; readonly reason: string }
  /** Do not touch the node; return `error` so the key is retried with back-off. */
  | { readonly kind: "error"; readonly error: Error };

/** Predicate: the node carries the uninitialized taint (any value, any effect). Returns the reason, if so. */
export function awaitingInitialization(node: Node): string | undefined {
  const tainted = (node.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
  return tainted ? `node has the ${Taints.uninitialized} taint` : undefined;
}

/** Keys under `kubernetes.io/` or `k8s.io/` (or a subdomain of them) are reserved; the cloud may not set them. */
const RESERVED_LABEL = /(^|\.)(kubernetes|k8s)\.io\//;

export function isReservedLabel(key: string): boolean {
  return RESERVED_LABEL.test(key);
}

function setLabels(labels: Readonly<Record<string, string>>): NodeModifier {
  return (node) => {
    node.metadata ??= {};
    node.metadata.labels ??= {};
    Object.assign(node.metadata.labels, labels);
  };
}

/**
 * The ordered changes that initialise `node` from `metadata`: provider ID (only when the node has none),
 * instance-type/zone/region labels (stable and deprecated), additional labels (reserved keys dropped, the node's
 * own values kept), and removal of every uninitialized taint. A provided node IP the cloud's addresses cannot
 * satisfy is an error and nothing is changed.
 */
export function planInitialization(node: Node, metadata: InstanceMetadata | null): InitializationPlan {
  const name = node.metadata?.name ?? "";
  if (metadata === null) return { kind: "wait", reason: `cloud provider returned no instance metadata for ${name}` };

  const modifiers: NodeModifier[] = [];
  const warnings: string[] = [];

  if (!node.spec?.providerID && metadata.providerID) {
    const providerID = metadata.providerID;
    modifiers.push((n) => {
      n.spec ??= {};
      // spec.providerID cannot change once set; never overwrite one that appeared meanwhile.
      if (!n.spec.providerID) n.spec.providerID = providerID;
    });
  }

  const providedNodeIP = node.metadata?.annotations?.[Annotations.providedNodeIP];
  if (providedNodeIP !== undefined) {
    try {
      getNodeAddressesFromNodeIP(providedNodeIP, metadata.nodeAddresses);
    } catch (err) {
      return { kind: "error", error: new ProvidedNodeIPError(name, providedNodeIP, err as Error) };
    }
  }

  if (metadata.instanceType) {
    const v = metadata.instanceType;
    modifiers.push(setLabels({ [Labels.instanceTypeDeprecated]: v, [Labels.instanceType]: v }));
  }
  if (metadata.zone) {
    modifiers.push(setLabels({ [Labels.zoneDeprecated]: metadata.zone, [Labels.zone]: metadata.zone }));
  }
  if (metadata.region) {
    modifiers.push(setLabels({ [Labels.regionDeprecated]: metadata.region, [Labels.region]: metadata.region }));
  }

  const additional = metadata.additionalLabels ?? {};
  if (Object.keys(additional).length > 0) {
    const current = node.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(additional)) {
      if (isReservedLabel(key)) {
        warnings.push(`discarding additional label ${key}=${value} from the cloud provider: reserved prefix`);
      } else if (key in current && current[key] !== value) {
        warnings.push(`keeping node label ${key}=${current[key]}; the cloud provider offers ${value}`);
      }
    }
    modifiers.push((n) => {
      n.metadata ??= {};
      n.metadata.labels ??= {};
      const labels = n.metadata.labels;
      for (const [key, value] of Object.entries(additional)) {
        if (!isReservedLabel(key) && !(key in labels)) labels[key] = value;
      }
    });
  }

  modifiers.push((n) => {
    n.spec ??= {};
    n.spec.taints = (n.spec.taints ?? []).filter((t) => t.key !== Taints.uninitialized);
  });

  return { kind: "initialize", modifiers, warnings };
}

/**
 * A deep copy of `node` with `modifiers` applied in order, and whether anything changed (so the runner can skip
 * a write that would change nothing).
 */
export function applyModifiers(node: Node, modifiers: readonly NodeModifier[]): { node: Node; changed: boolean } {
  const before = JSON.stringify(node);
  const copy = structuredClone(node);
  for (const modify of modifiers) modify(copy);
  return { node: copy, changed: JSON.stringify(copy) !== before };
}

/** Event after a successful initialisation, upstream's. */
export const SYNCED_EVENT = { type: "Normal", reason: "Synced", message: "Node synced successfully" } as const;

// Initialised nodes: the address update (`updateNodeAddress`, right after initialisation and in the periodic
// refresh) and label reconciliation (every add/update event).

export type AddressPlan =
  /** Patch `status.addresses` with `addresses` (replacing the whole list). */
  | { readonly kind: "update"; readonly addresses: NodeAddress[] }
  /** No write. `error` is set when the provided node IP could not be applied (log it; upstream does not retry). */
  | { readonly kind: "skip"; readonly reason: string; readonly error?: Error };

/**
 * Upstream `updateNodeAddress`. Skips tainted nodes, `null` metadata (upstream crashes here; we skip) and empty
 * cloud addresses (addresses are never cleared). Keeps the node's Hostname addresses when the cloud reports
 * none, applies the provided node IP, and updates only when `nodeAddressesChangeDetected` says so.
 */
export function planAddressUpdate(node: Node, metadata: InstanceMetadata | null): AddressPlan {
  const tainted = awaitingInitialization(node);
  if (tainted) return { kind: "skip", reason: tainted };
  if (metadata === null) return { kind: "skip", reason: "cloud provider returned no instance metadata" };
  if (metadata.nodeAddresses.length === 0) return { kind: "skip", reason: "cloud provider returned no addresses" };

  const current = node.status?.addresses ?? [];
  let addresses = metadata.nodeAddresses.map((a) => ({ type: a.type, address: a.address }));
  if (!addresses.some((a) => a.type === NodeAddressType.Hostname)) {
    addresses.push(...current.filter((a) => a.type === NodeAddressType.Hostname));
  }

  const providedNodeIP = node.metadata?.annotations?.[Annotations.providedNodeIP];
  if (providedNodeIP !== undefined) {
    try {
      addresses = getNodeAddressesFromNodeIP(providedNodeIP, addresses);
    } catch (err) {
      return { kind: "skip", reason: "provided node IP does not fit the cloud's addresses", error: err as Error };
    }
  }

  if (!nodeAddressesChangeDetected(current, addresses)) return { kind: "skip", reason: "addresses unchanged" };
  return { kind: "update", addresses };
}

/** Deprecated (beta) label → its stable (GA) counterpart. Only this direction is ever copied. */
export const RECONCILED_LABELS: readonly (readonly [primary: string, secondary: string])[] = [
  [Labels.zoneDeprecated, Labels.zone],
  [Labels.regionDeprecated, Labels.region],
  [Labels.instanceTypeDeprecated, Labels.instanceType],
];

/**
 * Upstream `reconcileNodeLabels`: for each beta label present, the GA label it should equal when missing or
 * different. `undefined` when nothing needs setting.
 */
export function planLabelReconciliation(node: Node): Record<string, string> | undefined {
  const labels = node.metadata?.labels;
  if (!labels) return undefined;
  const toSet: Record<string, string> = {};
  for (const [primary, secondary] of RECONCILED_LABELS) {
    const value = labels[primary];
    if (value === undefined) continue;
    if (labels[secondary] !== value) toSet[secondary] = value;
  }
  return Object.keys(toSet).length > 0 ? toSet : undefined;
}
