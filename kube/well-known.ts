/** Label, annotation, taint, finalizer and condition strings the controllers read and write. */

export const Taints = {
  /** Put on new nodes by kubelet with `--cloud-provider=external`; matched by key only. */
  uninitialized: "node.cloudprovider.kubernetes.io/uninitialized",
  /** Added (effect NoSchedule, no value) by the lifecycle controller while the instance is shut down. */
  shutdown: "node.cloudprovider.kubernetes.io/shutdown",
  /** Nodes the cluster autoscaler is removing; excluded from load balancers (key only). */
  toBeDeletedByClusterAutoscaler: "ToBeDeletedByClusterAutoscaler",
} as const;

export const Labels = {
  zone: "topology.kubernetes.io/zone",
  region: "topology.kubernetes.io/region",
  instanceType: "node.kubernetes.io/instance-type",
  zoneDeprecated: "failure-domain.beta.kubernetes.io/zone",
  regionDeprecated: "failure-domain.beta.kubernetes.io/region",
  instanceTypeDeprecated: "beta.kubernetes.io/instance-type",
  excludeFromExternalLoadBalancers: "node.kubernetes.io/exclude-from-external-load-balancers",
} as const;

export const Annotations = {
  /** Set by kubelet to its `--node-ip`: one IP or a comma-separated dual-stack pair. */
  providedNodeIP: "alpha.kubernetes.io/provided-node-ip",
  loadBalancerSourceRanges: "service.beta.kubernetes.io/load-balancer-source-ranges",
} as const;

export const Finalizers = {
  loadBalancerCleanup: "service.kubernetes.io/load-balancer-cleanup",
} as const;

export const Conditions = {
  ready: "Ready",
  networkUnavailable: "NetworkUnavailable",
} as const;
