/**
 * A Node as a real kubelet (1.20–1.30, containerd) reports it: managed fields, ~30 images with digests, capacity,
 * allocatable, five conditions with messages, node info, daemon endpoints, attached volumes. For the trim tests,
 * the informer-cache bench (scripts/bench/informer-trim.ts) and the end-to-end check that nothing is lost on write.
 */
import { type KubeClient, Resources } from "../client-types.ts";
import type { Node } from "../objects.ts";

const IMAGES = [
  "docker.io/calico/node:v3.26.1",
  "docker.io/calico/cni:v3.26.1",
  "docker.io/calico/kube-controllers:v3.26.1",
  "registry.k8s.io/kube-proxy:v1.28.4",
  "registry.k8s.io/coredns/coredns:v1.10.1",
  "registry.k8s.io/pause:3.9",
  "registry.k8s.io/ingress-nginx/controller:v1.9.4",
  "registry.k8s.io/ingress-nginx/kube-webhook-certgen:v20231011-8b53cabe0",
  "quay.io/prometheus/node-exporter:v1.7.0",
  "quay.io/prometheus/prometheus:v2.48.0",
  "quay.io/prometheus-operator/prometheus-config-reloader:v0.70.0",
  "docker.io/grafana/grafana:10.2.2",
  "docker.io/grafana/loki:2.9.2",
  "docker.io/grafana/promtail:2.9.2",
  "docker.io/library/nginx:1.25.3",
  "docker.io/library/redis:7.2.3",
  "docker.io/library/postgres:16.1",
  "docker.io/bitnami/kubectl:1.28.4",
  "quay.io/jetstack/cert-manager-controller:v1.13.2",
  "quay.io/jetstack/cert-manager-webhook:v1.13.2",
  "quay.io/jetstack/cert-manager-cainjector:v1.13.2",
  "registry.k8s.io/metrics-server/metrics-server:v0.6.4",
  "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.9.1",
  "registry.k8s.io/sig-storage/livenessprobe:v2.11.0",
  "registry.k8s.io/sig-storage/csi-provisioner:v3.6.2",
  "registry.k8s.io/sig-storage/csi-attacher:v4.4.2",
  "docker.io/hetznercloud/hcloud-csi-driver:v2.5.1",
  "ghcr.io/fluxcd/source-controller:v1.2.2",
  "ghcr.io/fluxcd/kustomize-controller:v1.2.0",
  "ghcr.io/fluxcd/helm-controller:v0.37.0",
];

/** A hex string of `length` derived from `seed`, so every image and node gets its own digest bytes. */
const hex = (seed: string, length: number): string => {
  let h = 2166136261;
  let out = "";
  while (out.length < length) {
    for (const c of seed + out.length) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
};

const time = "2024-05-01T10:00:00Z";

const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  lastHeartbeatTime: time,
  lastTransitionTime: time,
  reason,
  message,
});

/** A kubelet-shaped Node named `name` (`index` varies its addresses), still carrying the uninitialized taint. */
export function kubeletNode(name: string, index = 0): Node {
  const ip = `10.0.${Math.floor(index / 250)}.${(index % 250) + 2}`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      uid: `${hex(`${name}uid`, 8)}-${hex(`${name}u2`, 4)}-4${hex(`${name}u3`, 3)}-a${hex(`${name}u4`, 3)}-${hex(`${name}u5`, 12)}`,
      resourceVersion: String(1000 + index),
      creationTimestamp: time,
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/exclude-from-external-load-balancers": "",
      },
      annotations: {
        "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        "projectcalico.org/IPv4Address": `${ip}/16`,
        "projectcalico.org/IPv4VXLANTunnelAddr": `192.168.${index % 250}.0`,
        "csi.volume.kubernetes.io/nodeid": `{"csi.hetzner.cloud":"${10_000_000 + index}"}`,
      },
      managedFields: [
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time,
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": {
              "f:annotations": {
                ".": {},
                "f:node.alpha.kubernetes.io/ttl": {},
                "f:volumes.kubernetes.io/controller-managed-attach-detach": {},
              },
              "f:labels": {
                ".": {},
                "f:beta.kubernetes.io/arch": {},
                "f:beta.kubernetes.io/os": {},
                "f:kubernetes.io/arch": {},
                "f:kubernetes.io/hostname": {},
                "f:kubernetes.io/os": {},
              },
            },
            "f:status": {
              "f:conditions": Object.fromEntries(
                ["DiskPressure", "MemoryPressure", "PIDPressure", "Ready"].map((t) => [
                  `k:{"type":"${t}"}`,
                  {
                    "f:lastHeartbeatTime": {},
                    "f:lastTransitionTime": {},
                    "f:message": {},
                    "f:reason": {},
                    "f:status": {},
                  },
                ]),
              ),
              "f:images": {},
              "f:nodeInfo": { "f:bootID": {}, "f:containerRuntimeVersion": {}, "f:kernelVersion": {} },
            },
          },
        },
        {
          manager: "calico-node",
          operation: "Update",
          apiVersion: "v1",
          time,
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:status": { "f:conditions": { 'k:{"type":"NetworkUnavailable"}': { ".": {}, "f:status": {} } } },
          },
          subresource: "status",
        },
      ],
    },
    spec: {
      podCIDR: `10.244.${index % 250}.0/24`,
      podCIDRs: [`10.244.${index % 250}.0/24`],
      taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }],
    },
    status: {
      capacity: {
        cpu: "4",
        "ephemeral-storage": "157197504Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        memory: "7947152Ki",
        pods: "110",
      },
      allocatable: {
        cpu: "4",
        "ephemeral-storage": "144871788231",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        memory: "7844752Ki",
        pods: "110",
      },
      conditions: [
        condition("NetworkUnavailable", "False", "CalicoIsUp", "Calico is running on this node"),
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status. AppArmor enabled"),
      ],
      addresses: [
        { type: "InternalIP", address: ip },
        { type: "Hostname", address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: hex(`${name}machine`, 32),
        systemUUID: `${hex(`${name}sys`, 8)}-${hex(`${name}s2`, 4)}-${hex(`${name}s3`, 4)}-${hex(`${name}s4`, 4)}-${hex(`${name}s5`, 12)}`,
        bootID: `${hex(`${name}boot`, 8)}-${hex(`${name}b2`, 4)}-${hex(`${name}b3`, 4)}-${hex(`${name}b4`, 4)}-${hex(`${name}b5`, 12)}`,
        kernelVersion: "6.1.0-13-amd64",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        containerRuntimeVersion: "containerd://1.6.24",
        kubeletVersion: "v1.28.4",
        kubeProxyVersion: "v1.28.4",
        operatingSystem: "linux",
        architecture: "amd64",
      },
      images: IMAGES.map((image, i) => ({
        names: [`${image.split(":")[0]}@sha256:${hex(image, 64)}`, image],
        sizeBytes: 5_000_000 + ((i * 7_919_113) % 300_000_000),
      })),
      volumesInUse: [`kubernetes.io/csi/csi.hetzner.cloud^${20_000_000 + index}`],
      volumesAttached: [{ name: `kubernetes.io/csi/csi.hetzner.cloud^${20_000_000 + index}`, devicePath: "" }],
    },
  } as Node;
}

/** `kubeletNode` as a kubelet sends it to be created: without what the server sets (uid, resourceVersion, …). */
export function kubeletRegistration(name: string, index = 0): Node {
  const node = kubeletNode(name, index);
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = node.metadata ?? {};
  return { ...node, metadata };
}

/** Creates a kubelet-shaped Node for each name (the i-th with index i), 50 at a time, as kubelets joining at once. */
export async function registerKubeletNodes(client: KubeClient, names: readonly string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names.slice(i, i + 50).map((name, j) => client.create(Resources.nodes, kubeletRegistration(name, i + j))),
    );
  }
}
