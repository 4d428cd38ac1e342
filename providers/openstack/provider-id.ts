/**
 * Provider IDs of OpenStack servers, as OCCM writes and reads them (`pkg/openstack/instances.go` `makeInstanceID`,
 * `instanceIDFromProviderID`): `openstack:///<server id>`, or with `OS_CCM_REGIONAL=true`
 * `openstack://<region>/<server id>`. Both forms are read whatever the setting, so Nodes keep theirs when it changes;
 * like OCCM, a bare ID without `://` (Kubernetes #85731) reads as `openstack:///<id>`.
 */
import { ProviderIDError } from "../kit/provider-id.ts";

export const SCHEME = "openstack";

export interface ServerRef {
  readonly id: string;
  /** The region the ID names; `undefined` for `openstack:///<id>`. */
  readonly region: string | undefined;
}

const FORM = /^openstack:\/\/([^/\s]*)\/([^/\s]+)$/;

/** The server (and region) of a provider ID; throws `ProviderIDError` saying the accepted forms. */
export function parseProviderID(providerID: string): ServerRef {
  const full = providerID !== "" && !providerID.includes("://") ? `${SCHEME}:///${providerID}` : providerID;
  const m = FORM.exec(full);
  if (!m) {
    throw new ProviderIDError(
      `provider ID "${providerID}" is not of the forms openstack:///<server id> or openstack://<region>/<server id>`,
    );
  }
  return { id: m[2] as string, region: m[1] === "" ? undefined : m[1] };
}

/** `openstack:///<id>`, or `openstack://<region>/<id>` when a region is given. */
export function formatProviderID(id: string, region?: string): string {
  if (!/^[^/\s]+$/.test(id)) throw new ProviderIDError(`server ID "${id}" cannot form a provider ID`);
  if (region !== undefined && !/^[^/\s]+$/.test(region)) {
    throw new ProviderIDError(`region "${region}" cannot form a provider ID`);
  }
  return `${SCHEME}://${region ?? ""}/${id}`;
}
