/**
 * IPAM IPs: the addresses of private networks, regional, each booked to a resource (`instance_private_nic`,
 * `baremetal_private_nic`, …). An `address` is sent in CIDR form (`172.16.0.2/22`), as IPAM does.
 */
import { iso, type World } from "./world.ts";

export interface IpamIp {
  readonly id: string;
  /** CIDR form: `172.16.0.2/22`, `fd5f:519c:6d46:2728::2/64`. */
  readonly address: string;
  readonly isIpv6: boolean;
  readonly region: string;
  readonly project: string;
  readonly privateNetworkId: string;
  readonly subnetId: string;
  readonly resource?: {
    readonly type: string;
    readonly id: string;
    readonly macAddress: string;
    readonly name: string;
  };
  readonly created: number;
}

export interface PrivateIpSpec {
  readonly region: string;
  readonly project: string;
  readonly privateNetworkId: string;
  readonly resource: NonNullable<IpamIp["resource"]>;
}

/** An IPv4 and an IPv6 of the private network, booked to the resource. */
export function allocatePrivateIp(world: World, spec: PrivateIpSpec): IpamIp[] {
  const n = world.nextAddress();
  const base = { region: spec.region, project: spec.project, privateNetworkId: spec.privateNetworkId };
  const subnetId = spec.privateNetworkId;
  const made: IpamIp[] = [
    {
      ...base,
      id: world.uuid(),
      address: `172.16.${Math.floor(n / 250) % 4}.${(n % 250) + 2}/22`,
      isIpv6: false,
      subnetId,
      resource: spec.resource,
      created: world.now(),
    },
    {
      ...base,
      id: world.uuid(),
      address: `fd5f:519c:6d46:2728::${n.toString(16)}/64`,
      isIpv6: true,
      subnetId,
      resource: spec.resource,
      created: world.now(),
    },
  ];
  for (const ip of made) world.ips.set(ip.id, ip);
  return made;
}

/** The filters `GET /ipam/v1/regions/{region}/ips` takes that a CCM uses; unknown ones are ignored, as by the API. */
export function ipMatches(ip: IpamIp, q: URLSearchParams): boolean {
  const want = (name: string, have: string | undefined) => {
    const value = q.get(name);
    return value === null || value === have;
  };
  const isIpv6 = q.get("is_ipv6");
  if (isIpv6 !== null && String(ip.isIpv6) !== isIpv6) return false;
  const ids = q.getAll("resource_ids").flatMap((s) => s.split(","));
  if (ids.length > 0 && !ids.includes(ip.resource?.id ?? "")) return false;
  return (
    want("project_id", ip.project) &&
    want("private_network_id", ip.privateNetworkId) &&
    want("resource_type", ip.resource?.type) &&
    want("resource_id", ip.resource?.id) &&
    want("mac_address", ip.resource?.macAddress) &&
    want("resource_name", ip.resource?.name)
  );
}

export function ipamIpView(ip: IpamIp) {
  return {
    id: ip.id,
    address: ip.address,
    project_id: ip.project,
    is_ipv6: ip.isIpv6,
    created_at: iso(ip.created),
    updated_at: iso(ip.created),
    source: { private_network_id: ip.privateNetworkId, subnet_id: ip.subnetId },
    resource: ip.resource
      ? { type: ip.resource.type, id: ip.resource.id, mac_address: ip.resource.macAddress, name: ip.resource.name }
      : null,
    tags: [],
    reverses: [],
    region: ip.region,
    zone: null,
  };
}
