/**
 * A Node's addresses from its server, as scw CCM sets them (`instanceAddresses`, `baremetalAddresses` and the
 * `k8s.scw.cloud/node-public-ip` label in `scaleway/{instances,baremetal,servers}.go`):
 *
 * - Instance: Hostname (the server's hostname); the first public IPv4 the server got by DHCP (a routed IP, not one
 *   attached by hand) as ExternalIP, with ExternalDNS `<id>.pub.instances.scw.cloud`; then InternalIP for each IPv4
 *   IPAM books to its private NICs (only the NIC on `PN_ID` when set); without any, the legacy `private_ip` as
 *   InternalIP with InternalDNS `<id>.priv.instances.scw.cloud`. No IPv6 address, as scw CCM.
 * - Elastic Metal: Hostname (the server's name); its first IPv4 as ExternalIP, with its domain as ExternalDNS.
 * - The label `k8s.scw.cloud/node-public-ip` replaces the ExternalIP with its value.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { parseIPStrict } from "../../net/ip.ts";
import type { BaremetalServer, InstanceServer } from "./api/servers.ts";

/** scw CCM's label: the Node's ExternalIP, whatever the server's. */
export const NODE_PUBLIC_IP_LABEL = "k8s.scw.cloud/node-public-ip";

export function instanceAddresses(server: InstanceServer, privateIPv4s: readonly string[]): NodeAddress[] {
  const out: NodeAddress[] = [{ type: "Hostname", address: server.hostname || server.name }];
  const pub = server.publicIps.find((ip) => ip.family === "inet" && ip.provisioningMode === "dhcp");
  if (pub) {
    out.push({ type: "ExternalIP", address: pub.address });
    out.push({ type: "ExternalDNS", address: `${server.id}.pub.instances.scw.cloud` });
  }
  if (privateIPv4s.length > 0) {
    for (const address of privateIPv4s) out.push({ type: "InternalIP", address });
  } else if (server.privateIp !== "") {
    out.push({ type: "InternalIP", address: server.privateIp });
    out.push({ type: "InternalDNS", address: `${server.id}.priv.instances.scw.cloud` });
  }
  return out;
}

export function baremetalAddresses(server: BaremetalServer): NodeAddress[] {
  const out: NodeAddress[] = [{ type: "Hostname", address: server.name }];
  const v4 = server.ips.find((ip) => ip.version === "IPv4");
  if (v4) {
    out.push({ type: "ExternalIP", address: v4.address });
    if (server.domain !== "") out.push({ type: "ExternalDNS", address: server.domain });
  }
  return out;
}

/** The addresses with the label's ExternalIP in place of the server's; throws naming the label if it is no IP. */
export function withPublicIpLabel(node: Node, addresses: readonly NodeAddress[]): NodeAddress[] {
  const label = node.metadata?.labels?.[NODE_PUBLIC_IP_LABEL];
  if (label === undefined) return [...addresses];
  if (parseIPStrict(label) === undefined) {
    throw new Error(
      `the label ${NODE_PUBLIC_IP_LABEL}="${label}" is not an IP address; set it to the Node's public IP`,
    );
  }
  return [{ type: "ExternalIP", address: label }, ...addresses.filter((a) => a.type !== "ExternalIP")];
}
