/**
 * What a Node is told about its server, as hccm tells it (hcloud/instances.go, instances_util.go), so a Node keeps
 * its labels and addresses across the swap: pure functions over a server, table-tested in metadata.test.ts.
 *
 * Cloud servers: instance type = the server type's name; region = the location (`fsn1`); zone = hccm's legacy
 * datacenter name for the location (`fsn1-dc14`; a location without one is its own name) when
 * `HCLOUD_INSTANCES_ZONE_LABEL_ENABLED`, else none. Addresses: the hostname, the public IPv4 and the IPv6 net's
 * `::1` host as ExternalIPs per `HCLOUD_INSTANCES_ADDRESS_FAMILY`, the private IP in `HCLOUD_NETWORK` as InternalIP.
 *
 * Robot servers: instance type = the product with spaces as dashes and nothing a label value refuses; zone = the
 * data center lower-cased (`fsn1-dc10`), region = its part before the first dash. Addresses: hostname, then the
 * IPv6 net's `1` host, then the IPv4 (hccm's order); with `ROBOT_FORWARD_INTERNAL_IPS` the Node's own InternalIPs of
 * the configured family are kept, unless one is already an ExternalIP.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import type { InstanceMetadata } from "../cloud.ts";
import type { RobotServer } from "./api/robot.ts";
import type { CloudServer } from "./api/servers.ts";
import type { AddressFamily } from "./config.ts";
import { formatCloudProviderID, formatRobotProviderID } from "./provider-id.ts";

/** hccm's label saying which API a Node's server comes from. */
export const providedByLabel = "instance.hetzner.cloud/provided-by";

/** The datacenter names hccm still writes as zones for the locations that had one before the API dropped them. */
const legacyDatacenters: Readonly<Record<string, string>> = {
  nbg1: "nbg1-dc3",
  hel1: "hel1-dc2",
  fsn1: "fsn1-dc14",
  ash: "ash-dc1",
  hil: "hil-dc1",
  sin: "sin-dc1",
};

export const zoneOfLocation = (location: string): string => legacyDatacenters[location] ?? location;

export interface CloudMetadataOptions {
  readonly addressFamily: AddressFamily;
  readonly zoneLabel: boolean;
  /** The resolved `HCLOUD_NETWORK`; absent ⇒ no InternalIP. */
  readonly networkId?: number | undefined;
}

export function cloudMetadata(server: CloudServer, o: CloudMetadataOptions): InstanceMetadata {
  return {
    providerID: formatCloudProviderID(server.id),
    instanceType: server.type,
    nodeAddresses: cloudAddresses(server, o),
    region: server.location,
    zone: o.zoneLabel && server.location !== "" ? zoneOfLocation(server.location) : "",
    additionalLabels: { [providedByLabel]: "cloud" },
  };
}

const wants = (family: AddressFamily) => ({
  ipv4: family === "ipv4" || family === "dualstack",
  ipv6: family === "ipv6" || family === "dualstack",
});

export function cloudAddresses(server: CloudServer, o: CloudMetadataOptions): NodeAddress[] {
  const want = wants(o.addressFamily);
  const addresses: NodeAddress[] = [{ type: "Hostname", address: server.name }];
  if (want.ipv4 && server.ipv4) addresses.push({ type: "ExternalIP", address: server.ipv4 });
  if (want.ipv6 && server.ipv6Net) addresses.push({ type: "ExternalIP", address: ipv6Host(server.ipv6Net) });
  if (o.networkId !== undefined) {
    for (const p of server.privateNets) {
      if (p.network === o.networkId) addresses.push({ type: "InternalIP", address: p.ip });
    }
  }
  return addresses;
}

export interface RobotMetadataOptions {
  readonly addressFamily: AddressFamily;
  readonly forwardInternalIPs: boolean;
}

/** The metadata, and why any of the Node's InternalIPs was not forwarded (hccm's `MisconfiguredInternalIP`). */
export function robotMetadata(
  server: RobotServer,
  node: Node,
  o: RobotMetadataOptions,
): { metadata: InstanceMetadata; warnings: string[] } {
  const zone = server.dc.toLowerCase();
  const { addresses, warnings } = robotAddresses(server, node, o);
  return {
    metadata: {
      providerID: formatRobotProviderID(server.number),
      instanceType: robotInstanceType(server.product),
      nodeAddresses: addresses,
      zone,
      region: zone.split("-")[0] ?? "",
      additionalLabels: { [providedByLabel]: "robot" },
    },
    warnings,
  };
}

export const robotInstanceType = (product: string): string =>
  product.replaceAll(" ", "-").replace(/[^a-zA-Z0-9_.-]+/g, "");

export function robotAddresses(
  server: RobotServer,
  node: Node,
  o: RobotMetadataOptions,
): { addresses: NodeAddress[]; warnings: string[] } {
  const want = wants(o.addressFamily);
  const addresses: NodeAddress[] = [{ type: "Hostname", address: server.name }];
  if (want.ipv6 && server.ipv6Net) addresses.push({ type: "ExternalIP", address: ipv6Host(server.ipv6Net) });
  if (want.ipv4 && server.ip) addresses.push({ type: "ExternalIP", address: server.ip });
  const warnings: string[] = [];
  if (!o.forwardInternalIPs) return { addresses, warnings };
  const dualStack = o.addressFamily === "dualstack";
  for (const current of node.status?.addresses ?? []) {
    if (current.type !== "InternalIP") continue;
    const isIPv4 = !current.address.includes(":");
    if (!dualStack && isIPv4 !== want.ipv4) {
      const [is, only] = isIPv4 ? ["IPv4", "IPv6"] : ["IPv6", "IPv4"];
      warnings.push(
        `InternalIP ${current.address} is ${is} but HCLOUD_INSTANCES_ADDRESS_FAMILY is ${only} only; not forwarded`,
      );
      continue;
    }
    if (addresses.some((a) => a.address === current.address)) {
      warnings.push(`InternalIP ${current.address} is already an ExternalIP; not forwarded`);
      continue;
    }
    addresses.push({ type: "InternalIP", address: current.address });
  }
  return { addresses, warnings };
}

/** The `…::1` host of an IPv6 network (`2001:db8:1::/64`, or Robot's `2a01:4f8:111:4221::`), in canonical form. */
export function ipv6Host(network: string): string {
  const address = network.split("/")[0] ?? "";
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return `${address}1`;
  groups[7] = (Number.parseInt(groups[7] as string, 16) | 1).toString(16);
  return new URL(`http://[${groups.join(":")}]/`).hostname.slice(1, -1);
}
