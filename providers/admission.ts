/**
 * Admission webhooks a provider serves (upstream: app/webhooks.go `WebhookConfig`): the part of
 * `admission.k8s.io/v1` an `AdmissionReview` carries that a handler reads and answers, and the handler's contract.
 *
 * A handler is a pure function of the request: no cloud call, no clock, no I/O. The API server waits for it on
 * every matching write (10 s at most by default), and the manager answers on every replica, leader or not.
 */
import type { ObjectMeta } from "../kube/objects.ts";

/** `metadata.kind` of the object under review, e.g. `{ group: "", version: "v1", kind: "Service" }`. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** `AdmissionReview.request`, the fields handlers here read; the rest of the object is kept as sent. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly operation: AdmissionOperation;
  readonly name?: string;
  readonly namespace?: string;
  /** The object as it would be stored; absent for DELETE. */
  readonly object?: { readonly metadata?: ObjectMeta; readonly [field: string]: unknown } | null;
  /** The object before an UPDATE (and the deleted one for DELETE); absent for CREATE. */
  readonly oldObject?: { readonly metadata?: ObjectMeta; readonly [field: string]: unknown } | null;
  readonly dryRun?: boolean;
  readonly [field: string]: unknown;
}

/** `AdmissionReview.response` without `uid`, which the server fills in from the request. */
export interface AdmissionVerdict {
  readonly allowed: boolean;
  /** Why it was refused: `kubectl` prints `message` after `admission webhook "<name>" denied the request:`. */
  readonly status?: { readonly code: number; readonly reason?: string; readonly message: string };
  /** Shown by `kubectl` as `Warning: …`, allowed or not. */
  readonly warnings?: readonly string[];
  /** A mutating webhook's change to the object, as a JSON patch. */
  readonly patch?: readonly unknown[];
}

/**
 * One webhook, served at `/<name>` on `--webhook-secure-port`. `validating`: it only allows or refuses (a
 * `ValidatingWebhookConfiguration` points at it); `mutating`: it may also return a JSON patch.
 */
export interface AdmissionWebhook {
  readonly type: "validating" | "mutating";
  /** What the webhook checks, for `--help` and the logs; a sentence. */
  readonly description: string;
  /** The verdict; a throw is answered with HTTP 500, which the API server treats by the configuration's failurePolicy. */
  admit(request: AdmissionRequest): AdmissionVerdict;
}

export const allow = (warnings: readonly string[] = []): AdmissionVerdict =>
  warnings.length > 0 ? { allowed: true, warnings } : { allowed: true };

/** A refusal as the API server reports a webhook's: HTTP 400-style `Invalid`, with the message kubectl prints. */
export const deny = (message: string): AdmissionVerdict => ({
  allowed: false,
  status: { code: 400, reason: "Invalid", message },
});
