/**
 * Which protobuf field number is which JSON field, for the kinds kubectl sends as protobuf (`kubectl create
 * service|configmap|secret|namespace|deployment`, `kubectl auth can-i|whoami`). Written from the
 * `generated.proto` files of k8s.io/api and k8s.io/apimachinery (the API's published wire contract; field numbers
 * never change).
 *
 * Field types:
 * - `string`, `int`, `bool`, `bytes`: Go value fields. The Go encoder writes them even when zero; JSON's
 *   `omitempty` leaves zeros out, so the decoder does too. `bytes` becomes base64, as JSON writes `[]byte`.
 * - `string?`, `int?`, `bool?`: Go pointer fields, written only when set, so a zero is kept.
 * - `time` (meta/v1 Time: seconds, nanos), `intOrString`, `quantity`: the apimachinery value types.
 * - `[string]` repeated, `{string}` `{bytes}` `{quantity}` maps with string keys; a Message or `[Message]`.
 * - `unsupported`: a field kubectl's generators never set; a body that sets it is refused naming it.
 */

export type FieldType =
  | "string"
  | "int"
  | "bool"
  | "bytes"
  | "string?"
  | "int?"
  | "bool?"
  | "time"
  | "intOrString"
  | "quantity"
  | "[string]"
  | "{string}"
  | "{bytes}"
  | "{quantity}"
  | "unsupported"
  | Message
  | readonly [Message];

export interface Message {
  readonly name: string;
  readonly fields: Readonly<Record<number, readonly [string, FieldType]>>;
}

const message = (name: string, fields: Message["fields"]): Message => ({ name, fields });

// k8s.io/apimachinery/pkg/apis/meta/v1

const OwnerReference = message("OwnerReference", {
  5: ["apiVersion", "string"],
  1: ["kind", "string"],
  3: ["name", "string"],
  4: ["uid", "string"],
  6: ["controller", "bool?"],
  7: ["blockOwnerDeletion", "bool?"],
});

const ObjectMeta = message("ObjectMeta", {
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

const LabelSelectorRequirement = message("LabelSelectorRequirement", {
  1: ["key", "string"],
  2: ["operator", "string"],
  3: ["values", "[string]"],
});

const LabelSelector = message("LabelSelector", {
  1: ["matchLabels", "{string}"],
  2: ["matchExpressions", [LabelSelectorRequirement]],
});

const Condition = message("Condition", {
  1: ["type", "string"],
  2: ["status", "string"],
  3: ["observedGeneration", "int"],
  4: ["lastTransitionTime", "time"],
  5: ["reason", "string"],
  6: ["message", "string"],
});

// k8s.io/api/core/v1

const ClientIPConfig = message("ClientIPConfig", { 1: ["timeoutSeconds", "int?"] });
const SessionAffinityConfig = message("SessionAffinityConfig", { 1: ["clientIP", ClientIPConfig] });

const ServicePort = message("ServicePort", {
  1: ["name", "string"],
  2: ["protocol", "string"],
  6: ["appProtocol", "string?"],
  3: ["port", "int"],
  4: ["targetPort", "intOrString"],
  5: ["nodePort", "int"],
});

const ServiceSpec = message("ServiceSpec", {
  1: ["ports", [ServicePort]],
  2: ["selector", "{string}"],
  3: ["clusterIP", "string"],
  18: ["clusterIPs", "[string]"],
  4: ["type", "string"],
  5: ["externalIPs", "[string]"],
  7: ["sessionAffinity", "string"],
  8: ["loadBalancerIP", "string"],
  9: ["loadBalancerSourceRanges", "[string]"],
  10: ["externalName", "string"],
  11: ["externalTrafficPolicy", "string"],
  12: ["healthCheckNodePort", "int"],
  13: ["publishNotReadyAddresses", "bool"],
  14: ["sessionAffinityConfig", SessionAffinityConfig],
  19: ["ipFamilies", "[string]"],
  17: ["ipFamilyPolicy", "string?"],
  20: ["allocateLoadBalancerNodePorts", "bool?"],
  21: ["loadBalancerClass", "string?"],
  22: ["internalTrafficPolicy", "string?"],
  23: ["trafficDistribution", "string?"],
});

const PortStatus = message("PortStatus", {
  1: ["port", "int"],
  2: ["protocol", "string"],
  3: ["error", "string?"],
});

const LoadBalancerIngress = message("LoadBalancerIngress", {
  1: ["ip", "string"],
  2: ["hostname", "string"],
  3: ["ipMode", "string?"],
  4: ["ports", [PortStatus]],
});

const ServiceStatus = message("ServiceStatus", {
  1: ["loadBalancer", message("LoadBalancerStatus", { 1: ["ingress", [LoadBalancerIngress]] })],
  2: ["conditions", [Condition]],
});

const Service = message("Service", {
  1: ["metadata", ObjectMeta],
  2: ["spec", ServiceSpec],
  3: ["status", ServiceStatus],
});

const ConfigMap = message("ConfigMap", {
  1: ["metadata", ObjectMeta],
  4: ["immutable", "bool?"],
  2: ["data", "{string}"],
  3: ["binaryData", "{bytes}"],
});

const Secret = message("Secret", {
  1: ["metadata", ObjectMeta],
  5: ["immutable", "bool?"],
  2: ["data", "{bytes}"],
  4: ["stringData", "{string}"],
  3: ["type", "string"],
});

const NamespaceCondition = message("NamespaceCondition", {
  1: ["type", "string"],
  2: ["status", "string"],
  4: ["lastTransitionTime", "time"],
  5: ["reason", "string"],
  6: ["message", "string"],
});

const Namespace = message("Namespace", {
  1: ["metadata", ObjectMeta],
  2: ["spec", message("NamespaceSpec", { 1: ["finalizers", "[string]"] })],
  3: ["status", message("NamespaceStatus", { 1: ["phase", "string"], 2: ["conditions", [NamespaceCondition]] })],
});

const ContainerPort = message("ContainerPort", {
  1: ["name", "string"],
  2: ["hostPort", "int"],
  3: ["containerPort", "int"],
  4: ["protocol", "string"],
  5: ["hostIP", "string"],
});

const EnvVar = message("EnvVar", { 1: ["name", "string"], 2: ["value", "string"], 3: ["valueFrom", "unsupported"] });

const ResourceRequirements = message("ResourceRequirements", {
  1: ["limits", "{quantity}"],
  2: ["requests", "{quantity}"],
  3: ["claims", [message("ResourceClaim", { 1: ["name", "string"], 2: ["request", "string"] })]],
});

const Container = message("Container", {
  1: ["name", "string"],
  2: ["image", "string"],
  3: ["command", "[string]"],
  4: ["args", "[string]"],
  5: ["workingDir", "string"],
  6: ["ports", [ContainerPort]],
  19: ["envFrom", "unsupported"],
  7: ["env", [EnvVar]],
  8: ["resources", ResourceRequirements],
  23: ["resizePolicy", "unsupported"],
  24: ["restartPolicy", "string?"],
  25: ["restartPolicyRules", "unsupported"],
  9: ["volumeMounts", "unsupported"],
  21: ["volumeDevices", "unsupported"],
  10: ["livenessProbe", "unsupported"],
  11: ["readinessProbe", "unsupported"],
  22: ["startupProbe", "unsupported"],
  12: ["lifecycle", "unsupported"],
  13: ["terminationMessagePath", "string"],
  20: ["terminationMessagePolicy", "string"],
  14: ["imagePullPolicy", "string"],
  15: ["securityContext", "unsupported"],
  16: ["stdin", "bool"],
  17: ["stdinOnce", "bool"],
  18: ["tty", "bool"],
});

const Toleration = message("Toleration", {
  1: ["key", "string"],
  2: ["operator", "string"],
  3: ["value", "string"],
  4: ["effect", "string"],
  5: ["tolerationSeconds", "int?"],
});

const PodSpec = message("PodSpec", {
  1: ["volumes", "unsupported"],
  20: ["initContainers", [Container]],
  2: ["containers", [Container]],
  34: ["ephemeralContainers", "unsupported"],
  3: ["restartPolicy", "string"],
  4: ["terminationGracePeriodSeconds", "int?"],
  5: ["activeDeadlineSeconds", "int?"],
  6: ["dnsPolicy", "string"],
  7: ["nodeSelector", "{string}"],
  8: ["serviceAccountName", "string"],
  9: ["serviceAccount", "string"],
  21: ["automountServiceAccountToken", "bool?"],
  10: ["nodeName", "string"],
  11: ["hostNetwork", "bool"],
  12: ["hostPID", "bool"],
  13: ["hostIPC", "bool"],
  27: ["shareProcessNamespace", "bool?"],
  14: ["securityContext", "unsupported"],
  15: ["imagePullSecrets", [message("LocalObjectReference", { 1: ["name", "string"] })]],
  16: ["hostname", "string"],
  17: ["subdomain", "string"],
  18: ["affinity", "unsupported"],
  19: ["schedulerName", "string"],
  22: ["tolerations", [Toleration]],
  23: ["hostAliases", "unsupported"],
  24: ["priorityClassName", "string"],
  25: ["priority", "int?"],
  26: ["dnsConfig", "unsupported"],
  28: ["readinessGates", "unsupported"],
  29: ["runtimeClassName", "string?"],
  30: ["enableServiceLinks", "bool?"],
  31: ["preemptionPolicy", "string?"],
  32: ["overhead", "{quantity}"],
  33: ["topologySpreadConstraints", "unsupported"],
  35: ["setHostnameAsFQDN", "bool?"],
  36: ["os", "unsupported"],
  37: ["hostUsers", "bool?"],
  38: ["schedulingGates", "unsupported"],
  39: ["resourceClaims", "unsupported"],
  40: ["resources", ResourceRequirements],
  41: ["hostnameOverride", "string?"],
  43: ["schedulingGroup", "unsupported"],
  44: ["evictionResponders", "unsupported"],
});

const PodTemplateSpec = message("PodTemplateSpec", { 1: ["metadata", ObjectMeta], 2: ["spec", PodSpec] });

// k8s.io/api/apps/v1

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

const Deployment = message("Deployment", {
  1: ["metadata", ObjectMeta],
  2: ["spec", DeploymentSpec],
  3: ["status", DeploymentStatus],
});

// k8s.io/api/autoscaling/v1

const Scale = message("Scale", {
  1: ["metadata", ObjectMeta],
  2: ["spec", message("ScaleSpec", { 1: ["replicas", "int"] })],
  3: ["status", message("ScaleStatus", { 1: ["replicas", "int"], 2: ["selector", "string"] })],
});

// k8s.io/api/authorization/v1 and authentication/v1: `kubectl auth can-i` sends a SelfSubjectAccessReview.

const SelectorAttributes = (name: string, requirement: Message): Message =>
  message(name, { 1: ["rawSelector", "string"], 2: ["requirements", [requirement]] });

const ResourceAttributes = message("ResourceAttributes", {
  1: ["namespace", "string"],
  2: ["verb", "string"],
  3: ["group", "string"],
  4: ["version", "string"],
  5: ["resource", "string"],
  6: ["subresource", "string"],
  7: ["name", "string"],
  8: ["fieldSelector", SelectorAttributes("FieldSelectorAttributes", LabelSelectorRequirement)],
  9: ["labelSelector", SelectorAttributes("LabelSelectorAttributes", LabelSelectorRequirement)],
});

const NonResourceAttributes = message("NonResourceAttributes", { 1: ["path", "string"], 2: ["verb", "string"] });

const SubjectAccessReviewStatus = message("SubjectAccessReviewStatus", {
  1: ["allowed", "bool"],
  4: ["denied", "bool"],
  2: ["reason", "string"],
  3: ["evaluationError", "string"],
});

const SelfSubjectAccessReview = message("SelfSubjectAccessReview", {
  1: ["metadata", ObjectMeta],
  2: [
    "spec",
    message("SelfSubjectAccessReviewSpec", {
      1: ["resourceAttributes", ResourceAttributes],
      2: ["nonResourceAttributes", NonResourceAttributes],
    }),
  ],
  3: ["status", SubjectAccessReviewStatus],
});

const SubjectAccessReview = message("SubjectAccessReview", {
  1: ["metadata", ObjectMeta],
  2: [
    "spec",
    message("SubjectAccessReviewSpec", {
      1: ["resourceAttributes", ResourceAttributes],
      2: ["nonResourceAttributes", NonResourceAttributes],
      3: ["user", "string"],
      4: ["groups", "[string]"],
      5: ["extra", "unsupported"],
      6: ["uid", "string"],
    }),
  ],
  3: ["status", SubjectAccessReviewStatus],
});

const UserInfo = message("UserInfo", {
  1: ["username", "string"],
  2: ["uid", "string"],
  3: ["groups", "[string]"],
  4: ["extra", "unsupported"],
});

const TokenReview = message("TokenReview", {
  1: ["metadata", ObjectMeta],
  2: ["spec", message("TokenReviewSpec", { 1: ["token", "string"], 2: ["audiences", "[string]"] })],
  3: [
    "status",
    message("TokenReviewStatus", {
      1: ["authenticated", "bool"],
      2: ["user", UserInfo],
      4: ["audiences", "[string]"],
      3: ["error", "string"],
    }),
  ],
});

const SelfSubjectReview = message("SelfSubjectReview", {
  1: ["metadata", ObjectMeta],
  2: ["status", message("SelfSubjectReviewStatus", { 1: ["userInfo", UserInfo] })],
});

const DeleteOptions = message("DeleteOptions", {
  1: ["gracePeriodSeconds", "int?"],
  2: ["preconditions", message("Preconditions", { 1: ["uid", "string?"], 2: ["resourceVersion", "string?"] })],
  3: ["orphanDependents", "bool?"],
  4: ["propagationPolicy", "string?"],
  5: ["dryRun", "[string]"],
  6: ["ignoreStoreReadErrorWithClusterBreakingPotential", "bool?"],
});

/** The top-level messages by `apiVersion/kind`, as the `runtime.Unknown` envelope names them. */
export const MESSAGES: ReadonlyMap<string, Message> = new Map([
  ["v1/Service", Service],
  ["v1/ConfigMap", ConfigMap],
  ["v1/Secret", Secret],
  ["v1/Namespace", Namespace],
  ["apps/v1/Deployment", Deployment],
  ["autoscaling/v1/Scale", Scale],
  ["authorization.k8s.io/v1/SelfSubjectAccessReview", SelfSubjectAccessReview],
  ["authorization.k8s.io/v1/SubjectAccessReview", SubjectAccessReview],
  ["authentication.k8s.io/v1/TokenReview", TokenReview],
  ["authentication.k8s.io/v1/SelfSubjectReview", SelfSubjectReview],
  ["v1/DeleteOptions", DeleteOptions],
  ["meta.k8s.io/v1/DeleteOptions", DeleteOptions],
]);
