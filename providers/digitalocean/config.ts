/**
 * The digitalocean provider's configuration: DO CCM's environment variables, with its names and meanings
 * (`cloud-controller-manager/do/cloud.go`), so a DO CCM Deployment works unchanged. A `--cloud-config` file may
 * carry the same settings under the same names (DO CCM has no file of its own); the environment wins:
 *
 * ```yaml
 * DO_ACCESS_TOKEN_FILE: /etc/digitalocean/token
 * REGION: nyc3
 * DO_CLUSTER_ID: 9f1c1e4e-0b5c-4d6a-9e2a-4c3d0e6f7a81
 * ```
 *
 * Stricter than DO CCM, which ignores a `DEFAULT_LB_TYPE` it does not know and fails late on a bad region: every
 * problem of both sources is one `ConfigError` naming each variable; the token never appears in it. An empty
 * value counts as unset. DO CCM's debug and metrics variables are accepted and said to have no effect.
 *
 * `REGION` unset is asked of the Droplet metadata service when the provider starts (region.ts), as DO CCM asks it;
 * `DO_METADATA_URL`, ours, points that question elsewhere (an emulator's, in tests).
 */
import * as v from "valibot";
import type { RateLimit } from "../cloud.ts";
import { type NamedSettings, readNamedSettings } from "../kit/named-settings.ts";
import { defaultApiUrl, digitalOceanRateLimit } from "./api/client.ts";

export const defaultMetadataUrl = "http://169.254.169.254";

/** The API document's firewall name pattern. */
const firewallName = /^[a-zA-Z0-9][a-zA-Z0-9.-]+$/;
/** The API document's tag name pattern. */
const tagName = /^[a-zA-Z0-9_\-:]{1,255}$/;

const source = "the digitalocean configuration (environment and cloud-config)";

const optionalText = (message: string, pattern: RegExp) => v.optional(v.pipe(v.string(), v.regex(pattern, message)));

/** Every variable the provider reads, by the name DO CCM gives it. */
const entries = {
  DO_ACCESS_TOKEN: optionalText(
    "must be a DigitalOcean API token: printable characters without spaces",
    /^[\x21-\x7e]+$/,
  ),
  DO_OVERRIDE_URL: v.optional(
    v.pipe(
      v.string(),
      v.check(isHttpUrl, "must be an http(s) URL such as https://api.digitalocean.com"),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
    defaultApiUrl,
  ),
  REGION: optionalText("must be a region slug such as nyc3 or fra1", /^[a-z]{3}[0-9]$/),
  DO_CLUSTER_ID: optionalText(
    "must be the cluster's ID: letters, digits, '-', '_' or '.', at most 200",
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/,
  ),
  DO_CLUSTER_VPC_ID: optionalText("must be a VPC's UUID", /^[0-9a-fA-F-]{36}$/),
  DO_API_RATE_LIMIT_QPS: v.optional(
    v.pipe(
      v.string(),
      v.transform(Number),
      v.check((n) => Number.isFinite(n) && n > 0 && n <= 1000, "must be a number of requests a second, 0.01–1000"),
    ),
  ),
  DEFAULT_LB_TYPE: v.optional(
    v.picklist(["REGIONAL", "REGIONAL_NETWORK"], "must be REGIONAL or REGIONAL_NETWORK"),
    "REGIONAL_NETWORK",
  ),
  PUBLIC_ACCESS_FIREWALL_NAME: optionalText(
    "must be a firewall name: letters, digits, '.' or '-', at least 2, starting with a letter or digit",
    firewallName,
  ),
  PUBLIC_ACCESS_FIREWALL_TAGS: v.optional(
    v.pipe(
      v.string(),
      v.transform((text) => text.split(",").map((tag) => tag.trim())),
      v.check(
        (tags) => tags.every((tag) => tagName.test(tag)),
        "must be a comma-separated list of tags: letters, digits, '_', '-' or ':' (at most 255 each)",
      ),
    ),
  ),
  DO_METADATA_URL: v.optional(
    v.pipe(
      v.string(),
      v.check(isHttpUrl, "must be an http(s) URL such as http://169.254.169.254"),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
    defaultMetadataUrl,
  ),
  DEBUG_ADDR: v.optional(v.string()),
  METRICS_ADDR: v.optional(v.string()),
};

export const digitalOceanSettingNames = Object.keys(entries) as (keyof typeof entries)[];

/** The settings that DO CCM reads but that change nothing here; each one set is a warning at start. */
const withoutEffect = ["DEBUG_ADDR", "METRICS_ADDR"];

export const digitalOceanNamedSettings: NamedSettings = {
  provider: "digitalocean",
  known: digitalOceanSettingNames,
  secrets: ["DO_ACCESS_TOKEN"],
  prefix: /^DO_/,
  fileKeys: "keys are DO CCM's environment variable names",
};

export const digitalOceanConfigSchema = v.pipe(
  v.object(entries),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const missing = (key: string, message: string) =>
      addIssue({ message, path: [{ type: "object", origin: "value", input: c, key, value: undefined }] });
    if (c.DO_ACCESS_TOKEN === undefined) {
      missing(
        "DO_ACCESS_TOKEN",
        "is required: a DigitalOcean API token with read and write scope (or DO_ACCESS_TOKEN_FILE)",
      );
    }
    // upstream: cloud-controller-manager/do/cloud.go newCloud: both firewall variables or neither.
    if (c.PUBLIC_ACCESS_FIREWALL_NAME !== undefined && c.PUBLIC_ACCESS_FIREWALL_TAGS === undefined) {
      missing(
        "PUBLIC_ACCESS_FIREWALL_TAGS",
        "is required with PUBLIC_ACCESS_FIREWALL_NAME: the tags of the Droplets the firewall protects",
      );
    }
    if (c.PUBLIC_ACCESS_FIREWALL_TAGS !== undefined && c.PUBLIC_ACCESS_FIREWALL_NAME === undefined) {
      missing(
        "PUBLIC_ACCESS_FIREWALL_NAME",
        "is required with PUBLIC_ACCESS_FIREWALL_TAGS: the name of the firewall to manage",
      );
    }
  }),
  v.transform((c) => ({
    token: c.DO_ACCESS_TOKEN ?? "",
    apiUrl: c.DO_OVERRIDE_URL,
    region: c.REGION,
    clusterID: c.DO_CLUSTER_ID,
    vpcID: c.DO_CLUSTER_VPC_ID,
    defaultLoadBalancerType: c.DEFAULT_LB_TYPE,
    metadataUrl: c.DO_METADATA_URL,
    firewall:
      c.PUBLIC_ACCESS_FIREWALL_NAME && c.PUBLIC_ACCESS_FIREWALL_TAGS
        ? { name: c.PUBLIC_ACCESS_FIREWALL_NAME, tags: c.PUBLIC_ACCESS_FIREWALL_TAGS }
        : undefined,
    rateLimit: (c.DO_API_RATE_LIMIT_QPS === undefined
      ? digitalOceanRateLimit
      : { qps: c.DO_API_RATE_LIMIT_QPS, burst: Math.max(1, Math.ceil(c.DO_API_RATE_LIMIT_QPS)) }) as RateLimit,
  })),
);

export type DigitalOceanConfig = v.InferOutput<typeof digitalOceanConfigSchema>;

export interface ReadConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  readonly configSource: string | undefined;
  readonly readFile: (path: string) => Promise<string>;
}

/** Reads both sources and validates them; throws one `ConfigError` listing every problem, naming each variable. */
export async function readDigitalOceanConfig(
  input: ReadConfigInput,
): Promise<{ config: DigitalOceanConfig; warnings: string[] }> {
  const { value, settings } = await readNamedSettings(digitalOceanNamedSettings, input, {
    schema: digitalOceanConfigSchema,
    source,
    fileShape: "a mapping of DO CCM's variable names to values",
  });
  const warnings = withoutEffect
    .filter((name) => settings.has(name))
    .map((name) => `${name} has no effect here: the manager serves health and metrics on --secure-port`);
  return { config: value, warnings };
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
