/**
 * "Why is this node still uninitialised?" — beyond upstream, which only logs. When the cloud cannot match a
 * node (no instance by that name, no provider ID, a provided node IP the cloud does not have, or no metadata at
 * all), the runner records a Warning event on the Node that names the cause and what to do. Transient failures
 * (timeouts, rate limits, 5xx) get no event: back-off handles them and the log says enough.
 */
import type { Node } from "../../kube/objects.ts";
import { Annotations } from "../../kube/well-known.ts";
import { goQuote } from "../../platform/go-format.ts";
import { findInCauseChain, InstanceNotFoundError } from "../../providers/errors.ts";
import { errorText, MissingProviderIDError } from "./errors.ts";
import { NodeIPNotInCloudError, NodeIPParseError } from "./node-ip.ts";

export interface NodeEventSpec {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
}

/** Event reasons of the stuck-node warnings, for `kubectl get events --field-selector reason=…`. */
export const StuckReasons = {
  instanceNotFound: "CloudInstanceNotFound",
  providerIDMissing: "CloudProviderIDMissing",
  providedNodeIPNotInCloud: "ProvidedNodeIPNotInCloud",
  providedNodeIPInvalid: "ProvidedNodeIPInvalid",
  metadataUnavailable: "CloudInstanceMetadataUnavailable",
} as const;

/** What kept the node tainted: a failed sync's error, or the cloud's `null` metadata. */
export type StuckCause = { readonly error: unknown } | { readonly nullMetadata: true };

/**
 * The Warning event for a node that stays uninitialised because the cloud cannot match it, or `undefined`
 * when the failure is not one of those (then the runner only logs and backs off).
 */
export function classifyStuck(node: Node, cause: StuckCause): NodeEventSpec | undefined {
  const name = node.metadata?.name ?? "";
  const prefix = `Node ${name} stays uninitialized:`;
  const warning = (reason: string, message: string): NodeEventSpec => ({
    type: "Warning",
    reason,
    message: `${prefix} ${message}`,
  });

  if ("nullMetadata" in cause) {
    return warning(
      StuckReasons.metadataUnavailable,
      "the cloud provider has no instance metadata for it yet. It is checked again on the node's next update; " +
        "if this persists, make sure the node name or spec.providerID identifies an instance in the cloud.",
    );
  }

  const err = cause.error;
  const notInCloud = findInCauseChain(err, NodeIPNotInCloudError);
  if (notInCloud) {
    const annotation = node.metadata?.annotations?.[Annotations.providedNodeIP] ?? "";
    const cloud = notInCloud.cloudAddresses.map((a) => `${a.type} ${a.address}`).join(", ") || "none";
    return warning(
      StuckReasons.providedNodeIPNotInCloud,
      `kubelet's --node-ip ${notInCloud.ip} (annotation ${Annotations.providedNodeIP}=${goQuote(annotation)}) ` +
        `is not an address of its cloud instance (cloud addresses: ${cloud}). ` +
        "Restart kubelet with --node-ip set to one of the cloud addresses, or without --node-ip.",
    );
  }
  const invalid = findInCauseChain(err, NodeIPParseError);
  if (invalid) {
    return warning(
      StuckReasons.providedNodeIPInvalid,
      `annotation ${Annotations.providedNodeIP}=${goQuote(invalid.value)} is not valid: ${invalid.detail}. ` +
        "Restart kubelet with --node-ip set to one IP or to a dual-stack pair (IPv4,IPv6).",
    );
  }
  if (findInCauseChain(err, MissingProviderIDError)) {
    return warning(
      StuckReasons.providerIDMissing,
      "the cloud provider returned no provider ID for it and spec.providerID is empty. " +
        "Start kubelet with --provider-id, or fix the provider so its instance metadata carries the provider ID.",
    );
  }
  if (findInCauseChain(err, InstanceNotFoundError)) {
    return warning(
      StuckReasons.instanceNotFound,
      `the cloud provider has no instance for it (${errorText(err)}). ` +
        "Make the node name (or kubelet's --provider-id) match an instance in the cloud; " +
        "if the machine is gone, delete the Node.",
    );
  }
  return undefined;
}
