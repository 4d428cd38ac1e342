/**
 * Provider IDs of Droplets: `digitalocean://<droplet id>`, the one form DO CCM writes and reads, so Nodes it
 * initialised keep theirs. Stricter than DO CCM's `strconv.Atoi`: a sign, leading zeros or an ID of 0 are refused,
 * since no Droplet has such an ID and Kubernetes compares provider IDs as strings.
 */
import { providerIDScheme } from "../kit/provider-id.ts";

export const digitalOceanProviderIDs = providerIDScheme({
  scheme: "digitalocean",
  what: "Droplet ID",
  pattern: /^[1-9][0-9]{0,15}$/,
});

/** The Droplet ID of `digitalocean://<id>`; throws `ProviderIDError` saying what is wrong. */
export function parseProviderID(providerID: string): number {
  return Number(digitalOceanProviderIDs.parse(providerID));
}

/** `digitalocean://<id>`. */
export function formatProviderID(dropletID: number): string {
  return digitalOceanProviderIDs.format(String(dropletID));
}

/** The Droplet ID of a Node's provider ID, or `undefined` when it is empty or not `digitalocean://<id>`. */
export function tryParseProviderID(providerID: string): number | undefined {
  try {
    return providerID === "" ? undefined : parseProviderID(providerID);
  } catch {
    return undefined;
  }
}
