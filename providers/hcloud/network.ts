/**
 * `HCLOUD_NETWORK` resolved to its network's ID once (a name costs a listing; an ID is checked to exist), shared by
 * instances and routes. A network that is not there is an error naming the setting, never "no InternalIP": a
 * typo must not silently strip every Node of its private address.
 */
import type { CallContext } from "../cloud.ts";
import type { CloudNetwork, HcloudNetworksApi } from "./api/networks.ts";

export interface NetworkRef {
  /** What `HCLOUD_NETWORK` says: a name or an ID. */
  readonly setting: string;
  /** The network's ID, looked up on the first call. */
  id(ctx: CallContext): Promise<number>;
  /** The network as it is now, with its routes (one call). */
  read(ctx: CallContext): Promise<CloudNetwork>;
}

export function networkRef(networks: HcloudNetworksApi, setting: string): NetworkRef {
  let resolved: number | undefined;
  const read = async (ctx: CallContext): Promise<CloudNetwork> => {
    const network = await networks.getNetwork(ctx, resolved === undefined ? setting : String(resolved));
    if (!network) {
      throw new Error(
        `HCLOUD_NETWORK=${setting}: the project has no network with this ${/^[0-9]+$/.test(setting) ? "ID" : "name"}; set it to the name or ID of the cluster's private network (hcloud network list)`,
      );
    }
    resolved = network.id;
    return network;
  };
  /** The first lookup in flight, shared so a bulk lookup's concurrent callers cost one call. */
  let pending: Promise<number> | undefined;
  return {
    setting,
    read,
    async id(ctx) {
      if (resolved !== undefined) return resolved;
      pending ??= read(ctx)
        .then((n) => n.id)
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
  };
}
