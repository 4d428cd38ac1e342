/** k8s.io/api apps/v1 Deployment and autoscaling/v1 Scale messages (from their generated.proto). */

import { PodTemplateSpec } from "./core-v1.ts";
import { message } from "./field-types.ts";
import { LabelSelector, ObjectMeta } from "./meta-v1.ts";

const DeploymentStrategy = message("DeploymentStrategy", {
  1: ["type", "string"],
  2: [
    "rollingUpdate",
    message("RollingUpdateDeployment", { 1: ["maxUnavailable", "intOrString"], 2: ["maxSurge", "intOrString"] }),
  ],
});

const DeploymentSpec = message("DeploymentSpec", {
  1: ["replicas", "int?"],
  2: ["selector", LabelSelector],
  3: ["template", PodTemplateSpec],
  4: ["strategy", DeploymentStrategy],
  5: ["minReadySeconds", "int"],
  6: ["revisionHistoryLimit", "int?"],
  7: ["paused", "bool"],
  9: ["progressDeadlineSeconds", "int?"],
});

const DeploymentCondition = message("DeploymentCondition", {
  1: ["type", "string"],
  2: ["status", "string"],
  6: ["lastUpdateTime", "time"],
  7: ["lastTransitionTime", "time"],
  4: ["reason", "string"],
  5: ["message", "string"],
});

const DeploymentStatus = message("DeploymentStatus", {
  1: ["observedGeneration", "int"],
  2: ["replicas", "int"],
  3: ["updatedReplicas", "int"],
  7: ["readyReplicas", "int"],
  4: ["availableReplicas", "int"],
  5: ["unavailableReplicas", "int"],
  9: ["terminatingReplicas", "int?"],
  6: ["conditions", [DeploymentCondition]],
  8: ["collisionCount", "int?"],
});

export const Deployment = message("Deployment", {
  1: ["metadata", ObjectMeta],
  2: ["spec", DeploymentSpec],
  3: ["status", DeploymentStatus],
});

// k8s.io/api/autoscaling/v1

export const Scale = message("Scale", {
  1: ["metadata", ObjectMeta],
  2: ["spec", message("ScaleSpec", { 1: ["replicas", "int"] })],
  3: ["status", message("ScaleStatus", { 1: ["replicas", "int"], 2: ["selector", "string"] })],
});
