/**
 * Errors of the cloud-node controller. Messages are upstream's exactly (controllers/node/node_controller.go); the
 * classes and `cause` chains let the runner and `classifyStuck` tell the cases apart without matching text.
 */

import { goQuote } from "../../platform/go-format.ts";
import type { InstanceMetadata } from "../../providers/cloud.ts";

/** `%v` of an error in upstream's messages. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * InstancesV2 answered without a provider ID for a node that has none. Upstream returns the metadata together
 * with this error; it is kept here for logs, and the node stays tainted and is retried.
 */
export class MissingProviderIDError extends Error {
  override readonly name = "MissingProviderIDError";
  readonly nodeName: string;
  readonly metadata: InstanceMetadata;
  constructor(nodeName: string, metadata: InstanceMetadata) {
    super(`cloud provider does not set node provider ID for node ${nodeName}`);
    this.nodeName = nodeName;
    this.metadata = metadata;
  }
}

/**
 * A lookup by provider ID failed, and so did the fallback by node name. `cause` is the by-name error, so a
 * cause-chain search finds it; both are kept.
 */
export class FallbackLookupError extends Error {
  override readonly name = "FallbackLookupError";
  readonly byProviderID: unknown;
  readonly byName: unknown;
  constructor(message: string, byProviderID: unknown, byName: unknown) {
    super(message, { cause: byName });
    this.byProviderID = byProviderID;
    this.byName = byName;
  }
}

/** `failed to get instance metadata for node <name>: <err>` (syncNode step 3); `cause` is the provider's error. */
export class InstanceMetadataError extends Error {
  override readonly name = "InstanceMetadataError";
  readonly nodeName: string;
  constructor(nodeName: string, cause: unknown) {
    super(`failed to get instance metadata for node ${nodeName}: ${errorText(cause)}`, { cause });
    this.nodeName = nodeName;
  }
}

/**
 * `failed to get node modifiers from cloud provider: provided node ip for node "<name>" is not valid: <err>`
 * (syncNode step 5.2); `cause` is a `NodeIPParseError` or `NodeIPNotInCloudError`.
 */
export class ProvidedNodeIPError extends Error {
  override readonly name = "ProvidedNodeIPError";
  readonly nodeName: string;
  readonly annotation: string;
  constructor(nodeName: string, annotation: string, cause: Error) {
    super(
      `failed to get node modifiers from cloud provider: provided node ip for node ${goQuote(nodeName)} is not valid: ${cause.message}`,
      { cause },
    );
    this.nodeName = nodeName;
    this.annotation = annotation;
  }
}

/**
 * Label reconciliation could not patch the node. Upstream's message ends in a dump of the whole Node object;
 * we name the node instead (the dump is Go-specific and unreadable in an event or log line).
 */
export class LabelUpdateError extends Error {
  override readonly name = "LabelUpdateError";
  constructor(nodeName: string, cause?: unknown) {
    super(`failed update labels for node ${nodeName}`, cause === undefined ? undefined : { cause });
  }
}

/**
 * The address patch right after initialisation failed; the node is retried after `retryAfterMs` (the runner
 * reads it), a back-off of its own so the addresses land within seconds once the API recovers.
 */
export class AddressUpdateError extends Error {
  override readonly name = "AddressUpdateError";
  readonly retryAfterMs: number;
  constructor(nodeName: string, retryAfterMs: number, cause: unknown) {
    super(`failed to update the addresses of node ${nodeName}, retrying: ${errorText(cause)}`, { cause });
    this.retryAfterMs = retryAfterMs;
  }
}
