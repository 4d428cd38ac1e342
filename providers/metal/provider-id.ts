/**
 * Provider IDs of the metal provider: `metal://<machine name>` by default (the inventory may give any other stable
 * string). Only the canonical form is read back: lower-case scheme, two slashes, a name that is a valid Node name
 * (lower-case letters, digits, `-` and `.`), nothing else.
 */

export const providerIDScheme = "metal";
const prefix = `${providerIDScheme}://`;
const namePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class ProviderIDError extends Error {
  override readonly name = "ProviderIDError";
}

/** The machine name in a `metal://<name>` provider ID; throws `ProviderIDError` saying what is wrong. */
export function parseProviderID(providerID: string): string {
  if (!providerID.startsWith(prefix)) {
    throw new ProviderIDError(`provider ID "${providerID}" does not start with "${prefix}"`);
  }
  const name = providerID.slice(prefix.length);
  if (name.length > 253 || !namePattern.test(name)) {
    throw new ProviderIDError(`provider ID "${providerID}" has no valid machine name after "${prefix}"`);
  }
  return name;
}

/** `metal://<name>`; throws `ProviderIDError` for a name `parseProviderID` would not read back. */
export function formatProviderID(name: string): string {
  if (name.length > 253 || !namePattern.test(name)) {
    throw new ProviderIDError(`machine name "${name}" cannot form a provider ID`);
  }
  return `${prefix}${name}`;
}
