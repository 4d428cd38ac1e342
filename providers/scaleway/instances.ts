/**
 * InstancesV2 over Instances and Elastic Metal servers, as scw CCM answers (`scaleway/servers.go`):
 *
 * - A Node's server is found by provider ID (`scaleway://instance|baremetal/<zone>/<uuid>`, one GET in that zone;
 *   the legacy `scaleway://<uuid>` in `SCW_DEFAULT_ZONE`, else in every Instance zone) when the Node has one, else
 *   by its exact name: Instances in every zone first, then Elastic Metal servers. Two servers of one name are an
 *   error, never a guess.
 * - Metadata: provider ID, the Instance's commercial type or the Elastic Metal offer's name, the zone and its region,
 *   and the addresses of addresses.ts.
 * - Shut down: an Instance that is neither `running` nor `starting`, an Elastic Metal server neither `ready` nor
 *   `starting`. Gone — which deletes the Node — only when the API answered 404 for its ID (or no server has its
 *   name); any other failure throws and the Node stays.
 * - The label `k8s.scw.cloud/disable-lifecycle` keeps a Node as existing and running without asking the API.
 *
 * The bulk form lists every zone of both products (⌈servers/100⌉ calls each, one when empty) and each region's
 * IPAM addresses once, instead of calls per Node.
 */
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import { baremetalAddresses, instanceAddresses, withPublicIpLabel } from "./addresses.ts";
import type { InstanceServer, ServersApi } from "./api/servers.ts";
import type { ScalewayConfig } from "./config.ts";
import { type Found, findServer, type Listing, listEverything, regionOf } from "./lookup.ts";
import { formatProviderID } from "./provider-id.ts";

type Server = Exclude<Found, { kind: "gone" }>;

/** scw CCM's label: the Node is left alone by the lifecycle controller. */
export const DISABLE_LIFECYCLE_LABEL = "k8s.scw.cloud/disable-lifecycle";

export interface InstancesDeps {
  readonly servers: ServersApi;
  readonly config: Pick<ScalewayConfig, "zone" | "privateNetworkID">;
}

export function createInstances(deps: InstancesDeps) {
  const { servers, config } = deps;

  /** The IPv4s IPAM books to the server's NICs (the one on PN_ID only, when set). */
  async function nicIPv4s(ctx: CallContext, s: InstanceServer, listing?: Listing): Promise<string[]> {
    const nics = s.privateNics.filter(
      (nic) => config.privateNetworkID === undefined || nic.privateNetworkId === config.privateNetworkID,
    );
    const out: string[] = [];
    for (const nic of nics) {
      const ips = listing
        ? (listing.nicIPv4s.get(nic.id) ?? [])
        : await servers.listNicIPv4s(ctx, regionOf(s.zone), s.project, nic.id);
      out.push(...ips);
    }
    return out;
  }

  async function metadata(ctx: CallContext, node: Node, found: Server, listing?: Listing): Promise<InstanceMetadata> {
    if (found.kind === "instance") {
      const s = found.server;
      return {
        providerID: formatProviderID("instance", s.zone, s.id),
        instanceType: s.commercialType,
        nodeAddresses: withPublicIpLabel(node, instanceAddresses(s, await nicIPv4s(ctx, s, listing))),
        zone: s.zone,
        region: regionOf(s.zone),
      };
    }
    const s = found.server;
    return {
      providerID: formatProviderID("baremetal", s.zone, s.id),
      instanceType: s.offerName,
      nodeAddresses: withPublicIpLabel(node, baremetalAddresses(s)),
      zone: s.zone,
      region: regionOf(s.zone),
    };
  }

  async function lookUp(ctx: CallContext, node: Node, op: string): Promise<Found> {
    try {
      return await findServer(servers, config.zone, ctx, node);
    } catch (err) {
      throw wrapError(`scaleway/instances.${op} ${describe(node)}`, err);
    }
  }

  return {
    async instanceExists(ctx, node) {
      if (lifecycleDisabled(node)) return true;
      return (await lookUp(ctx, node, "instanceExists")).kind !== "gone";
    },

    async instanceShutdown(ctx, node) {
      if (lifecycleDisabled(node)) return false;
      const found = await lookUp(ctx, node, "instanceShutdown");
      if (found.kind === "gone") throw new InstanceNotFoundError(`${describe(node)}: ${found.why}`);
      return isShutdown(found);
    },

    async instanceMetadata(ctx, node) {
      const found = await lookUp(ctx, node, "instanceMetadata");
      if (found.kind === "gone") throw new InstanceNotFoundError(`${describe(node)}: ${found.why}`);
      try {
        return await metadata(ctx, node, found);
      } catch (err) {
        throw wrapError(`scaleway/instances.instanceMetadata ${describe(node)}`, err);
      }
    },

    async instanceMetadataBulk(ctx, nodes) {
      const listing = await listEverything(servers, ctx);
      const result = new Map<string, BulkInstanceInfo | null>();
      for (const node of nodes) {
        const name = node.metadata?.name;
        if (!name) continue;
        try {
          const found = await findServer(servers, config.zone, ctx, node, listing);
          // Missing from the listing is not yet gone: the one-by-one path asks for the ID and decides.
          if (found.kind === "gone") continue;
          const shutdown = lifecycleDisabled(node) ? false : isShutdown(found);
          result.set(name, { metadata: await metadata(ctx, node, found, listing), shutdown });
        } catch {
          // Left out of the map: the one-by-one path asks again and reports why.
        }
      }
      return result;
    },
  } satisfies InstancesV2;
}

function isShutdown(found: Server): boolean {
  if (found.kind === "instance") return found.server.state !== "running" && found.server.state !== "starting";
  return found.server.status !== "ready" && found.server.status !== "starting";
}

function lifecycleDisabled(node: Node): boolean {
  return node.metadata?.labels?.[DISABLE_LIFECYCLE_LABEL] !== undefined;
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
