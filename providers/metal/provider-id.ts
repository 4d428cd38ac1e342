/**
 * Provider IDs of the metal provider: `metal://<machine name>` by default (the inventory may give any other stable
 * string). Only the canonical form is read back: lower-case scheme, two slashes, a name that is a valid Node name
 * (lower-case letters, digits, `-` and `.`), nothing else.
 */
import { providerIDScheme } from "../kit/provider-id.ts";

const scheme = providerIDScheme({
  scheme: "metal",
  what: "machine name",
  pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
  maxLength: 253,
});

/** The machine name in a `metal://<name>` provider ID; throws `ProviderIDError` saying what is wrong. */
export const parseProviderID = scheme.parse;

/** `metal://<name>`; throws `ProviderIDError` for a name `parseProviderID` would not read back. */
export const formatProviderID = scheme.format;
