/**
 * Provider IDs of the sandbox cloud: `sandbox://<machine id>`, exactly as the simulated cloud reports them in
 * `Machine.providerID`. Kubernetes compares provider IDs as strings, so only the canonical form is accepted:
 * lower-case scheme, two slashes, an ID of letters, digits, `.`, `_` or `-`, and nothing else.
 */

export const providerIDScheme = "sandbox";
const prefix = `${providerIDScheme}://`;
const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class ProviderIDError extends Error {
  override readonly name = "ProviderIDError";
}

/** The machine ID in a `sandbox://<id>` provider ID; throws `ProviderIDError` saying what is wrong. */
export function parseProviderID(providerID: string): string {
  if (!providerID.startsWith(prefix)) {
    throw new ProviderIDError(`provider ID "${providerID}" does not start with "${prefix}"`);
  }
  const id = providerID.slice(prefix.length);
  if (!idPattern.test(id)) {
    throw new ProviderIDError(`provider ID "${providerID}" has no valid machine ID after "${prefix}"`);
  }
  return id;
}

/** `sandbox://<id>`; throws `ProviderIDError` for an ID that `parseProviderID` would not read back. */
export function formatProviderID(id: string): string {
  if (!idPattern.test(id)) throw new ProviderIDError(`machine ID "${id}" cannot form a provider ID`);
  return `${prefix}${id}`;
}
