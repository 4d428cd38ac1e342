/**
 * A VM's node addresses (docs/providers/proxmox.md, "Addresses"), a pure function of the Node, the guest agent's
 * answer and the `features.network` switches:
 *
 * 1. `Hostname`: the Node's name.
 * 2. `InternalIP`: each address the kubelet was given with `--node-ip` (annotation
 *    `alpha.kubernetes.io/provided-node-ip`).
 * 3. With the guest agent's interfaces (modes `qemu` and `auto`): their addresses, except on `lo`, `cilium_net`,
 *    `cilium_host` and `dummy*`; never loopback, IPv6 link-local or unique-local, nor IPv6 at all when
 *    `ipv6_support_disabled`. `ExternalIP` inside `external_ip_cidrs` (and outside its `!` entries), else
 *    `InternalIP`.
 * 4. `ip_sort_order`: addresses inside a `!` entry are dropped; the rest are ordered by the first entry containing
 *    them (then by address), and addresses no entry contains keep their order after those.
 */
import type { NodeAddress } from "../../kube/objects.ts";
import { type Cidr, cidrContains, parseCIDR } from "../../net/cidr.ts";
import { formatIP, type IPAddress, parseIP } from "../../net/ip.ts";
import type { AgentInterface } from "./api/client.ts";
import type { CidrRules, NetworkConfig } from "./config.ts";

const IGNORED_INTERFACES = new Set(["lo", "cilium_net", "cilium_host"]);
const NEVER: readonly Cidr[] = ["127.0.0.0/8", "::1/128", "fe80::/10", "fc00::/7"].map(parseCIDR);

type Network = Pick<NetworkConfig, "ipv6_support_disabled" | "external_ip_cidrs" | "ip_sort_order">;

export function nodeAddresses(
  nodeName: string,
  providedNodeIP: string | undefined,
  agent: readonly AgentInterface[] | undefined,
  network: Network,
): NodeAddress[] {
  const ips: { type: "InternalIP" | "ExternalIP"; ip: IPAddress }[] = [];
  const seen = new Set<string>();
  const add = (type: "InternalIP" | "ExternalIP", ip: IPAddress) => {
    const key = `${type}/${formatIP(ip)}`;
    if (seen.has(key)) return;
    seen.add(key);
    ips.push({ type, ip });
  };
  for (const text of (providedNodeIP ?? "").split(",")) {
    const ip = parseIP(text.trim());
    if (ip) add("InternalIP", ip);
  }
  for (const iface of agent ?? []) {
    if (IGNORED_INTERFACES.has(iface.name) || iface.name.startsWith("dummy")) continue;
    for (const text of iface.addresses) {
      const ip = parseIP(text);
      if (!ip || NEVER.some((c) => cidrContains(c, ip))) continue;
      if (ip.family === 6 && network.ipv6_support_disabled) continue;
      add(inside(network.external_ip_cidrs, ip) ? "ExternalIP" : "InternalIP", ip);
    }
  }
  const sorted = sortByRules(ips, network.ip_sort_order);
  return [{ type: "Hostname", address: nodeName }, ...sorted.map((a) => ({ type: a.type, address: formatIP(a.ip) }))];
}

function inside(rules: CidrRules, ip: IPAddress): boolean {
  return rules.include.some((c) => cidrContains(c, ip)) && !rules.exclude.some((c) => cidrContains(c, ip));
}

function sortByRules<T extends { ip: IPAddress }>(items: readonly T[], rules: CidrRules): T[] {
  const kept = items.filter((a) => !rules.exclude.some((c) => cidrContains(c, a.ip)));
  const rank = (ip: IPAddress) => {
    const i = rules.include.findIndex((c) => cidrContains(c, ip));
    return i < 0 ? rules.include.length : i;
  };
  // Array.prototype.sort is stable: unranked addresses keep their order.
  return kept
    .map((a, index) => ({ a, index, rank: rank(a.ip) }))
    .sort((x, y) => {
      if (x.rank !== y.rank) return x.rank - y.rank;
      if (x.rank === rules.include.length) return x.index - y.index;
      if (x.a.ip.family !== y.a.ip.family) return x.a.ip.family - y.a.ip.family;
      return x.a.ip.value < y.a.ip.value ? -1 : x.a.ip.value > y.a.ip.value ? 1 : 0;
    })
    .map((x) => x.a);
}
