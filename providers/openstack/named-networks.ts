/**
 * `doctor` and the start: every Neutron network and subnet the configuration names by ID must exist in the project
 * (OCCM finds a wrong one only when a Service's load balancer is made). Which keys, and where each points.
 */
import type { CallContext } from "../cloud.ts";
import type { OpenStackConfig } from "./config.ts";

const NETWORK_KEYS = ["floating-network-id", "network-id"] as const;
const SUBNET_KEYS = ["floating-subnet-id", "subnet-id", "member-subnet-id"] as const;

export interface NamedNetworkLookups {
  /** The network's name, `undefined` when Neutron has none of this ID. */
  networkName(ctx: CallContext, id: string): Promise<string | undefined>;
  /** Whether Neutron has a subnet of this ID. */
  subnetExists(ctx: CallContext, id: string): Promise<boolean>;
}

interface Named {
  readonly key: string;
  readonly id: string;
  readonly kind: "network" | "subnet";
}

/** The IDs `[LoadBalancer]` and each `[LoadBalancerClass "…"]` name, with the key that names each. */
export function namedNetworks(config: Pick<OpenStackConfig, "loadBalancer" | "loadBalancerClasses">): Named[] {
  const out: Named[] = [];
  const add = (section: string, values: Readonly<Record<string, unknown>>) => {
    for (const key of NETWORK_KEYS) {
      const id = values[key];
      if (typeof id === "string" && id !== "") out.push({ key: `${section} ${key}`, id, kind: "network" });
    }
    for (const key of SUBNET_KEYS) {
      const id = values[key];
      if (typeof id === "string" && id !== "") out.push({ key: `${section} ${key}`, id, kind: "subnet" });
    }
  };
  add("[LoadBalancer]", config.loadBalancer as Readonly<Record<string, unknown>>);
  for (const [name, values] of Object.entries(config.loadBalancerClasses ?? {}))
    add(`[LoadBalancerClass "${name}"]`, values as Readonly<Record<string, unknown>>);
  return out;
}

/** Throws one error naming every key whose network or subnet Neutron does not have. */
export async function checkNamedNetworks(
  ctx: CallContext,
  named: readonly Named[],
  lookups: NamedNetworkLookups,
): Promise<void> {
  const missing: string[] = [];
  for (const n of named) {
    const found =
      n.kind === "network"
        ? (await lookups.networkName(ctx, n.id)) !== undefined
        : await lookups.subnetExists(ctx, n.id);
    if (!found) missing.push(`${n.key}=${n.id}: no ${n.kind} of this ID in the project`);
  }
  if (missing.length > 0) {
    throw new Error(
      `${missing.join("; ")}; set each to an ID that \`openstack network list\` or \`openstack subnet list\` shows`,
    );
  }
}
