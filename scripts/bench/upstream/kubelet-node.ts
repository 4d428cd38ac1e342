/**
 * The Node the side-by-side benchmark registers, shaped as a real kubelet (1.20, containerd) registers and reports
 * one, so that both managers' caches hold what they would hold in a cluster: the sandbox kubelet's registration
 * (`sandbox/kubelets.ts`: labels, the uninitialized taint, Ready, nodeInfo) plus what it leaves out — capacity and
 * allocatable, the other four conditions (MemoryPressure, DiskPressure, PIDPressure and the CNI's
 * NetworkUnavailable), daemonEndpoints, an InternalIP, and 30 `status.images` with their names (digest and tag) and
 * sizeBytes, the pause, kube-proxy and CNI images every node has plus the workload images a busy node pulls.
 * The same objects for both managers; a serialised Node is about 7.5 KiB (a real one is 4–12 KiB).
 */
import type { Node } from "../../../kube/objects.ts";
import { registrationOf } from "../../../sandbox/kubelets.ts";

/** Image names and sizes as kubelets report them; 30 entries, each with a digest name and a tag name. */
const IMAGES: ReadonlyArray<readonly [string, string, number]> = [
  ["registry.k8s.io/pause", "3.2", 299_513],
  ["registry.k8s.io/kube-proxy", "v1.20.2", 49_544_318],
  ["docker.io/calico/node", "v3.17.1", 58_436_129],
  ["docker.io/calico/cni", "v3.17.1", 45_871_520],
  ["docker.io/calico/pod2daemon-flexvol", "v3.17.1", 9_153_614],
  ["registry.k8s.io/coredns", "1.7.0", 13_982_350],
  ["registry.k8s.io/metrics-server/metrics-server", "v0.4.1", 24_171_424],
  ["quay.io/prometheus/node-exporter", "v1.0.1", 11_328_406],
  ["quay.io/prometheus/prometheus", "v2.24.0", 69_852_617],
  ["quay.io/prometheus-operator/prometheus-config-reloader", "v0.45.0", 5_214_620],
  ["docker.io/grafana/grafana", "7.3.7", 61_327_413],
  ["docker.io/library/nginx", "1.19.6", 53_591_225],
  ["docker.io/library/nginx", "1.19.6-alpine", 9_304_251],
  ["docker.io/library/redis", "6.0.10", 38_136_719],
  ["docker.io/library/postgres", "13.1", 117_372_208],
  ["docker.io/library/busybox", "1.32.1", 766_607],
  ["docker.io/library/alpine", "3.13.0", 2_811_478],
  ["docker.io/library/python", "3.9.1-slim", 43_294_027],
  ["docker.io/library/node", "14.15.4-alpine", 39_082_918],
  ["docker.io/library/golang", "1.15.7", 299_412_516],
  ["quay.io/jetstack/cert-manager-controller", "v1.1.0", 18_977_125],
  ["quay.io/jetstack/cert-manager-webhook", "v1.1.0", 13_885_260],
  ["quay.io/jetstack/cert-manager-cainjector", "v1.1.0", 12_773_107],
  ["registry.k8s.io/ingress-nginx/controller", "v0.43.0", 107_451_722],
  ["docker.io/fluent/fluent-bit", "1.6.10", 25_872_331],
  ["docker.io/bitnami/kube-state-metrics", "1.9.7", 13_522_914],
  ["ghcr.io/example/shop-frontend", "2021.01.18-3f9a2c1", 87_236_015],
  ["ghcr.io/example/shop-backend", "2021.01.18-3f9a2c1", 142_772_934],
  ["ghcr.io/example/shop-worker", "2021.01.18-3f9a2c1", 141_803_561],
  ["ghcr.io/example/batch-report", "2021.01.11-9e0d4b7", 201_337_092],
];

/** A stable fake digest per image (the same on every node, as in a cluster), 64 hex digits. */
const digest = (name: string, tag: string): string => {
  const h = new Bun.CryptoHasher("sha256");
  h.update(`${name}:${tag}`);
  return h.digest("hex");
};

const images = IMAGES.map(([name, tag, sizeBytes]) => ({
  names: [`${name}@sha256:${digest(name, tag)}`, `${name}:${tag}`],
  sizeBytes,
}));

/** The i-th node's registration as a 1.20 kubelet with containerd posts it, tainted uninitialized. */
export function kubeletNode(machine: { id: string; name: string }, i: number, at: Date): Node {
  const base = registrationOf(machine, at);
  const time = at.toISOString();
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: "False",
    reason,
    message,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  const resources = (memoryKi: number, storageKi: number) => ({
    cpu: "4",
    "ephemeral-storage": `${storageKi}Ki`,
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    memory: `${memoryKi}Ki`,
    pods: "110",
  });
  return {
    ...base,
    metadata: {
      ...base.metadata,
      annotations: {
        "kubeadm.alpha.kubernetes.io/cri-socket": "/run/containerd/containerd.sock",
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    status: {
      ...base.status,
      capacity: resources(8_148_216, 81_106_868),
      allocatable: resources(8_045_816, 74_748_089),
      addresses: [
        { type: "InternalIP", address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: "Hostname", address: machine.name },
      ],
      conditions: [
        condition("NetworkUnavailable", "CalicoIsUp", "Calico is running on this node"),
        condition("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        condition("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ...(base.status?.conditions ?? []),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        ...(base.status?.nodeInfo as NonNullable<NonNullable<Node["status"]>["nodeInfo"]>),
        bootID: `${machine.id}-boot`,
        containerRuntimeVersion: "containerd://1.4.3",
        kernelVersion: "5.10.0-21-amd64",
        kubeProxyVersion: "v1.20.2",
        kubeletVersion: "v1.20.2",
        osImage: "Debian GNU/Linux 11 (bullseye)",
      },
      images,
    },
  };
}
