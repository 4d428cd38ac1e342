/**
 * InstancesV2 over Nova servers, as OCCM answers (`pkg/openstack/instances.go`):
 *
 * - A Node's server is found by provider ID (`GET /servers/{id}`) when the Node has one, else by its exact name
 *   (`GET /servers/detail?name=^<name>$`); two servers of that name are an error, never a guess. A provider ID
 *   naming another region than `[Global] region` is an error.
 * - Gone — which deletes the Node — only when Nova answered 404 for its ID, or no server has its name (where OCCM
 *   answers an error, the framework's contract says "does not exist"); any other failure throws and the Node stays.
 * - Shut down: the server is `SHUTOFF`, the one state OCCM counts as shut down.
 * - Instance type: the flavor's name (`original_name`, or `GET /flavors/{id}` before microversion 2.47), or its
 *   ID when the name is no valid label value; zone: the server's availability zone, made a valid label
 *   (`util.SanitizeLabel`); region: `[Global] region`.
 * - Addresses: addresses.ts, from the server and its Neutron ports (`GET /v2.0/ports?device_id=`), and a trunk's
 *   sub-ports (`GET /v2.0/ports/{id}` and its network, two calls per sub-port as OCCM makes them; one that cannot
 *   be read is left out and logged, as OCCM does).
 *
 * The bulk form reads every server (pages of 1000) and every port in two listings instead of two calls per Node.
 */
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import { type NetworkingOptions, nodeAddresses } from "./addresses.ts";
import type { ComputeApi, Port, Server } from "./api/compute.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

export interface InstancesOptions {
  readonly compute: ComputeApi;
  readonly networking: NetworkingOptions;
  /** `[Global] region`: the region label, and the only region a provider ID may name. */
  readonly region: string | undefined;
  /** `OS_CCM_REGIONAL=true`: provider IDs name the region. */
  readonly regionalProviderIDs: boolean;
  /** Where a trunk sub-port that cannot be read is reported. */
  readonly logger?: { warn(message: string): void } | undefined;
}

type Found = { readonly server: Server } | { readonly gone: string };

interface Listing {
  readonly byId: ReadonlyMap<string, Server>;
  readonly all: readonly Server[];
  readonly ports: ReadonlyMap<string, Port[]>;
}

const SHUTOFF = "SHUTOFF";

export function createInstances(o: InstancesOptions) {
  const { compute } = o;

  async function find(ctx: CallContext, node: Node, listing?: Listing): Promise<Found> {
    const providerID = node.spec?.providerID ?? "";
    if (providerID !== "") {
      const ref = parseProviderID(providerID);
      if (ref.region !== undefined && ref.region !== o.region) {
        throw new Error(
          `provider ID ${providerID} names region ${ref.region}, not [Global] region ${o.region ?? "(unset)"}`,
        );
      }
      const server = listing ? listing.byId.get(ref.id) : await compute.getServer(ctx, ref.id);
      return server ? { server } : { gone: `Nova has no server ${ref.id}` };
    }
    const name = node.metadata?.name ?? "";
    const named = listing ? listing.all.filter((s) => s.name === name) : await compute.serversNamed(ctx, name);
    if (named.length > 1) {
      throw new Error(
        `${named.length} servers are named "${name}" (${named.map((s) => s.id).join(", ")}); set the Node's providerID`,
      );
    }
    const server = named[0];
    return server ? { server } : { gone: `no server is named "${name}"` };
  }

  async function lookUp(ctx: CallContext, node: Node, op: string): Promise<Found> {
    try {
      return await find(ctx, node);
    } catch (err) {
      throw wrapError(`openstack/instances.${op} ${describe(node)}`, err);
    }
  }

  async function instanceType(ctx: CallContext, server: Server): Promise<string> {
    if (server.flavorName !== undefined && isLabelValue(server.flavorName)) return server.flavorName;
    if (server.flavorID !== undefined) {
      const flavor = await compute.getFlavor(ctx, server.flavorID);
      if (flavor) return isLabelValue(flavor.name) ? flavor.name : flavor.id;
    } else if (server.flavorName !== undefined) {
      const flavor = (await compute.listFlavors(ctx)).find((f) => f.name === server.flavorName);
      if (flavor) return flavor.id;
    }
    throw new Error(`server ${server.id} has no flavor whose name or ID can be its instance type`);
  }

  /** Network name → the fixed IPs of the trunk sub-ports of `ports` (OCCM's `nodeAddresses` subport loop). */
  async function subPortAddresses(ctx: CallContext, ports: readonly Port[]): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const id of ports.flatMap((p) => p.subPortIDs)) {
      try {
        const sub = await compute.getPort(ctx, id);
        const network = sub && (await compute.networkName(ctx, sub.networkID));
        if (!sub || network === undefined) throw new Error(sub ? `its network ${sub.networkID} is gone` : "it is gone");
        out[network] = [...(out[network] ?? []), ...sub.fixedIPs];
      } catch (err) {
        o.logger?.warn(
          `openstack/instances: trunk sub-port ${id} left out of the addresses: ${(err as Error).message}`,
        );
      }
    }
    return out;
  }

  async function metadata(ctx: CallContext, server: Server, ports?: readonly Port[]): Promise<InstanceMetadata> {
    const attached = ports ?? (await compute.listPorts(ctx, server.id));
    const subPorts = await subPortAddresses(ctx, attached);
    return {
      providerID: formatProviderID(server.id, o.regionalProviderIDs ? o.region : undefined),
      instanceType: await instanceType(ctx, server),
      nodeAddresses: nodeAddresses(server, attached, o.networking, subPorts),
      zone: sanitizeLabel(server.availabilityZone),
      region: o.region ?? "",
    };
  }

  return {
    async instanceExists(ctx, node) {
      return "server" in (await lookUp(ctx, node, "instanceExists"));
    },

    async instanceShutdown(ctx, node) {
      const found = await lookUp(ctx, node, "instanceShutdown");
      if ("gone" in found) throw new InstanceNotFoundError(`${describe(node)}: ${found.gone}`);
      return found.server.status === SHUTOFF;
    },

    async instanceMetadata(ctx, node) {
      const found = await lookUp(ctx, node, "instanceMetadata");
      if ("gone" in found) throw new InstanceNotFoundError(`${describe(node)}: ${found.gone}`);
      try {
        return await metadata(ctx, found.server);
      } catch (err) {
        throw wrapError(`openstack/instances.instanceMetadata ${describe(node)}`, err);
      }
    },

    async instanceMetadataBulk(ctx, nodes) {
      const [all, ports] = await Promise.all([compute.listServers(ctx), compute.listPorts(ctx)]);
      const byDevice = new Map<string, Port[]>();
      for (const p of ports) byDevice.set(p.deviceID, [...(byDevice.get(p.deviceID) ?? []), p]);
      const listing: Listing = { all, byId: new Map(all.map((s) => [s.id, s])), ports: byDevice };
      const result = new Map<string, BulkInstanceInfo | null>();
      for (const node of nodes) {
        const name = node.metadata?.name;
        if (!name) continue;
        try {
          const found = await find(ctx, node, listing);
          // Missing from the listing is not yet gone: the one-by-one path asks for the ID and decides.
          if ("gone" in found) continue;
          const md = await metadata(ctx, found.server, listing.ports.get(found.server.id) ?? []);
          result.set(name, { metadata: md, shutdown: found.server.status === SHUTOFF });
        } catch {
          // Left out of the map: the one-by-one path asks again and reports why.
        }
      }
      return result;
    },
  } satisfies InstancesV2;
}

/** `k8s.io/apimachinery` `IsValidLabelValue`. */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value);
}

/** OCCM's `util.SanitizeLabel`: runs of other characters as `-`, trimmed of `-_.`, at most 63 characters. */
export function sanitizeLabel(input: string): string {
  return input
    .replace(/[^-a-zA-Z0-9_.]+/g, "-")
    .replace(/^[-_.]+|[-_.]+$/g, "")
    .slice(0, 63);
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
