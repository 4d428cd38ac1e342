/**
 * Differences between the API emulator and kube-apiserver 1.20.2 that the conformance check accepts, each with its
 * reason; docs/sandbox.md ("Differences from a real API server") explains them for readers. Globs: see compare.ts.
 *
 * `version`: the emulator follows Kubernetes 1.32, the real server here is 1.20. `emulator`: the emulator
 * simplifies; nothing in this project reads what differs (the test/real tier runs the controllers on the real
 * server to show it). `wording`: same status, reason and fields, another message text.
 */
import type { AcceptedDifference } from "./compare.ts";

type Kind = "version" | "emulator" | "wording";
const accept = (
  kind: Kind,
  step: string,
  path: string,
  reason: string,
  values: { emulator?: unknown; real?: unknown } = {},
): AcceptedDifference => ({ step, path, ...values, reason: `${kind}: ${reason}` });
const ABSENT = "(absent)";
const NOT_READY = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };

export const ACCEPTED: readonly AcceptedDifference[] = [
  // Kubernetes 1.20 versus 1.32.
  ...["ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy", "allocateLoadBalancerNodePorts"].map((field) =>
    accept(
      "version",
      "*",
      `body**.spec.${field}`,
      `1.20 leaves spec.${field} unset (its feature was off by default there, or came later)`,
    ),
  ),
  accept(
    "version",
    "Service: * / *delete: held by the finalizer",
    "body**",
    "1.20's Service registry answers DELETE with a Status; 1.32's with the object, deletion timestamp set",
  ),
  accept(
    "version",
    "validation: * / *taint effect",
    "body.**",
    "1.20 names the field metadata.taints (a bug fixed later) and lists supported values unsorted",
  ),
  accept(
    "version",
    "Service: * / *add a finalizer while deleting",
    "body.**",
    "1.20 reports the forbidden finalizer twice, once in Go syntax",
  ),
  accept(
    "version",
    "ConfigMap: merge patch* / *malformed body",
    "**",
    "1.20 answers a malformed merge patch with 500 InternalError 'Invalid JSON Patch'; later versions with 400 BadRequest, as the emulator does (in other words)",
  ),
  // Simplifications of the emulator.
  accept(
    "emulator",
    "*",
    "body**.metadata.generation",
    "the emulator sets metadata.generation on every kind; the real server only on kinds whose strategy does (not ConfigMaps, Nodes or Services)",
  ),
  accept(
    "emulator",
    "*",
    "body**.metadata.managedFields",
    "the emulator keeps no managedFields (server-side apply bookkeeping)",
  ),
  accept("emulator", "*", "body.items.*.kind", "real list answers leave out each item's kind; the emulator repeats it"),
  accept(
    "emulator",
    "*",
    "body.items.*.apiVersion",
    "real list answers leave out each item's apiVersion; the emulator repeats it",
  ),
  accept(
    "emulator",
    "*",
    "body**.data",
    "the emulator keeps an empty data map; the real server drops it (Go's omitempty)",
    { emulator: {}, real: ABSENT },
  ),
  accept(
    "emulator",
    "*",
    "body**.status.nodeInfo",
    "the real server always writes NodeStatus.nodeInfo (a Go struct, empty strings); the emulator only what was given",
  ),
  accept(
    "emulator",
    "*",
    "body**.status.daemonEndpoints",
    "the real server always writes NodeStatus.daemonEndpoints (a Go struct, port 0)",
  ),
  accept(
    "emulator",
    "*",
    "body**.status.conditions.*.last*Time",
    "the real server writes unset condition times as null; the emulator leaves them out",
    { emulator: ABSENT, real: null },
  ),
  accept(
    "emulator",
    "*",
    "body**.spec.taints.1",
    "the real server's TaintNodesByCondition admission adds node.kubernetes.io/not-ready:NoSchedule to new Nodes; the emulator does not (our controllers leave other taints alone)",
    { emulator: ABSENT, real: NOT_READY },
  ),
  accept(
    "emulator",
    "request errors: * / *PUT on a collection: 405",
    "**",
    "the emulator answers PUT on a collection with 400 (no name) instead of 405 MethodNotAllowed; no client of ours sends it",
  ),
  accept(
    "emulator",
    "ConfigMap: merge patch* / *change the name",
    "**",
    "the real server refuses a patch that renames the object (400); the emulator ignores the new name; no client of ours sends one",
  ),
  accept(
    "emulator",
    "validation: * / *invalid data key",
    "body.**",
    "the real server names the field data[<key>]; the emulator data",
  ),
  // The same answer in other words.
  accept(
    "wording",
    "ConfigMap: merge patch* / *json: *",
    "body.message",
    "JSON patch errors: the real server says 'the server rejected our request due to an error in our request' or quotes its Go decoder",
  ),
  accept(
    "wording",
    "ConfigMap: merge patch* / *json: *",
    "body.details.causes",
    "the emulator adds a cause with the JSON patch error",
  ),
  accept(
    "wording",
    "request errors: * / *",
    "body.message",
    "request-decoding and media-type messages are worded by different decoders",
  ),
  accept("wording", "request errors: * / *415", "body.details", "the real server sends empty details on 415"),
  accept(
    "wording",
    "label and field selectors / *: 400",
    "body.message",
    "selector parse errors are worded differently",
  ),
  accept(
    "wording",
    "410 Gone after compaction / *",
    "body**.message",
    "the emulator words 410 as the real watch cache does ('too old resource version'); an uncached resource (etcd) says 'The resourceVersion for the provided … is too old.'",
  ),
];
