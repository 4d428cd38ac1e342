/**
 * Node fixture builders for the node controllers' tests: `node("n1", ready(false), uninitialized)`, and the
 * fake clouds they ask. Test support only; nothing in the product imports it.
 */
import type { Node, NodeAddress, Taint } from "../../kube/objects.ts";
import { Annotations, Taints } from "../../kube/well-known.ts";
import type { CallContext } from "../../providers/cloud.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";

export type NodeTweak = (node: Node) => void;

export function node(name: string, ...tweaks: NodeTweak[]): Node {
  const n: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-${name}`, creationTimestamp: "2024-01-01T00:00:00Z" },
    spec: {},
    status: {},
  };
  for (const tweak of tweaks) tweak(n);
  return n;
}

export function taint(key: string, effect = "NoSchedule", value?: string): NodeTweak {
  return (n) => {
    const t: Taint = value === undefined ? { key, effect } : { key, effect, value };
    n.spec = { ...n.spec, taints: [...(n.spec?.taints ?? []), t] };
  };
}

/** The taint kubelet puts on new nodes with `--cloud-provider=external`. */
export const uninitialized: NodeTweak = taint(Taints.uninitialized, "NoSchedule", "true");

export function providerID(id: string): NodeTweak {
  return (n) => {
    n.spec = { ...n.spec, providerID: id };
  };
}

export function labels(values: Record<string, string>): NodeTweak {
  return (n) => {
    n.metadata = { ...n.metadata, labels: { ...n.metadata?.labels, ...values } };
  };
}

export function annotation(key: string, value: string): NodeTweak {
  return (n) => {
    n.metadata = { ...n.metadata, annotations: { ...n.metadata?.annotations, [key]: value } };
  };
}

/** Kubelet's `--node-ip`, as the provided-node-ip annotation. */
export function providedNodeIP(value: string): NodeTweak {
  return annotation(Annotations.providedNodeIP, value);
}

export function addr(type: string, address: string): NodeAddress {
  return { type, address };
}

export function addresses(...list: NodeAddress[]): NodeTweak {
  return (n) => {
    n.status = { ...n.status, addresses: list };
  };
}

/** The Ready condition: `true`/`false`, or a raw status such as `Unknown`. */
export function ready(status: boolean | string): NodeTweak {
  const value = typeof status === "boolean" ? (status ? "True" : "False") : status;
  return (n) => {
    n.status = { ...n.status, conditions: [{ type: "Ready", status: value }] };
  };
}

export function ctx(): CallContext {
  return { signal: new AbortController().signal };
}

/** A fake cloud as it comes, tweaked. */
export function fakeCloud(tweak: (c: FakeCloud) => void = () => {}): FakeCloud {
  const cloud = new FakeCloud();
  tweak(cloud);
  return cloud;
}

/** What `legacyCloud` and `v2Cloud` answer for any instance's addresses. */
export const cloudAddresses = [addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "132.143.154.163")];

/** A fake cloud with only the legacy `Instances`, answering `cloudAddresses`. */
export function legacyCloud(tweak: (c: FakeCloud) => void = () => {}): FakeCloud {
  return fakeCloud((cloud) => {
    cloud.addresses = cloudAddresses;
    tweak(cloud);
  });
}

/** A fake cloud with `InstancesV2`, answering `cloudAddresses`. */
export function v2Cloud(tweak: (c: FakeCloud) => void = () => {}): FakeCloud {
  return legacyCloud((cloud) => {
    cloud.enableInstancesV2 = true;
    tweak(cloud);
  });
}

/** What the promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection");
}
