/**
 * The scaleway provider's configuration: scw CCM's environment variables, with its names and meanings
 * (`scaleway/cloud.go` and the Scaleway SDK's `scw.WithEnv()`), so a scw CCM Deployment works unchanged. A
 * `--cloud-config` file may carry the same settings under the same names (scw CCM has none of its own; like it,
 * the provider reads no `~/.config/scw/config.yaml` profile); the environment wins:
 *
 * ```yaml
 * SCW_ACCESS_KEY: SCWXXXXXXXXXXXXXXXXX
 * SCW_SECRET_KEY_FILE: /etc/scaleway/secret-key
 * SCW_DEFAULT_REGION: fr-par
 * ```
 *
 * Stricter than scw CCM, which fails late (or never) on a malformed key, zone or `DISABLE_INTERFACES` entry: every
 * problem of both sources is one `ConfigError` naming each variable; the secret key never appears in it. An empty
 * value counts as unset. The load-balancer settings are read and checked now, for the load balancers to come.
 */
import * as v from "valibot";
import { type NamedSettings, readNamedSettings } from "../kit/named-settings.ts";
import { defaultApiUrl } from "./api/client.ts";

const source = "the scaleway configuration (environment and cloud-config)";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const uuid = (what: string) => v.optional(v.pipe(v.string(), v.regex(UUID, `must be ${what}: a lower-case UUID`)));
const interfaces = ["instances", "loadbalancer", "zones"] as const;

/** Every variable the provider reads, by the name scw CCM gives it. */
const entries = {
  SCW_ACCESS_KEY: v.optional(
    v.pipe(v.string(), v.regex(/^SCW[A-Z0-9]{17}$/, "must be an API key's access key: SCW and 17 capitals or digits")),
  ),
  SCW_SECRET_KEY: uuid("an API key's secret key"),
  SCW_DEFAULT_PROJECT_ID: uuid("a project ID"),
  SCW_DEFAULT_ORGANIZATION_ID: uuid("an organization ID"),
  SCW_DEFAULT_REGION: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}-[a-z]{3}$/, "must be a region such as fr-par"))),
  SCW_DEFAULT_ZONE: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z]{2}-[a-z]{3}-[1-9]$/, "must be a zone such as fr-par-1")),
  ),
  SCW_API_URL: v.optional(
    v.pipe(
      v.string(),
      v.check(isHttpUrl, "must be an http(s) URL such as https://api.scaleway.com"),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
    defaultApiUrl,
  ),
  PN_ID: uuid("a private network's ID"),
  LB_DEFAULT_TYPE: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,32}$/, "must be a load balancer type such as LB-S or LB-GP-M")),
  ),
  SCW_CCM_PREFIX: v.optional(v.pipe(v.string(), v.maxLength(64, "must be at most 64 characters"))),
  SCW_CCM_TAGS: v.optional(v.string()),
  SCW_CCM_TAGS_DELIMITER: v.optional(v.pipe(v.string(), v.length(1, "must be one character")), ","),
  EXTRA_USER_AGENT: v.optional(v.pipe(v.string(), v.regex(/^[\x20-\x7e]+$/, "must be printable ASCII"))),
  DISABLE_INTERFACES: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) =>
        s
          .split(",")
          .map((p) => p.trim().toLowerCase())
          .filter((p) => p !== ""),
      ),
      v.check(
        (list) => list.every((p) => (interfaces as readonly string[]).includes(p)),
        `must be a comma-separated list of ${interfaces.join(", ")}`,
      ),
    ),
    "",
  ),
  DISABLE_TAGS_SYNC: v.optional(v.string()),
};

export const scalewaySettingNames = Object.keys(entries) as (keyof typeof entries)[];

export const scalewayNamedSettings: NamedSettings = {
  provider: "scaleway",
  known: scalewaySettingNames,
  secrets: ["SCW_SECRET_KEY"],
  prefix: /^SCW_/,
  // The Scaleway CLI's and SDKs' own variables, which scw CCM's SDK client ignores too.
  foreign: ["SCW_PROFILE", "SCW_CONFIG_PATH", "SCW_INSECURE", "SCW_DEBUG", "SCW_CACHE_DIR", "SCW_ENABLE_BETA"],
  fileKeys: "keys are scw CCM's environment variable names",
};

const required = (key: string, message: string, input: Record<string, unknown>) => ({
  message,
  path: [{ type: "object" as const, origin: "value" as const, input, key, value: undefined }] as [v.IssuePathItem],
});

export const scalewayConfigSchema = v.pipe(
  v.object(entries),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const input = c as Record<string, unknown>;
    if (c.SCW_ACCESS_KEY === undefined) {
      addIssue(required("SCW_ACCESS_KEY", "is required: the access key of the API key the manager uses", input));
    }
    if (c.SCW_SECRET_KEY === undefined) {
      addIssue(required("SCW_SECRET_KEY", "is required: the API key's secret key (or SCW_SECRET_KEY_FILE)", input));
    }
    if (c.SCW_DEFAULT_REGION === undefined) {
      addIssue(required("SCW_DEFAULT_REGION", "is required, as by scw CCM: a region such as fr-par", input));
    }
  }),
  v.transform((c) => {
    const disabled = c.DISABLE_INTERFACES as readonly string[];
    return {
      accessKey: c.SCW_ACCESS_KEY ?? "",
      secretKey: c.SCW_SECRET_KEY ?? "",
      projectID: c.SCW_DEFAULT_PROJECT_ID,
      organizationID: c.SCW_DEFAULT_ORGANIZATION_ID,
      region: c.SCW_DEFAULT_REGION ?? "",
      zone: c.SCW_DEFAULT_ZONE,
      apiUrl: c.SCW_API_URL,
      privateNetworkID: c.PN_ID,
      loadBalancer: {
        defaultType: c.LB_DEFAULT_TYPE,
        prefix: c.SCW_CCM_PREFIX ?? "",
        tags: (c.SCW_CCM_TAGS ?? "").split(c.SCW_CCM_TAGS_DELIMITER).filter((t) => t !== ""),
      },
      extraUserAgent: c.EXTRA_USER_AGENT,
      disabled: {
        instances: disabled.includes("instances"),
        loadBalancer: disabled.includes("loadbalancer"),
        zones: disabled.includes("zones"),
      },
      tagsSync: c.DISABLE_TAGS_SYNC === undefined,
    };
  }),
);

export type ScalewayConfig = v.InferOutput<typeof scalewayConfigSchema>;

export interface ReadConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  readonly configSource: string | undefined;
  readonly readFile: (path: string) => Promise<string>;
}

/** Reads both sources and validates them; throws one `ConfigError` listing every problem, naming each variable. */
export async function readScalewayConfig(
  input: ReadConfigInput,
): Promise<{ config: ScalewayConfig; warnings: string[] }> {
  const { value } = await readNamedSettings(scalewayNamedSettings, input, {
    schema: scalewayConfigSchema,
    source,
    fileShape: "a mapping of scw CCM's variable names to values",
  });
  const warnings: string[] = [];
  if (value.zone !== undefined && !value.zone.startsWith(`${value.region}-`)) {
    warnings.push(
      `SCW_DEFAULT_ZONE=${value.zone} is not in SCW_DEFAULT_REGION=${value.region}: legacy provider IDs (scaleway://<uuid>) are looked up in ${value.zone}`,
    );
  }
  if (value.tagsSync) {
    warnings.push(
      "DISABLE_TAGS_SYNC is not set, but syncing server tags to Node labels and taints is not part of this provider yet: no labels or taints are synced",
    );
  }
  return { config: value, warnings };
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
