/**
 * A server's Node addresses, chosen and ordered as OCCM does (`pkg/openstack/instances_addresses.go`
 * `nodeAddresses`, `sortNodeAddresses`):
 *
 * 1. InternalIP: the fixed IPs of the server's ACTIVE Neutron ports, in port order.
 * 2. ExternalIP: `accessIPv4`, then `accessIPv6`.
 * 3. Hostname: the server's `metadata.hostname`, when set.
 * 4. Nova's `addresses`, network by network in name order: a `floating` address is ExternalIP; an address on a
 *    `[Networking] public-network-name` network is ExternalIP (and no longer InternalIP); on another network it
 *    is InternalIP when `internal-network-name` is unset or names that network, else it is dropped (from the
 *    ports' too).
 *
 * The fixed IPs of trunk sub-ports (`subPorts`: network name → addresses, read by the caller) join Nova's
 * addresses of their network, as fixed ones. An address is listed once per type. `ipv6-support-disabled` leaves out
 * every IPv6 address. With `address-sort-order`, addresses inside its CIDRs move ahead, the first CIDR's first,
 * ascending inside each; the rest keep their order.
 */
import type { NodeAddress } from "../../kube/objects.ts";
import { cidrContains, parseCIDR } from "../../net/cidr.ts";
import { type IPAddress, parseIP } from "../../net/ip.ts";
import type { Port, Server } from "./api/compute.ts";

export interface NetworkingOptions {
  readonly ipv6SupportDisabled: boolean;
  readonly publicNetworkNames: readonly string[];
  readonly internalNetworkNames: readonly string[];
  /** CIDRs, validated by the configuration. */
  readonly addressSortOrder: readonly string[];
}

export function nodeAddresses(
  server: Server,
  ports: readonly Port[],
  o: NetworkingOptions,
  subPorts: Readonly<Record<string, readonly string[]>> = {},
): NodeAddress[] {
  const out: NodeAddress[] = [];
  const allowed = (address: string) => !(o.ipv6SupportDisabled && isIPv6(address));
  const add = (type: NodeAddress["type"], address: string) => {
    if (!out.some((a) => a.address === address && a.type === type)) out.push({ type, address });
  };
  const remove = (address: string) => {
    for (let i = out.length - 1; i >= 0; i--) if (out[i]?.address === address) out.splice(i, 1);
  };

  for (const port of ports) {
    if (port.status !== "ACTIVE") continue;
    for (const ip of port.fixedIPs) if (allowed(ip)) add("InternalIP", ip);
  }
  if (server.accessIPv4 !== "") add("ExternalIP", server.accessIPv4);
  if (server.accessIPv6 !== "" && !o.ipv6SupportDisabled) add("ExternalIP", server.accessIPv6);
  if (server.hostname !== "") add("Hostname", server.hostname);

  const byNetwork: Record<string, { readonly addr: string; readonly type: string }[]> = {};
  for (const [network, list] of Object.entries(server.addresses)) byNetwork[network] = [...list];
  for (const [network, list] of Object.entries(subPorts)) {
    const fixed = list.filter(allowed).map((addr) => ({ addr, type: "fixed" }));
    byNetwork[network] = [...(byNetwork[network] ?? []), ...fixed];
  }
  for (const network of Object.keys(byNetwork).sort()) {
    for (const { addr, type } of byNetwork[network] ?? []) {
      let kind: NodeAddress["type"];
      if (type === "floating") kind = "ExternalIP";
      else if (o.publicNetworkNames.includes(network)) {
        kind = "ExternalIP";
        remove(addr);
      } else if (o.internalNetworkNames.length === 0 || o.internalNetworkNames.includes(network)) {
        kind = "InternalIP";
      } else {
        remove(addr);
        continue;
      }
      if (allowed(addr)) add(kind, addr);
    }
  }
  return o.addressSortOrder.length > 0 ? sortAddresses(out, o.addressSortOrder) : out;
}

/** OCCM's `sortNodeAddresses`: a stable sort by the first matching CIDR, then by address inside one CIDR. */
export function sortAddresses(addresses: readonly NodeAddress[], order: readonly string[]): NodeAddress[] {
  const cidrs = order.map((c) => parseCIDR(c));
  const priority = (ip: IPAddress | undefined) => {
    if (!ip) return 0;
    const i = cidrs.findIndex((c) => cidrContains(c, ip));
    return i < 0 ? 0 : cidrs.length - i;
  };
  const keyed = addresses.map((a) => ({ a, ip: parseIP(a.address) }));
  const sorted = [...keyed].sort((l, r) => {
    const pl = priority(l.ip);
    const pr = priority(r.ip);
    if (pl > 0 && pl === pr) return compareBytes(l.ip, r.ip);
    return pr - pl;
  });
  return sorted.map((k) => k.a);
}

/** Go's `bytes.Compare` of two `net.IP`s: an IPv4 address is 16 bytes (`::ffff:a.b.c.d`), as `ParseIP` gives it. */
function compareBytes(l: IPAddress | undefined, r: IPAddress | undefined): number {
  const wide = (ip: IPAddress | undefined) =>
    ip === undefined ? -1n : ip.family === 4 ? 0xffff00000000n | ip.value : ip.value;
  const a = wide(l);
  const b = wide(r);
  return a < b ? -1 : a > b ? 1 : 0;
}

function isIPv6(address: string): boolean {
  return parseIP(address)?.family === 6;
}
