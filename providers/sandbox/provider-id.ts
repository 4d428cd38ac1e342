/**
 * Provider IDs of the sandbox cloud: `sandbox://<machine id>`, exactly as the simulated cloud reports them in
 * `Machine.providerID`. Kubernetes compares provider IDs as strings, so only the canonical form is accepted:
 * lower-case scheme, two slashes, an ID of letters, digits, `.`, `_` or `-`, and nothing else.
 */
import { providerIDScheme } from "../kit/provider-id.ts";

const scheme = providerIDScheme({ scheme: "sandbox", what: "machine ID", pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*$/ });

/** The machine ID in a `sandbox://<id>` provider ID; throws `ProviderIDError` saying what is wrong. */
export const parseProviderID = scheme.parse;

/** `sandbox://<id>`; throws `ProviderIDError` for an ID that `parseProviderID` would not read back. */
export const formatProviderID = scheme.format;
