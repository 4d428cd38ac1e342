/**
 * The openstack provider's configuration: OCCM's `cloud.conf` (`--cloud-config`), with every section and key OCCM's
 * `ReadConfig` reads (`pkg/openstack/openstack.go`, `pkg/client/client.go` `AuthOpts`, `pkg/util/metadata`), under
 * the same names and defaults, so an OCCM Secret works unchanged:
 *
 * ```ini
 * [Global]
 * auth-url = https://keystone.example.com:5000/v3
 * application-credential-id = 3c4c…
 * application-credential-secret = "…"
 * region = RegionOne
 * ```
 *
 * Stricter than OCCM, whose gcfg reader ignores what it does not know (`gcfg.FatalOnly`) and which logs a warning for
 * a bad `address-sort-order` item or `lb-provider`: an unknown section or key, a value of the wrong kind, a missing
 * credential and an invalid CIDR are one `ConfigError` naming each `[Section] key`, secrets never shown. The
 * `[Route]` keys, `manage-security-groups` and `max-shared-lb` are read and validated, but nothing acts on them yet
 * (routes, security groups and shared load balancers come later).
 */
import * as v from "valibot";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import { issuesOf } from "../../config/validate.ts";
import { tryParseCIDR } from "../../net/cidr.ts";
import { parseDuration } from "../kit/duration.ts";
import type { ReadFile } from "../kit/secret-file.ts";
import { type AuthOptions, resolveAuth } from "./auth-options.ts";
import { type CloudConfShape, keyPath, readCloudConf, type SectionValues } from "./cloud-conf.ts";

const text = (what: string, pattern = /^\S(.*\S)?$/) =>
  v.optional(v.pipe(v.string(), v.regex(pattern, `must be ${what}`)));
const id = (what: string) => text(`${what}: no spaces`, /^\S+$/);

/** gcfg's booleans (`types.ParseBool`): a key without a value is `true`. */
const bool = (fallback: boolean) =>
  v.optional(
    v.pipe(
      v.string(),
      v.toLowerCase(),
      v.picklist(["true", "yes", "on", "1", "false", "no", "off", "0"], "must be true or false"),
      v.transform((s) => ["true", "yes", "on", "1"].includes(s)),
    ),
    fallback ? "true" : "false",
  );

const count = (fallback: number, min: number, max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be a whole number from ${min} to ${max}`),
      v.maxValue(max, `must be a whole number from ${min} to ${max}`),
    ),
    String(fallback),
  );

/** Go's `time.ParseDuration`, as OCCM's `MyDuration` reads it: `5s`, `1m30s`; in milliseconds. */
const duration = (fallback: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => parseDuration(s) ?? Number.NaN),
      v.check((ms) => Number.isFinite(ms) && ms >= 0, "must be a Go duration such as 5s or 1m30s"),
    ),
    fallback,
  );

/** A duration of ours (not OCCM's) with bounds, in milliseconds. */
const boundedDuration = (fallback: string, min: string, max: string) => {
  const [lo, hi] = [parseDuration(min) ?? 0, parseDuration(max) ?? 0];
  const what = `must be a Go duration from ${min} to ${max}, such as 5m`;
  return v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => parseDuration(s) ?? Number.NaN),
      v.check((ms) => Number.isFinite(ms) && ms >= lo && ms <= hi, what),
    ),
    fallback,
  );
};

const global = {
  "auth-url": v.optional(
    v.pipe(v.string(), v.check(isHttpUrl, "must be Keystone's http(s) URL, e.g. https://keystone.example.com:5000/v3")),
  ),
  "user-id": id("a Keystone user ID"),
  username: text("a Keystone user name"),
  password: v.optional(v.string()),
  "tenant-id": id("a Keystone project ID"),
  "tenant-name": text("a Keystone project name"),
  "trust-id": id("a Keystone trust ID"),
  "trustee-id": id("a Keystone user ID"),
  "trustee-password": v.optional(v.string()),
  "domain-id": id("a Keystone domain ID"),
  "domain-name": text("a Keystone domain name"),
  "tenant-domain-id": id("a Keystone domain ID"),
  "tenant-domain-name": text("a Keystone domain name"),
  "user-domain-id": id("a Keystone domain ID"),
  "user-domain-name": text("a Keystone domain name"),
  region: text("a region name as the service catalog has it, e.g. RegionOne"),
  "os-endpoint-type": v.optional(
    v.pipe(
      v.string(),
      v.toLowerCase(),
      v.transform((s) => s.replace(/url$/, "")),
      v.picklist(["public", "internal", "admin"], "must be public, internal or admin"),
    ),
  ),
  "ca-file": text("a file path"),
  "cert-file": text("a file path"),
  "key-file": text("a file path"),
  "tls-insecure": v.optional(v.picklist(["true", "false"], "must be true or false")),
  token: v.optional(v.string()),
  "use-clouds": bool(false),
  "clouds-file": text("a file path"),
  cloud: text("a cloud's name in clouds.yaml"),
  "application-credential-id": id("an application credential ID"),
  "application-credential-name": text("an application credential name"),
  "application-credential-secret": v.optional(v.string()),
};

/** The keys of `[LoadBalancer]` and `[LoadBalancerClass "…"]` that name where a load balancer's addresses come from. */
const lbPlacement = {
  "floating-network-id": id("a Neutron network ID"),
  "floating-subnet-id": id("a Neutron subnet ID"),
  "floating-subnet": text("a subnet name pattern (a glob, or a regular expression after ~)"),
  "floating-subnet-tags": text("comma-separated Neutron tags"),
  "network-id": id("a Neutron network ID"),
  "subnet-id": id("a Neutron subnet ID"),
  "member-subnet-id": id("a Neutron subnet ID"),
};

const loadBalancer = {
  enabled: bool(true),
  "lb-version": v.optional(v.literal("v2", 'must be "v2", the only Octavia API version OCCM supports')),
  ...lbPlacement,
  "lb-method": v.optional(
    v.picklist(
      ["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"],
      "must be ROUND_ROBIN, LEAST_CONNECTIONS, SOURCE_IP or (for the ovn provider) SOURCE_IP_PORT",
    ),
    "ROUND_ROBIN",
  ),
  "lb-provider": v.optional(v.pipe(v.string(), v.regex(/^\S+$/, "must be an Octavia provider name")), "amphora"),
  "create-monitor": bool(false),
  "monitor-delay": duration("5s"),
  "monitor-timeout": duration("3s"),
  "monitor-max-retries": count(1, 1, 10),
  "monitor-max-retries-down": count(3, 1, 10),
  "manage-security-groups": bool(false),
  "internal-lb": bool(false),
  "node-selector": v.optional(v.string(), ""),
  "cascade-delete": bool(true),
  "flavor-id": id("an Octavia flavor ID"),
  "availability-zone": text("an Octavia availability zone name"),
  "enable-ingress-hostname": bool(false),
  "ingress-hostname-suffix": v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9.-]+$/, "must be a DNS suffix")), "nip.io"),
  "max-shared-lb": count(2, 1, 1000),
  "container-store": v.optional(v.pipe(v.string(), v.regex(/^\S+$/, "must be barbican or external")), "barbican"),
  "provider-requires-serial-api-calls": bool(false),
  "default-tls-container-ref": v.optional(
    v.pipe(v.string(), v.check(isHttpUrl, "must be a Barbican container or secret URL")),
  ),
  /** Ours, not OCCM's (which waits without end, #1052): how long a `PENDING_*` load balancer is waited on. */
  "pending-deadline": boundedDuration("5m", "1s", "1h"),
};

const networking = {
  "ipv6-support-disabled": bool(false),
  "public-network-name": v.optional(v.array(v.string()), []),
  "internal-network-name": v.optional(v.array(v.string()), []),
  "address-sort-order": v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => s.split(/[\s,]+/).filter((item) => item !== "")),
      v.check((items) => items.every((c) => tryParseCIDR(c) !== undefined), "must be CIDRs separated by commas"),
    ),
    "",
  ),
};

const metadata = {
  "search-order": v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => s.split(",").map((item) => item.trim())),
      v.check(
        (items) => items.length <= 2 && items.every((i) => i === "configDrive" || i === "metadataService"),
        "must be configDrive, metadataService, or both separated by a comma",
      ),
    ),
    "configDrive,metadataService",
  ),
  "request-timeout": duration("60s"),
};

const route = { "router-id": id("a Neutron router ID") };

/** Every section and key, as `readCloudConf` checks names before the schema sees values. */
export const cloudConfShape: CloudConfShape = {
  sections: {
    Global: { keys: Object.keys(global) },
    LoadBalancer: { keys: Object.keys(loadBalancer) },
    Networking: { keys: Object.keys(networking), multi: ["public-network-name", "internal-network-name"] },
    Metadata: { keys: Object.keys(metadata) },
    Route: { keys: Object.keys(route) },
  },
  subsections: { LoadBalancerClass: { keys: Object.keys(lbPlacement) } },
};

/** The one schema of `cloud.conf`, over the text values `readCloudConf` found. */
export const cloudConfSchema = v.object({
  Global: v.strictObject(global),
  LoadBalancer: v.strictObject(loadBalancer),
  LoadBalancerClass: v.record(v.string(), v.strictObject(lbPlacement)),
  Networking: v.strictObject(networking),
  Metadata: v.strictObject(metadata),
  Route: v.strictObject(route),
});

export type CloudConf = v.InferOutput<typeof cloudConfSchema>;

export interface OpenStackConfig {
  readonly auth: AuthOptions;
  readonly loadBalancer: CloudConf["LoadBalancer"];
  readonly loadBalancerClasses: CloudConf["LoadBalancerClass"];
  readonly networking: {
    readonly ipv6SupportDisabled: boolean;
    readonly publicNetworkNames: readonly string[];
    readonly internalNetworkNames: readonly string[];
    readonly addressSortOrder: readonly string[];
  };
  readonly metadata: { readonly searchOrder: readonly string[]; readonly requestTimeoutMs: number };
  readonly routerID: string | undefined;
  /** `OS_CCM_REGIONAL=true`: provider IDs name the region (`openstack://<region>/<id>`). */
  readonly regionalProviderIDs: boolean;
}

export interface ReadConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  readonly configSource: string | undefined;
  readonly readFile: ReadFile;
}

/** Every key name the provider reads, `[Global] auth-url`, for the settings reference's test. */
export function cloudConfKeyNames(): string[] {
  const out: string[] = [];
  for (const [section, { keys }] of Object.entries(cloudConfShape.sections))
    for (const key of keys) out.push(keyPath(section, key));
  for (const [section, { keys }] of Object.entries(cloudConfShape.subsections))
    for (const key of keys) out.push(keyPath(`${section} "<name>"`, key));
  return out;
}

const MULTI = new Set(["public-network-name", "internal-network-name"]);

/** Reads `cloud.conf` (and the `clouds.yaml` it names); throws one `ConfigError` listing every problem. */
export async function readOpenStackConfig(
  input: ReadConfigInput,
): Promise<{ config: OpenStackConfig; warnings: string[] }> {
  const source = input.configSource ?? "the openstack cloud-config";
  if (input.config === undefined) {
    throw new ConfigError(source, [
      { path: "--cloud-config", message: "is required: OCCM's cloud.conf, e.g. --cloud-config=/etc/config/cloud.conf" },
    ]);
  }
  const read = readCloudConf(input.config, cloudConfShape);
  const issues: ConfigIssue[] = [...read.issues];
  const raw: Record<string, unknown> = {};
  for (const [section, keys] of Object.entries(read.sections)) raw[section] = single(keys);
  raw.LoadBalancerClass = Object.fromEntries(
    Object.entries(read.subsections.LoadBalancerClass ?? {}).map(([name, keys]) => [name, single(keys)]),
  );
  const parsed = v.safeParse(cloudConfSchema, raw, { abortEarly: false });
  if (!parsed.success) issues.push(...issuesOf(parsed.issues).map(sectionPath));
  const regional = input.env.OS_CCM_REGIONAL;
  if (regional !== undefined && regional !== "" && regional !== "true" && regional !== "false") {
    issues.push({ path: "OS_CCM_REGIONAL", message: "must be true or false" });
  }
  if (!parsed.success || issues.length > 0) throw new ConfigError(source, issues);

  const c = parsed.output;
  const auth = await resolveAuth(c.Global, input);
  if ("issues" in auth) throw new ConfigError(source, auth.issues, auth.cause ? { cause: auth.cause } : undefined);
  const warnings: string[] = [];
  if (!["amphora", "octavia", "ovn", "f5", "amphorav2"].includes(c.LoadBalancer["lb-provider"])) {
    warnings.push(`[LoadBalancer] lb-provider "${c.LoadBalancer["lb-provider"]}" is not one OCCM tests with`);
  }
  if (!["barbican", "external"].includes(c.LoadBalancer["container-store"])) {
    warnings.push(`[LoadBalancer] container-store "${c.LoadBalancer["container-store"]}" is not barbican or external`);
  }
  return {
    config: {
      auth: auth.auth,
      loadBalancer: c.LoadBalancer,
      loadBalancerClasses: c.LoadBalancerClass,
      networking: {
        ipv6SupportDisabled: c.Networking["ipv6-support-disabled"],
        publicNetworkNames: c.Networking["public-network-name"],
        internalNetworkNames: c.Networking["internal-network-name"],
        addressSortOrder: c.Networking["address-sort-order"],
      },
      metadata: { searchOrder: c.Metadata["search-order"], requestTimeoutMs: c.Metadata["request-timeout"] },
      routerID: c.Route["router-id"],
      regionalProviderIDs: regional === "true",
    },
    warnings,
  };
}

/**
 * Single-valued keys as their one value (`readCloudConf` refused repeats), multi-valued as lists; an empty value
 * counts as unset, as OCCM's defaults apply to it.
 */
function single(keys: SectionValues): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = {};
  for (const [key, values] of Object.entries(keys)) {
    if (MULTI.has(key)) out[key] = values;
    else if (values[0] !== undefined && values[0] !== "") out[key] = values[0];
  }
  return out;
}

/** `Global.auth-url` → `[Global] auth-url`; `LoadBalancerClass.x.subnet-id` → `[LoadBalancerClass "x"] subnet-id`. */
function sectionPath(issue: ConfigIssue): ConfigIssue {
  const [section = "", ...rest] = issue.path.split(".");
  if (section === "LoadBalancerClass" && rest.length >= 2) {
    const key = rest.pop() ?? "";
    return { path: keyPath(`LoadBalancerClass "${rest.join(".")}"`, key), message: issue.message };
  }
  return { path: keyPath(section, rest.join(".")), message: issue.message };
}

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
