/**
 * InstancesV2 over Droplets, as DO CCM answers:
 *
 * - A Node's Droplet is found by provider ID (`digitalocean://<id>`, one `GET /v2/droplets/<id>`) when the Node
 *   has one, else by its exact name (`GET /v2/droplets?name=`). DO CCM also compares the Droplet's addresses with
 *   the Node's name, but only among the Droplets that name filter returned, so in effect it matches by name alone.
 * - Addresses: Hostname (the Droplet's name), InternalIP (its private IPv4, which every Droplet in a VPC has; none
 *   is an error, as in DO CCM), ExternalIP (public IPv4, then public IPv6 when it has one).
 * - Instance type: the size slug; region: the region slug. DigitalOcean regions have no zones, and DO CCM sets
 *   none: the zone label is left off.
 * - Shut down: the Droplet is `off`. Gone — which deletes the Node — only when the API answered 404 for its ID
 *   (or no Droplet has its name); any other failure throws and the Node stays.
 *
 * The bulk form reads every Droplet in one paged listing (⌈Droplets/200⌉ calls) instead of a call per Node.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import type { Droplet, DropletsApi } from "./api/droplets.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

type Found = { readonly droplet: Droplet } | { readonly gone: string };

/** Droplets by ID and every Droplet, when a bulk lookup has them in hand. */
interface Listing {
  readonly byId: ReadonlyMap<number, Droplet>;
  readonly all: readonly Droplet[];
}

export function nodeAddresses(d: Droplet): NodeAddress[] {
  if (d.privateV4 === "") {
    throw new Error(`Droplet ${d.id} (${d.name}) has no private IPv4 address for the Node's InternalIP`);
  }
  const out: NodeAddress[] = [
    { type: "Hostname", address: d.name },
    { type: "InternalIP", address: d.privateV4 },
  ];
  if (d.publicV4 !== "") out.push({ type: "ExternalIP", address: d.publicV4 });
  if (d.publicV6 !== "") out.push({ type: "ExternalIP", address: d.publicV6 });
  return out;
}

export function dropletMetadata(d: Droplet): InstanceMetadata {
  return {
    providerID: formatProviderID(d.id),
    instanceType: d.sizeSlug,
    nodeAddresses: nodeAddresses(d),
    zone: "",
    region: d.region,
  };
}

export function createInstances(droplets: DropletsApi) {
  async function find(ctx: CallContext, node: Node, listing?: Listing): Promise<Found> {
    const providerID = node.spec?.providerID ?? "";
    if (providerID !== "") {
      const id = parseProviderID(providerID);
      const droplet = listing ? listing.byId.get(id) : await droplets.getDroplet(ctx, id);
      return droplet ? { droplet } : { gone: `the account has no Droplet ${id}` };
    }
    const name = node.metadata?.name ?? "";
    const candidates = listing ? listing.all : await droplets.listDroplets(ctx, { name });
    const droplet = candidates.find((d) => d.name === name);
    return droplet ? { droplet } : { gone: `no Droplet is named "${name}"` };
  }

  async function lookUp(ctx: CallContext, node: Node, op: string): Promise<Found> {
    try {
      return await find(ctx, node);
    } catch (err) {
      throw wrapError(`digitalocean/instances.${op} ${describe(node)}`, err);
    }
  }

  return {
    async instanceExists(ctx, node) {
      return "droplet" in (await lookUp(ctx, node, "instanceExists"));
    },

    async instanceShutdown(ctx, node) {
      const found = await lookUp(ctx, node, "instanceShutdown");
      if ("gone" in found) throw new InstanceNotFoundError(`${describe(node)}: ${found.gone}`);
      return found.droplet.status === "off";
    },

    async instanceMetadata(ctx, node) {
      const found = await lookUp(ctx, node, "instanceMetadata");
      if ("gone" in found) throw new InstanceNotFoundError(`${describe(node)}: ${found.gone}`);
      try {
        return dropletMetadata(found.droplet);
      } catch (err) {
        throw wrapError(`digitalocean/instances.instanceMetadata ${describe(node)}`, err);
      }
    },

    async instanceMetadataBulk(ctx, nodes) {
      const all = await droplets.listDroplets(ctx);
      const listing: Listing = { all, byId: new Map(all.map((d) => [d.id, d])) };
      const result = new Map<string, BulkInstanceInfo | null>();
      for (const node of nodes) {
        const name = node.metadata?.name;
        if (!name) continue;
        try {
          const found = await find(ctx, node, listing);
          // Missing from the listing is not yet gone: the one-by-one path asks for the ID and decides.
          if ("gone" in found) continue;
          result.set(name, { metadata: dropletMetadata(found.droplet), shutdown: found.droplet.status === "off" });
        } catch {
          // Left out of the map: the one-by-one path asks again and reports why.
        }
      }
      return result;
    },
  } satisfies InstancesV2;
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
