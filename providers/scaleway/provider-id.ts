/**
 * Provider IDs of Scaleway servers, as scw CCM writes and reads them (`ServerInfoFromProviderID`,
 * `BuildProviderID` in `scaleway/servers.go`):
 *
 * - `scaleway://instance/<zone>/<uuid>`: an Instance; `scaleway://baremetal/<zone>/<uuid>`: an Elastic Metal server.
 *   These are the forms written.
 * - `scaleway://<uuid>`: the legacy form of early scw CCM versions, an Instance without its zone, which scw CCM looks
 *   up in `SCW_DEFAULT_ZONE`. Read, never written.
 *
 * Stricter than scw CCM's regular expression, which takes any text for the product, zone and ID (so
 * `scaleway://x/y/z/w` reads as product `x`, zone `y`, ID `z/w`, and an unknown product is taken for an Instance):
 * here the product is `instance` or `baremetal`, the zone a zone's shape (`fr-par-1`), the ID a lower-case UUID.
 * A refused ID is an error, never "gone", so a Node with a stray provider ID is never deleted over it.
 */
import { ProviderIDError } from "../kit/provider-id.ts";

export const SCHEME = "scaleway://";

export type Product = "instance" | "baremetal";

export interface ServerRef {
  readonly product: Product;
  /** `undefined` for the legacy `scaleway://<uuid>`. */
  readonly zone: string | undefined;
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ZONE = /^[a-z]{2}-[a-z]{3}-[1-9]$/;

export function isServerId(id: string): boolean {
  return UUID.test(id);
}

export function isZone(zone: string): boolean {
  return ZONE.test(zone);
}

/** The server a provider ID names; throws `ProviderIDError` saying what is wrong. */
export function parseProviderID(providerID: string): ServerRef {
  if (!providerID.startsWith(SCHEME)) {
    throw new ProviderIDError(`provider ID "${providerID}" does not start with "${SCHEME}"`);
  }
  const parts = providerID.slice(SCHEME.length).split("/");
  if (parts.length === 1) {
    const [id = ""] = parts;
    if (!UUID.test(id)) throw new ProviderIDError(`provider ID "${providerID}" has no server UUID after "${SCHEME}"`);
    return { product: "instance", zone: undefined, id };
  }
  const [product = "", zone = "", id = "", ...rest] = parts;
  if (product !== "instance" && product !== "baremetal") {
    throw new ProviderIDError(`provider ID "${providerID}": "${product}" is not instance or baremetal`);
  }
  if (!ZONE.test(zone))
    throw new ProviderIDError(`provider ID "${providerID}": "${zone}" is not a zone such as fr-par-1`);
  if (!UUID.test(id) || rest.length > 0) {
    throw new ProviderIDError(`provider ID "${providerID}" has no server UUID after "${SCHEME}${product}/${zone}/"`);
  }
  return { product, zone, id };
}

/** `scaleway://<product>/<zone>/<uuid>`; throws `ProviderIDError` for a zone or ID `parseProviderID` would refuse. */
export function formatProviderID(product: Product, zone: string, id: string): string {
  if (!ZONE.test(zone)) throw new ProviderIDError(`zone "${zone}" cannot form a provider ID`);
  if (!UUID.test(id)) throw new ProviderIDError(`server ID "${id}" cannot form a provider ID`);
  return `${SCHEME}${product}/${zone}/${id}`;
}
