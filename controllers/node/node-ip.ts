/**
 * Node addresses and kubelet's provided node IP.
 *
 * IPs are compared the way upstream compares them (`net/ip.ts` `parseIP`): IPv4-mapped IPv6 equals IPv4, so
 * `1.2.3.4` equals `::ffff:1.2.3.4`, and leading zeros in IPv4 fields are tolerated (`010.0.0.1` is `10.0.0.1`).
 * Error messages render IPs in canonical form (`10.0.0.1`, `fd00::1`) and quote values Go-style, as upstream does.
 */
import type { NodeAddress } from "../../kube/objects.ts";
import { formatIP, type IPAddress, ipEqual, isUnspecified, parseIP } from "../../net/ip.ts";
import { goQuote } from "../../platform/go-format.ts";

/** The provided-node-ip annotation is malformed. `detail` is the reason without the prefix. */
export class NodeIPParseError extends Error {
  override readonly name = "NodeIPParseError";
  readonly value: string;
  readonly detail: string;
  constructor(value: string, detail: string) {
    super(`failed to parse node IP ${goQuote(value)}: ${detail}`);
    this.value = value;
    this.detail = detail;
  }
}

/** A provided node IP is not among the cloud's addresses for the instance. */
export class NodeIPNotInCloudError extends Error {
  override readonly name = "NodeIPNotInCloudError";
  /** Canonical form of the IP that matched nothing. */
  readonly ip: string;
  readonly cloudAddresses: readonly NodeAddress[];
  constructor(ip: string, cloudAddresses: readonly NodeAddress[]) {
    super(`failed to get node address from cloud provider that matches ip: ${ip}`);
    this.ip = ip;
    this.cloudAddresses = cloudAddresses;
  }
}

/**
 * Strict parse of `alpha.kubernetes.io/provided-node-ip`: split on `,` without trimming; one IP, or an
 * IPv4/IPv6 pair without an unspecified address. Throws `NodeIPParseError`.
 */
export function parseProvidedNodeIP(value: string): IPAddress[] {
  const ips: IPAddress[] = [];
  for (const piece of value.split(",")) {
    const ip = parseIP(piece);
    if (!ip) throw new NodeIPParseError(value, `could not parse ${goQuote(piece)}`);
    ips.push(ip);
  }
  const [first, second] = ips;
  if (ips.length > 2 || (first && second && first.family === second.family)) {
    throw new NodeIPParseError(value, "must contain either a single IP or a dual-stack pair of IPs");
  }
  if (first && second && (isUnspecified(first) || isUnspecified(second))) {
    throw new NodeIPParseError(value, "dual-stack node IP cannot include '0.0.0.0' or '::'");
  }
  return ips;
}

/**
 * Upstream `GetNodeAddressesFromNodeIP`: the cloud addresses equal to each provided IP come first (in the
 * annotation's order, keeping the cloud's spelling and type) and become the only addresses of their types;
 * addresses of other types follow in cloud order. Throws `NodeIPParseError` or `NodeIPNotInCloudError`.
 */
export function getNodeAddressesFromNodeIP(
  providedNodeIP: string,
  cloudAddresses: readonly NodeAddress[],
): NodeAddress[] {
  const ips = parseProvidedNodeIP(providedNodeIP);
  const parsed = cloudAddresses.map((a) => parseIP(a.address));
  const out: NodeAddress[] = [];
  const enforcedTypes = new Set<string>();
  for (const ip of ips) {
    let matched = false;
    for (const [i, address] of cloudAddresses.entries()) {
      const cloudIP = parsed[i];
      if (cloudIP && ipEqual(cloudIP, ip)) {
        out.push({ type: address.type, address: address.address });
        enforcedTypes.add(address.type);
        matched = true;
      }
    }
    if (!matched) throw new NodeIPNotInCloudError(formatIP(ip), cloudAddresses);
  }
  for (const address of cloudAddresses) {
    if (!enforcedTypes.has(address.type)) out.push({ type: address.type, address: address.address });
  }
  return out;
}

/** Upstream `AddToNodeAddresses`: a copy of `list` plus each addition whose (type, address) is not yet present. */
export function addToNodeAddresses(list: readonly NodeAddress[], ...additions: NodeAddress[]): NodeAddress[] {
  const out = [...list];
  for (const add of additions) {
    if (!out.some((a) => a.type === add.type && a.address === add.address)) out.push(add);
  }
  return out;
}

/**
 * Upstream `nodeAddressesChangeDetected`, lossy on purpose: lengths differ ⇒ changed; otherwise each new entry
 * is compared with the last old address of its type, so order and duplicate types can hide a change.
 */
export function nodeAddressesChangeDetected(
  oldAddresses: readonly NodeAddress[],
  newAddresses: readonly NodeAddress[],
): boolean {
  if (oldAddresses.length !== newAddresses.length) return true;
  const byType = new Map<string, string>();
  for (const a of oldAddresses) byType.set(a.type, a.address);
  return newAddresses.some((a) => (byType.get(a.type) ?? "") !== a.address);
}
