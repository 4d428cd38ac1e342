/**
 * Provider IDs of Hetzner servers, in every form hcloud-cloud-controller-manager ever wrote, so that Nodes it
 * initialised keep theirs (a Node whose ID stops parsing is abandoned):
 *
 * - `hcloud://<server id>`: a Cloud server.
 * - `hrobot://<server number>`: a Robot (dedicated) server; what we write for new Robot Nodes.
 * - `hcloud://bm-<server number>`: a Robot server as the Syself fork of hccm wrote it; read, never written. It shares
 *   the `hcloud://` prefix, so it is tried first.
 *
 * Stricter than hccm, which hands the rest to Go's `ParseInt` after deleting every copy of the prefix: a sign, a
 * repeated prefix or an ID of 0 is refused here, since no Hetzner server has such an ID. Leading zeros are read
 * (hccm reads them), and the ID formats back without them.
 */
import { ProviderIDError } from "../kit/provider-id.ts";

export const cloudScheme = "hcloud";
export const robotScheme = "hrobot";
const cloudPrefix = `${cloudScheme}://`;
const robotPrefix = `${robotScheme}://`;
const legacyRobotPrefix = `${cloudPrefix}bm-`;
const DIGITS = /^[0-9]+$/;

export type ParsedProviderID =
  | { readonly kind: "cloud"; readonly id: number }
  | { readonly kind: "robot"; readonly number: number; readonly legacy: boolean };

/** Any accepted form; throws `ProviderIDError` saying what is wrong. */
export function parseProviderID(providerID: string): ParsedProviderID {
  if (providerID.startsWith(legacyRobotPrefix)) {
    return { kind: "robot", number: serverID(providerID, legacyRobotPrefix), legacy: true };
  }
  if (providerID.startsWith(robotPrefix)) {
    return { kind: "robot", number: serverID(providerID, robotPrefix), legacy: false };
  }
  if (providerID.startsWith(cloudPrefix)) return { kind: "cloud", id: serverID(providerID, cloudPrefix) };
  throw new ProviderIDError(
    `provider ID "${providerID}" has none of the prefixes ${cloudPrefix}, ${robotPrefix} and ${legacyRobotPrefix}`,
  );
}

/** `parseProviderID`, or `undefined` for an ID that is not ours or not readable. */
export function tryParseProviderID(providerID: string): ParsedProviderID | undefined {
  try {
    return parseProviderID(providerID);
  } catch {
    return undefined;
  }
}

/** `hcloud://<id>`. */
export function formatCloudProviderID(id: number): string {
  return `${cloudPrefix}${checkedID(id, "Cloud server ID")}`;
}

/** `hrobot://<number>`: the canonical form, also for a server first seen under the legacy `hcloud://bm-` form. */
export function formatRobotProviderID(number: number): string {
  return `${robotPrefix}${checkedID(number, "Robot server number")}`;
}

function serverID(providerID: string, prefix: string): number {
  const rest = providerID.slice(prefix.length);
  if (rest === "") throw new ProviderIDError(`provider ID "${providerID}" has no server ID after "${prefix}"`);
  if (!DIGITS.test(rest)) {
    throw new ProviderIDError(`provider ID "${providerID}" has "${rest}" after "${prefix}", which is not a server ID`);
  }
  const id = Number(rest);
  if (id === 0 || !Number.isSafeInteger(id)) {
    throw new ProviderIDError(
      `provider ID "${providerID}" has server ID ${rest}, outside 1-${Number.MAX_SAFE_INTEGER}`,
    );
  }
  return id;
}

function checkedID(id: number, what: string): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new ProviderIDError(`${what} ${id} cannot form a provider ID`);
  return id;
}
