/**
 * InstancesV2 over Hetzner Cloud servers and, with `ROBOT_ENABLED`, Robot dedicated servers (hccm's hybrid mode).
 *
 * Finding a Node's server (`find`), as hccm does: by provider ID when the Node has one (`hcloud://<id>` asks the
 * Cloud API, `hrobot://<n>` and `hcloud://bm-<n>` ask Robot), else by name in both APIs — a name in both is an
 * error, since either answer could be wrong. A Robot server whose name no longer matches the Node (CAPH reuses
 * servers across clusters) is gone for this Node, with hccm's `PossibleNodeDeletion` Warning event; an InternalIP
 * not forwarded gets its `MisconfiguredInternalIP` (node-warnings.ts).
 *
 * What "gone" means, because gone deletes the Node: only an API that answered "no such server". A Robot Node while
 * Robot is off or has no credentials, an unreadable provider ID, a network or API error: each throws, and the Node
 * stays. The bulk form lists every Cloud server in one paged listing (⌈servers/50⌉ calls) and, when a Node needs
 * it, Robot's list once; Nodes it cannot answer for are left out of its map for the one-by-one path to explain.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import { loggedWarnings, type WarningRecorder } from "../kit/warning-events.ts";
import type { RobotApi, RobotServer } from "./api/robot.ts";
import type { CloudServer, HcloudServersApi } from "./api/servers.ts";
import type { HcloudConfig } from "./config.ts";
import { cloudMetadata, robotMetadata } from "./metadata.ts";
import type { NetworkRef } from "./network.ts";
import { RobotNodeReasons } from "./node-warnings.ts";
import { parseProviderID } from "./provider-id.ts";

export interface InstancesDeps {
  readonly servers: HcloudServersApi;
  /** Present when `ROBOT_ENABLED` with credentials; Robot Nodes are an error without it. */
  readonly robot?: RobotApi | undefined;
  readonly network?: NetworkRef | undefined;
  readonly config: {
    readonly instances: HcloudConfig["instances"];
    readonly robot: Pick<HcloudConfig["robot"], "enabled" | "forwardInternalIPs">;
  };
  readonly logger?: ConsolaInstance | undefined;
  /** hccm's Warning events on Robot Nodes; default the log alone. */
  readonly warnings?: WarningRecorder<Node> | undefined;
}

export type Found =
  | { readonly kind: "cloud"; readonly server: CloudServer }
  | { readonly kind: "robot"; readonly server: RobotServer }
  | { readonly kind: "gone"; readonly why: string };

/** Cloud servers by ID and by name, and Robot's list, when a bulk lookup has them in hand. */
interface Listings {
  readonly cloudById: ReadonlyMap<number, CloudServer>;
  readonly cloudByName: ReadonlyMap<string, CloudServer>;
  readonly robot?: readonly RobotServer[];
}

export function createInstances(deps: InstancesDeps) {
  const { servers, robot, config, logger } = deps;
  const warnings = deps.warnings ?? loggedWarnings<Node>(Resources.nodes, logger);

  function robotApi(node: Node): RobotApi {
    if (robot) return robot;
    const why = config.robot.enabled
      ? "ROBOT_ENABLED is set but ROBOT_USER and ROBOT_PASSWORD are not"
      : "Robot support is off: set ROBOT_ENABLED=true, ROBOT_USER and ROBOT_PASSWORD";
    throw new Error(`${describe(node)} is a Robot (dedicated) server, and ${why}; the Node is kept as it is`);
  }

  /**
   * Robot's answer for a number, or gone when it has none or it now carries another name. `quiet` for the bulk
   * path's listing pass: a Node gone there is asked for again one by one, which warns.
   */
  function robotFound(node: Node, number: number, server: RobotServer | undefined, quiet: boolean): Found {
    if (!server) return { kind: "gone", why: `Robot has no server ${number}` };
    const name = node.metadata?.name ?? "";
    if (server.name !== name) {
      if (!quiet) {
        warnings.warn(
          node,
          RobotNodeReasons.possibleNodeDeletion,
          `Robot server ${number} is now named "${server.name}", not "${name}": the Node counts as gone for this cluster and may be deleted`,
        );
      }
      return { kind: "gone", why: `Robot server ${number} is named "${server.name}", not "${name}"` };
    }
    return { kind: "robot", server };
  }

  async function find(ctx: CallContext, node: Node, listings?: Listings): Promise<Found> {
    const name = node.metadata?.name ?? "";
    const providerID = node.spec?.providerID ?? "";
    if (providerID !== "") {
      const parsed = parseProviderID(providerID);
      if (parsed.kind === "cloud") {
        const server = listings ? listings.cloudById.get(parsed.id) : await servers.getServer(ctx, parsed.id);
        return server ? { kind: "cloud", server } : { kind: "gone", why: `the project has no server ${parsed.id}` };
      }
      const api = robotApi(node);
      const server = listings?.robot
        ? listings.robot.find((s) => s.number === parsed.number)
        : await api.getServer(ctx, parsed.number);
      return robotFound(node, parsed.number, server, listings !== undefined);
    }
    const cloud = listings
      ? listings.cloudByName.get(name)
      : (await servers.listServers(ctx, { name })).find((s) => s.name === name);
    const robotList = robot ? (listings?.robot ?? (await robot.listServers(ctx))) : [];
    const dedicated = robotList.find((s) => s.name === name);
    if (cloud && dedicated) {
      throw new Error(
        `${describe(node)}: both Cloud server ${cloud.id} and Robot server ${dedicated.number} are named "${name}"; rename one, or set the Node's spec.providerID`,
      );
    }
    if (cloud) return { kind: "cloud", server: cloud };
    if (dedicated) return { kind: "robot", server: dedicated };
    return { kind: "gone", why: `no Cloud${robot ? " or Robot" : ""} server is named "${name}"` };
  }

  async function metadataOf(ctx: CallContext, node: Node, found: Exclude<Found, { kind: "gone" }>) {
    if (found.kind === "cloud") {
      const networkId = deps.network ? await deps.network.id(ctx) : undefined;
      return cloudMetadata(found.server, { ...config.instances, networkId });
    }
    const { metadata, warnings: notForwarded } = robotMetadata(found.server, node, {
      addressFamily: config.instances.addressFamily,
      forwardInternalIPs: config.robot.forwardInternalIPs,
    });
    for (const w of notForwarded) warnings.warn(node, RobotNodeReasons.misconfiguredInternalIP, w);
    return metadata;
  }

  async function isShutdown(ctx: CallContext, node: Node, found: Exclude<Found, { kind: "gone" }>) {
    if (found.kind === "cloud") return found.server.status === "off";
    return (await robotApi(node).powerState(ctx, found.server.number)) === "shut off";
  }

  async function lookUp(ctx: CallContext, node: Node, op: string): Promise<Found> {
    try {
      return await find(ctx, node);
    } catch (err) {
      throw wrapError(`hcloud/instances.${op} ${describe(node)}`, err);
    }
  }

  /** Listings for a bulk lookup: every Cloud server, and Robot's list when a Node may be a Robot server. */
  async function listingsFor(ctx: CallContext, nodes: readonly Node[]): Promise<Listings> {
    const cloud = await servers.listServers(ctx);
    const cloudById = new Map(cloud.map((s) => [s.id, s]));
    const cloudByName = new Map(cloud.map((s) => [s.name, s]));
    const needsRobot = nodes.some((n) => {
      const id = n.spec?.providerID ?? "";
      return id === "" || !id.startsWith("hcloud://") || id.startsWith("hcloud://bm-");
    });
    if (!robot || !needsRobot) return { cloudById, cloudByName };
    return { cloudById, cloudByName, robot: await robot.listServers(ctx) };
  }

  return {
    async instanceExists(ctx, node) {
      return (await lookUp(ctx, node, "instanceExists")).kind !== "gone";
    },

    async instanceShutdown(ctx, node) {
      const found = await lookUp(ctx, node, "instanceShutdown");
      if (found.kind === "gone") throw new InstanceNotFoundError(`${describe(node)}: ${found.why}`);
      try {
        return await isShutdown(ctx, node, found);
      } catch (err) {
        throw wrapError(`hcloud/instances.instanceShutdown ${describe(node)}`, err);
      }
    },

    async instanceMetadata(ctx, node) {
      const found = await lookUp(ctx, node, "instanceMetadata");
      if (found.kind === "gone") throw new InstanceNotFoundError(`${describe(node)}: ${found.why}`);
      try {
        return await metadataOf(ctx, node, found);
      } catch (err) {
        throw wrapError(`hcloud/instances.instanceMetadata ${describe(node)}`, err);
      }
    },

    async instanceMetadataBulk(ctx, nodes) {
      const listings = await listingsFor(ctx, nodes);
      const result = new Map<string, BulkInstanceInfo | null>();
      await Promise.all(
        nodes.map(async (node) => {
          const name = node.metadata?.name;
          if (!name) return;
          try {
            // A server missing from the listing is asked for on its own before the Node is called gone: a server
            // deleted while the pages were read shifts later ones onto pages already read.
            let found = await find(ctx, node, listings);
            if (found.kind === "gone") found = await find(ctx, node);
            if (found.kind === "gone") {
              result.set(name, null);
              return;
            }
            const metadata: InstanceMetadata = await metadataOf(ctx, node, found);
            result.set(name, { metadata, shutdown: await isShutdown(ctx, node, found) });
          } catch (err) {
            // Left out of the map: the one-by-one path asks again and reports why.
            logger?.debug(`hcloud/instances.instanceMetadataBulk ${describe(node)}: ${(err as Error).message}`);
          }
        }),
      );
      return result;
    },
  } satisfies InstancesV2;
}

function describe(node: Node): string {
  const name = node.metadata?.name ?? "(unnamed)";
  return node.spec?.providerID ? `node "${name}" (${node.spec.providerID})` : `node "${name}"`;
}
