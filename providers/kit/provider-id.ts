/**
 * Provider IDs: the one error every provider's parser throws, and the common scheme `<scheme>://<id>` with a single
 * pattern for the ID. Kubernetes compares provider IDs as strings, so a scheme reads back only its canonical form
 * (lower-case scheme, two slashes, an ID the pattern accepts, nothing else), and `format` never makes an ID that
 * `parse` would refuse. Providers with several forms (hcloud's Robot IDs, proxmox's two) write their own parser and
 * throw `ProviderIDError` from it.
 */

/** A provider ID that is not of the provider's forms, or a value that cannot form one. */
export class ProviderIDError extends Error {
  override readonly name = "ProviderIDError";
}

export interface ProviderIDSchemeOptions {
  /** `sandbox` for `sandbox://<id>`. */
  readonly scheme: string;
  /** What follows the scheme, as the messages name it: `machine ID`. */
  readonly what: string;
  /** Every accepted ID, anchored. */
  readonly pattern: RegExp;
  /** Longest accepted ID (a Node name's 253, say); default unlimited. */
  readonly maxLength?: number;
}

export interface ProviderIDScheme {
  readonly scheme: string;
  /** `<scheme>://`. */
  readonly prefix: string;
  /** The ID after the prefix; throws `ProviderIDError` saying what is wrong. */
  parse(providerID: string): string;
  /** `parse`, or `undefined` for an ID that is not of this scheme or not readable. */
  tryParse(providerID: string): string | undefined;
  /** `<scheme>://<id>`; throws `ProviderIDError` for an ID `parse` would not read back. */
  format(id: string): string;
}

export function providerIDScheme(options: ProviderIDSchemeOptions): ProviderIDScheme {
  const prefix = `${options.scheme}://`;
  const valid = (id: string) =>
    id.length <= (options.maxLength ?? Number.POSITIVE_INFINITY) && options.pattern.test(id);
  const parse = (providerID: string) => {
    if (!providerID.startsWith(prefix)) {
      throw new ProviderIDError(`provider ID "${providerID}" does not start with "${prefix}"`);
    }
    const id = providerID.slice(prefix.length);
    if (!valid(id))
      throw new ProviderIDError(`provider ID "${providerID}" has no valid ${options.what} after "${prefix}"`);
    return id;
  };
  return {
    scheme: options.scheme,
    prefix,
    parse,
    tryParse(providerID) {
      try {
        return parse(providerID);
      } catch {
        return undefined;
      }
    },
    format(id) {
      if (!valid(id)) throw new ProviderIDError(`${options.what} "${id}" cannot form a provider ID`);
      return `${prefix}${id}`;
    },
  };
}
