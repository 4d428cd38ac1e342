/**
 * Finding a Node's server: by provider ID (one GET in the zone it names), else by exact name across every zone of
 * both products, Instances first (scw CCM's `getServerByName`: the APIs match part of a name, so the answer is
 * compared exactly). Or in a listing the bulk form made once.
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext } from "../cloud.ts";
import type { BaremetalServer, InstanceServer, ServersApi } from "./api/servers.ts";
import { parseProviderID } from "./provider-id.ts";

/** Each product's zones, as the official SDK lists them (`API.LOCALITY`); scw CCM walks the same lists. */
export const instanceZones = [
  "fr-par-1",
  "fr-par-2",
  "fr-par-3",
  "nl-ams-1",
  "nl-ams-2",
  "nl-ams-3",
  "pl-waw-1",
  "pl-waw-2",
  "pl-waw-3",
] as const;
export const baremetalZones = ["fr-par-1", "fr-par-2", "nl-ams-1", "nl-ams-2", "pl-waw-2", "pl-waw-3"] as const;

/** `fr-par-1` → `fr-par`. */
export function regionOf(zone: string): string {
  return zone.replace(/-\d+$/, "");
}

export type Found =
  | { readonly kind: "instance"; readonly server: InstanceServer }
  | { readonly kind: "baremetal"; readonly server: BaremetalServer }
  | { readonly kind: "gone"; readonly why: string };

/** Every server of both products, and the IPv4s IPAM books to Instances' NICs, by NIC ID. */
export interface Listing {
  readonly instances: readonly InstanceServer[];
  readonly baremetal: readonly BaremetalServer[];
  readonly nicIPv4s: ReadonlyMap<string, readonly string[]>;
}

export async function findServer(
  api: ServersApi,
  defaultZone: string | undefined,
  ctx: CallContext,
  node: Node,
  listing?: Listing,
): Promise<Found> {
  const providerID = node.spec?.providerID ?? "";
  if (providerID !== "") {
    const ref = parseProviderID(providerID);
    if (ref.product === "baremetal") {
      const zone = ref.zone ?? "";
      const server = listing
        ? listing.baremetal.find((s) => s.id === ref.id && s.zone === zone)
        : await api.getBaremetalServer(ctx, zone, ref.id);
      return server
        ? { kind: "baremetal", server }
        : { kind: "gone", why: `no Elastic Metal server ${ref.id} in ${zone}` };
    }
    const zones = ref.zone ? [ref.zone] : defaultZone ? [defaultZone] : [...instanceZones];
    for (const zone of zones) {
      const server = listing
        ? listing.instances.find((s) => s.id === ref.id && s.zone === zone)
        : await api.getInstanceServer(ctx, zone, ref.id);
      if (server) return { kind: "instance", server };
    }
    return { kind: "gone", why: `no Instance ${ref.id} in ${zones.join(", ")}` };
  }
  const name = node.metadata?.name ?? "";
  if (name === "") return { kind: "gone", why: "the Node has no name" };
  const instances = listing
    ? listing.instances.filter((s) => s.name === name)
    : await named(instanceZones, (zone) => api.listInstanceServers(ctx, zone, { name }), name);
  if (instances.length > 1) throw duplicated(name, instances);
  if (instances[0]) return { kind: "instance", server: instances[0] };
  const metal = listing
    ? listing.baremetal.filter((s) => s.name === name)
    : await named(baremetalZones, (zone) => api.listBaremetalServers(ctx, zone, { name }), name);
  if (metal.length > 1) throw duplicated(name, metal);
  if (metal[0]) return { kind: "baremetal", server: metal[0] };
  return { kind: "gone", why: `no Instance or Elastic Metal server is named "${name}"` };
}

/** One listing per zone, in order; the servers named exactly `name`. */
async function named<T extends { name: string }>(
  zones: readonly string[],
  list: (zone: string) => Promise<T[]>,
  name: string,
): Promise<T[]> {
  const out: T[] = [];
  for (const zone of zones) out.push(...(await list(zone)).filter((s) => s.name === name));
  return out;
}

function duplicated(name: string, servers: readonly { id: string; zone: string }[]): Error {
  const which = servers.map((s) => `${s.id} in ${s.zone}`).join(", ");
  return new Error(`more than one server is named "${name}" (${which}); give the Node a provider ID`);
}

/** Every zone of both products, then IPAM once per region and project that has Instances with private NICs. */
export async function listEverything(api: ServersApi, ctx: CallContext): Promise<Listing> {
  const instances: InstanceServer[] = [];
  for (const zone of instanceZones) instances.push(...(await api.listInstanceServers(ctx, zone)));
  const baremetal: BaremetalServer[] = [];
  for (const zone of baremetalZones) baremetal.push(...(await api.listBaremetalServers(ctx, zone)));
  const nicIPv4s = new Map<string, string[]>();
  const scopes = new Map<string, { region: string; project: string }>();
  for (const s of instances) {
    if (s.privateNics.length === 0) continue;
    const region = regionOf(s.zone);
    scopes.set(`${region}/${s.project}`, { region, project: s.project });
  }
  for (const { region, project } of scopes.values()) {
    for (const ip of await api.listNicIPv4sOfRegion(ctx, region, project)) {
      nicIPv4s.set(ip.nicId, [...(nicIPv4s.get(ip.nicId) ?? []), ip.address]);
    }
  }
  return { instances, baremetal, nicIPv4s };
}
