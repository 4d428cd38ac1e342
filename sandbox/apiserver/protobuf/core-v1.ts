/** k8s.io/api core/v1 messages (from its generated.proto) that kubectl's generators send. */
import { message } from "./field-types.ts";
import { Condition, ObjectMeta } from "./meta-v1.ts";

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

export const Service = message("Service", {
  1: ["metadata", ObjectMeta],
  2: ["spec", ServiceSpec],
  3: ["status", ServiceStatus],
});

export const ConfigMap = message("ConfigMap", {
  1: ["metadata", ObjectMeta],
  4: ["immutable", "bool?"],
  2: ["data", "{string}"],
  3: ["binaryData", "{bytes}"],
});

export const Secret = message("Secret", {
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

export const Namespace = message("Namespace", {
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

export const PodTemplateSpec = message("PodTemplateSpec", { 1: ["metadata", ObjectMeta], 2: ["spec", PodSpec] });
