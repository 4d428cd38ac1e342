/** k8s.io/apimachinery meta/v1 messages (from its generated.proto), shared by every kind's table. */
import { message } from "./field-types.ts";

export const OwnerReference = message("OwnerReference", {
  5: ["apiVersion", "string"],
  1: ["kind", "string"],
  3: ["name", "string"],
  4: ["uid", "string"],
  6: ["controller", "bool?"],
  7: ["blockOwnerDeletion", "bool?"],
});

export const ObjectMeta = message("ObjectMeta", {
  1: ["name", "string"],
  2: ["generateName", "string"],
  3: ["namespace", "string"],
  4: ["selfLink", "string"],
  5: ["uid", "string"],
  6: ["resourceVersion", "string"],
  7: ["generation", "int"],
  8: ["creationTimestamp", "time"],
  9: ["deletionTimestamp", "time"],
  10: ["deletionGracePeriodSeconds", "int?"],
  11: ["labels", "{string}"],
  12: ["annotations", "{string}"],
  13: ["ownerReferences", [OwnerReference]],
  14: ["finalizers", "[string]"],
  17: ["managedFields", "unsupported"],
});

export const LabelSelectorRequirement = message("LabelSelectorRequirement", {
  1: ["key", "string"],
  2: ["operator", "string"],
  3: ["values", "[string]"],
});

export const LabelSelector = message("LabelSelector", {
  1: ["matchLabels", "{string}"],
  2: ["matchExpressions", [LabelSelectorRequirement]],
});

export const Condition = message("Condition", {
  1: ["type", "string"],
  2: ["status", "string"],
  3: ["observedGeneration", "int"],
  4: ["lastTransitionTime", "time"],
  5: ["reason", "string"],
  6: ["message", "string"],
});

export const DeleteOptions = message("DeleteOptions", {
  1: ["gracePeriodSeconds", "int?"],
  2: ["preconditions", message("Preconditions", { 1: ["uid", "string?"], 2: ["resourceVersion", "string?"] })],
  3: ["orphanDependents", "bool?"],
  4: ["propagationPolicy", "string?"],
  5: ["dryRun", "[string]"],
  6: ["ignoreStoreReadErrorWithClusterBreakingPotential", "bool?"],
});
