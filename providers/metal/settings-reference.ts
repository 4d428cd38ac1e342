/**
 * The metal provider's cloud-config reference, generated into docs/providers/metal.md. A test keeps it equal to the
 * keys config.ts reads; `inventory.machines[]` stands for the machine fields, described below the table.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

export const metalSettingDocs: readonly SettingDoc[] = [
  {
    names: ["inventory.machines[]"],
    default: "`[]`",
    meaning: "machines: `name` (the Node name, required) and the machine fields below",
  },
  {
    names: ["inventory.configMap"],
    default: "not watched",
    meaning: "`{namespace, name}` (defaults `kube-system`, `metal-inventory`): also read machines from this ConfigMap",
  },
  {
    names: ["inventory.requireInventoryEntry"],
    default: "`false`",
    meaning: "`true`: a node without an entry stays uninitialised (and tainted)",
  },
  {
    names: ["inventory.deleteNodesMissingFromInventory"],
    default: "`false`",
    meaning: "`true`: a **NotReady** node without an entry is deleted",
  },
  {
    names: ["shutdownProbe.port"],
    default: "`22`",
    meaning: "with `shutdownProbe` present: the TCP port a running machine answers on (1–65535)",
  },
  {
    names: ["shutdownProbe.timeoutMs"],
    default: "`2000`",
    meaning: "how long to wait for the answer, in milliseconds (1–60000)",
  },
  {
    names: ["loadBalancer"],
    default: "absent",
    meaning: "present ⇒ the provider offers load balancers (the service controller runs)",
  },
  {
    names: ["loadBalancer.global"],
    default: "none",
    meaning: "`{addresses, allowShare, interface}`: the pool for every namespace without its own",
  },
  {
    names: ["loadBalancer.namespaces"],
    default: "none",
    meaning:
      "`<namespace>: {addresses, allowShare, interface}`: the same, for one namespace; `allowShare` alone (no `addresses`) sets sharing for a namespace that uses the global pool",
  },
  {
    names: ["loadBalancer.searchOrder"],
    default: "`ascending`",
    meaning: "`descending` allocates from the top of each pool",
  },
  {
    names: ["loadBalancer.avoidBuggyIPs"],
    default: "`false`",
    meaning: "skip IPv4 addresses ending in `.0` or `.255` when allocating automatically",
  },
  {
    names: ["loadBalancer.kubeVipConfigMap"],
    default: "not read",
    meaning: "`{namespace, name}` (defaults `kube-system`, `kubevip`): also read pools in kube-vip's format",
  },
  {
    names: ["loadBalancer.kubeVipAnnotation"],
    default: "`true`",
    meaning: "also write `kube-vip.io/loadbalancerIPs` (kube-vip announces only what it finds there)",
  },
  {
    names: ["loadBalancer.classes"],
    default: "none",
    meaning:
      "`spec.loadBalancerClass` values this provider serves, such as `[metal.example.com/pool]` (see [Beside MetalLB or Cilium](#beside-metallb-cilium-or-another-manager-loadbalancerclass))",
  },
  {
    names: ["loadBalancer.classless"],
    default: "`true`",
    meaning: "serve Services that set no `loadBalancerClass`; `false` leaves them to another implementation",
  },
];
