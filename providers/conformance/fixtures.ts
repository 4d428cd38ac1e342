/** The Nodes and Services the checks hand to a provider, built the way the controllers would see them. */
import type { Node, Service } from "../../kube/objects.ts";
import type { ArrangedMachine } from "./types.ts";

/** The machine's Node as it looks once initialised: name and provider ID. */
export function nodeByProviderID(machine: ArrangedMachine): Node {
  return {
    metadata: { name: machine.nodeName, uid: crypto.randomUUID() },
    spec: { providerID: machine.providerID },
    ...(machine.addresses ? { status: { addresses: machine.addresses.map((a) => ({ ...a })) } } : {}),
  };
}

/** The machine's Node as it looks when it first registers: a name, no provider ID yet. */
export function nodeByName(name: string): Node {
  return { metadata: { name, uid: crypto.randomUUID() }, spec: {} };
}

/** A `type: LoadBalancer` Service with a fresh UID and one TCP port with a node port. */
export function loadBalancerService(name: string, port = 80): Service {
  return {
    metadata: { name, namespace: "default", uid: crypto.randomUUID() },
    spec: {
      type: "LoadBalancer",
      ports: [{ name: "http", protocol: "TCP", port, targetPort: 8080, nodePort: 30000 + (port % 2000) }],
    },
  };
}

/** Names unique within one check and, by a random part, across checks sharing one cloud. */
export function uniqueNames(): () => string {
  const run = crypto.randomUUID().slice(0, 6);
  let n = 0;
  return () => `cf-${run}-${++n}`;
}

/** True for a literal IPv4 or IPv6 address (no prefix length, no port). */
export function isIPAddress(value: string): boolean {
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (v4.test(value)) return true;
  if (!value.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}
