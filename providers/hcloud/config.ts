/**
 * The hcloud provider's configuration: hcloud-cloud-controller-manager's environment variables, with its names,
 * defaults and meanings (hccm `internal/config`), so an hccm Deployment works unchanged. A `--cloud-config` file
 * may carry the same settings under the same names (hccm has no file of its own); the environment wins:
 *
 * ```yaml
 * HCLOUD_TOKEN_FILE: /etc/hcloud/token
 * HCLOUD_NETWORK: k8s
 * HCLOUD_LOAD_BALANCERS_LOCATION: fsn1
 * ROBOT_ENABLED: true
 * HCLOUD_NETWORK_ROUTES_ENABLED: false
 * ```
 *
 * Stricter than hccm where it read a value it could not use: a boolean is Go's (`1`, `t`, `true`, `0`, `f`,
 * `false`, in any of Go's cases), a duration is Go's and not negative, and every problem of both sources is one
 * `ConfigError` naming each variable; secrets never appear in it. An empty value counts as unset.
 */
import * as v from "valibot";
import type { Service } from "../../kube/objects.ts";
import { tryParseCIDR } from "../../net/cidr.ts";
import type { Reader } from "../kit/annotations/readers.ts";
import { parseDuration } from "../kit/duration.ts";
import { type NamedSettings, readNamedSettings, type Setting } from "../kit/named-settings.ts";
import { healthCheckReaders } from "./annotation-readers.ts";
import { hcloudRateLimit } from "./api/client.ts";
import { defaultRobotEndpoint } from "./api/robot.ts";

const source = "the hcloud configuration (environment and cloud-config)";
const GO_BOOL: Record<string, boolean> = { 1: true, t: true, T: true, TRUE: true, true: true, True: true };
for (const f of ["0", "f", "F", "FALSE", "false", "False"]) GO_BOOL[f] = false;

const goBool = v.pipe(
  v.string(),
  v.check((s) => s in GO_BOOL, "must be true or false (Go's forms: 1, t, true, 0, f, false)"),
  v.transform((s) => GO_BOOL[s] === true),
);
/** A boolean with hccm's default. */
const bool = (fallback: boolean) => v.optional(goBool, String(fallback));
/** A boolean whose absence means something of its own (hccm's `*bool`). */
const maybeBool = () => v.optional(goBool);

const goDuration = (example: string) =>
  v.pipe(
    v.string(),
    v.transform((s) => parseDuration(s) ?? Number.NaN),
    v.check((ms) => ms >= 0, `must be a Go duration that is not negative, such as ${example}`),
  );
/** Milliseconds, with hccm's default (a Go duration). */
const duration = (fallback: string, example: string) => v.optional(goDuration(example), fallback);
const maybeDuration = (example: string) => v.optional(goDuration(example));

/** A setting read by an annotation reader: the same values, and "must be" what the reader accepts. */
function read<T>(reader: Reader<T>) {
  return v.pipe(
    v.string(),
    v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
      const parsed = reader.parse(dataset.value.trim(), NO_SERVICE);
      if (parsed.ok) return parsed.value;
      addIssue({ message: `must be ${reader.accepts}${parsed.reason ? ` (${parsed.reason})` : ""}` });
      return NEVER;
    }),
  );
}
/** What the readers of settings get for the Service they would check per-port values against: none. */
const NO_SERVICE: Service = {};

const name = (what: string, pattern: RegExp) => v.optional(v.pipe(v.string(), v.regex(pattern, what)));
const ZONE_OR_LOCATION = /^[a-z0-9][a-z0-9-]*$/;
const METRICS_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]*):([0-9]{1,5})$/;

/** Every variable the provider reads, by the name hccm gives it. */
const entries = {
  HCLOUD_TOKEN: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[\x21-\x7e]+$/, "must be a Hetzner Cloud API token: printable characters without spaces"),
    ),
  ),
  HCLOUD_ENDPOINT: v.optional(
    v.pipe(
      v.string(),
      v.check(isHttpUrl, "must be an http(s) URL such as https://api.hetzner.cloud/v1"),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
    "https://api.hetzner.cloud/v1",
  ),
  HCLOUD_DEBUG: bool(false),
  HCLOUD_NETWORK: name("must be the name or ID of a Hetzner Cloud network, without spaces", /^\S+$/),
  HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK: bool(false),
  HCLOUD_NETWORK_ROUTES_ENABLED: maybeBool(),
  HCLOUD_INSTANCES_ADDRESS_FAMILY: v.optional(
    v.picklist(["ipv4", "ipv6", "dualstack"], "must be ipv4, ipv6 or dualstack"),
    "ipv4",
  ),
  HCLOUD_INSTANCES_ZONE_LABEL_ENABLED: bool(true),
  HCLOUD_SERVER_CACHE_MODE: v.optional(v.picklist(["all", "one", "off"], "must be all, one or off"), "all"),
  HCLOUD_SERVER_CACHE_MAX_AGE: duration("10s", "10s"),
  HCLOUD_METRICS_ENABLED: bool(true),
  HCLOUD_METRICS_ADDRESS: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (s) => Number(METRICS_ADDRESS.exec(s)?.[2] ?? Number.NaN) <= 65535,
        "must be host:port or :port, such as :8233",
      ),
    ),
    ":8233",
  ),
  HCLOUD_LOAD_BALANCERS_ENABLED: bool(true),
  HCLOUD_LOAD_BALANCERS_LOCATION: name("must be a location name such as fsn1, nbg1 or ash", ZONE_OR_LOCATION),
  HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: name("must be a network zone such as eu-central or us-east", ZONE_OR_LOCATION),
  HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS: bool(false),
  HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP: bool(false),
  HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL: maybeBool(),
  HCLOUD_LOAD_BALANCERS_DISABLE_IPV6: bool(false),
  HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK: maybeBool(),
  HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => tryParseCIDR(s) !== undefined, "must be a CIDR such as 10.0.1.0/24"),
    ),
  ),
  HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => s.trim().toLowerCase()),
      v.picklist(["round_robin", "least_connections"], "must be round_robin or least_connections"),
    ),
  ),
  // The health-check annotations' own readers: a default takes exactly what the annotation takes.
  HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL: v.optional(read(healthCheckReaders.interval())),
  HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT: v.optional(read(healthCheckReaders.timeout())),
  HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES: v.optional(read(healthCheckReaders.retries())),
  // No default: hccm changes an existing load balancer's type only when this or the annotation names one.
  HCLOUD_LOAD_BALANCERS_TYPE: v.optional(
    name("must be a load balancer type name such as lb11", /^[a-z0-9][a-z0-9-]*$/),
  ),
  /**
   * Ours, not hccm's (hcloud-go does not pace itself): the pace the provider keeps towards the Cloud API, requests a
   * second and the burst above it. The defaults stay inside a project's budget of 3600 an hour; raise them only for
   * a project whose limit Hetzner raised, or against an emulator.
   */
  HCLOUD_RATE_LIMIT_QPS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]+(\.[0-9]+)?$/, "must be a number of requests a second, such as 0.9"),
      v.transform(Number),
      v.minValue(0.01, "must be at least 0.01 requests a second"),
      v.maxValue(1000, "must be at most 1000 requests a second"),
    ),
    String(hcloudRateLimit.qps),
  ),
  HCLOUD_RATE_LIMIT_BURST: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,4}$/, "must be a whole number of requests, such as 10"),
      v.transform(Number),
      v.minValue(1, "must be at least 1"),
      v.maxValue(1000, "must be at most 1000"),
    ),
    String(hcloudRateLimit.burst),
  ),
  ROBOT_ENABLED: bool(false),
  /** Ours, not hccm's (which always talks to Robot itself): where the Robot webservice is, e.g. its emulator. */
  ROBOT_ENDPOINT: v.optional(
    v.pipe(
      v.string(),
      v.check(isHttpUrl, "must be an http(s) URL such as https://robot-ws.your-server.de"),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
    defaultRobotEndpoint,
  ),
  ROBOT_USER: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[^\s:]+$/, "must be the Robot webservice user, without spaces or ':' (Basic auth cannot carry one)"),
    ),
  ),
  ROBOT_PASSWORD: v.optional(v.string()),
  ROBOT_CACHE_TIMEOUT: maybeDuration("5m"),
  ROBOT_RATE_LIMIT_WAIT_TIME: duration("0", "5m"),
  ROBOT_FORWARD_INTERNAL_IPS: bool(true),
};

/** The variable names, in the order above: what the environment and a cloud-config may set. */
export const hcloudSettingNames = Object.keys(entries) as (keyof typeof entries)[];

/** The sources' rules: hccm's names, its secrets, and what other Hetzner tools put in the same environment. */
export const hcloudNamedSettings: NamedSettings = {
  provider: "hcloud",
  known: hcloudSettingNames,
  secrets: ["HCLOUD_TOKEN", "ROBOT_USER", "ROBOT_PASSWORD"],
  prefix: /^(HCLOUD|ROBOT)_/,
  // The `hcloud` CLI's and hcloud-go's own variables.
  foreign: ["HCLOUD_CONTEXT", "HCLOUD_CONFIG", "HCLOUD_POLL_INTERVAL", "HCLOUD_QUIET"],
  fileKeys: "keys are hccm's environment variable names",
};

type Flat = v.InferOutput<v.ObjectSchema<typeof entries, undefined>>;

/** hccm's `Validate`: what no single variable shows. Paths name the variable to change. */
function crossIssues(c: Flat): { path: keyof Flat; message: string }[] {
  const out: { path: keyof Flat; message: string }[] = [];
  if (c.HCLOUD_TOKEN === undefined) {
    out.push({
      path: "HCLOUD_TOKEN",
      message: "is required: the Hetzner Cloud project's API token (or HCLOUD_TOKEN_FILE naming a file that holds it)",
    });
  }
  if (c.HCLOUD_LOAD_BALANCERS_LOCATION !== undefined && c.HCLOUD_LOAD_BALANCERS_NETWORK_ZONE !== undefined) {
    out.push({
      path: "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE",
      message: "is set together with HCLOUD_LOAD_BALANCERS_LOCATION; set only one of them",
    });
  }
  if (c.ROBOT_ENABLED && (c.ROBOT_USER === undefined) !== (c.ROBOT_PASSWORD === undefined)) {
    const missing = c.ROBOT_USER === undefined ? "ROBOT_USER" : "ROBOT_PASSWORD";
    const given = missing === "ROBOT_USER" ? "ROBOT_PASSWORD" : "ROBOT_USER";
    out.push({ path: missing, message: `is required with ${given}: set both (or their _FILE forms), or neither` });
  }
  if (c.ROBOT_ENABLED && c.HCLOUD_NETWORK !== undefined && c.HCLOUD_NETWORK_ROUTES_ENABLED !== false) {
    out.push({
      path: "HCLOUD_NETWORK_ROUTES_ENABLED",
      message:
        "must be false with ROBOT_ENABLED: routes are not supported with Robot servers (they default to true when HCLOUD_NETWORK is set)",
    });
  }
  return out;
}

export const hcloudConfigSchema = v.pipe(
  v.object(entries),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const { path, message } of crossIssues(dataset.value)) {
      const value = dataset.value[path];
      addIssue({ message, path: [{ type: "object", origin: "value", input: dataset.value, key: path, value }] });
    }
  }),
  v.transform(structured),
);

export type HcloudConfig = v.InferOutput<typeof hcloudConfigSchema>;
export type AddressFamily = HcloudConfig["instances"]["addressFamily"];

function structured(c: Flat) {
  const robotEnabled = c.ROBOT_ENABLED;
  const credentials =
    robotEnabled && c.ROBOT_USER !== undefined && c.ROBOT_PASSWORD !== undefined
      ? { user: c.ROBOT_USER, password: c.ROBOT_PASSWORD }
      : undefined;
  return {
    token: c.HCLOUD_TOKEN ?? "",
    endpoint: c.HCLOUD_ENDPOINT,
    debug: c.HCLOUD_DEBUG,
    rateLimit: { qps: c.HCLOUD_RATE_LIMIT_QPS, burst: c.HCLOUD_RATE_LIMIT_BURST },
    /** `HCLOUD_NETWORK`: a network's name or ID; undefined ⇒ no private network. */
    network: c.HCLOUD_NETWORK,
    networkAttachedCheck: !c.HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK,
    /** Routes need a network; with one they default to on. */
    routesEnabled: c.HCLOUD_NETWORK !== undefined && c.HCLOUD_NETWORK_ROUTES_ENABLED !== false,
    instances: { addressFamily: c.HCLOUD_INSTANCES_ADDRESS_FAMILY, zoneLabel: c.HCLOUD_INSTANCES_ZONE_LABEL_ENABLED },
    serverCache: { mode: c.HCLOUD_SERVER_CACHE_MODE, maxAgeMs: c.HCLOUD_SERVER_CACHE_MAX_AGE },
    metrics: { enabled: c.HCLOUD_METRICS_ENABLED, address: c.HCLOUD_METRICS_ADDRESS },
    /** Defaults for Services without the matching annotation; `undefined` ⇒ the API's own default. */
    loadBalancers: {
      enabled: c.HCLOUD_LOAD_BALANCERS_ENABLED,
      location: c.HCLOUD_LOAD_BALANCERS_LOCATION,
      networkZone: c.HCLOUD_LOAD_BALANCERS_NETWORK_ZONE,
      privateIngress: !c.HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS,
      usePrivateIP: c.HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP,
      proxyProtocol: c.HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL,
      ipv6: !c.HCLOUD_LOAD_BALANCERS_DISABLE_IPV6,
      disablePublicNetwork: c.HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK,
      privateSubnetIPRange: c.HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE,
      algorithm: c.HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE,
      healthCheck: {
        intervalMs: c.HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL,
        timeoutMs: c.HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT,
        retries: c.HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES,
      },
      type: c.HCLOUD_LOAD_BALANCERS_TYPE,
    },
    robot: {
      enabled: robotEnabled,
      endpoint: c.ROBOT_ENDPOINT,
      /** Absent with Robot enabled ⇒ hccm's "LB-only" mode: IP targets from Node InternalIPs, no Robot calls. */
      credentials,
      /** hccm: unset or 0 ⇒ 5 minutes. */
      cacheTimeoutMs: c.ROBOT_CACHE_TIMEOUT || 5 * 60_000,
      rateLimitWaitMs: c.ROBOT_RATE_LIMIT_WAIT_TIME,
      /** Only with Robot enabled, as in hccm. */
      forwardInternalIPs: robotEnabled && c.ROBOT_FORWARD_INTERNAL_IPS,
    },
  };
}

export interface ReadHcloudConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  readonly configSource: string | undefined;
  /** For the `*_FILE` secrets. */
  readonly readFile: (path: string) => Promise<string>;
}

/** The configuration and what the operator should hear about it but that is no error (hccm's warnings). */
export interface HcloudConfigResult {
  readonly config: HcloudConfig;
  readonly warnings: readonly string[];
}

/** Reads both sources and validates them; throws one `ConfigError` listing every problem, naming each variable. */
export async function readHcloudConfig(input: ReadHcloudConfigInput): Promise<HcloudConfigResult> {
  const { value, settings } = await readNamedSettings(hcloudNamedSettings, input, {
    schema: hcloudConfigSchema,
    source,
    fileShape: "a mapping of hccm's variable names to values",
    // valibot checks across variables only once each is valid; a partial reading shows the rest of the problems now.
    acrossInvalid: (flat) => crossIssues(partialReading(flat)),
  });
  return { config: value, warnings: warningsOf(value, settings) };
}

/** Each variable that is valid on its own, read; the others left out. */
function partialReading(flat: Readonly<Record<string, string>>): Flat {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(entries)) {
    const one = v.safeParse(schema, flat[key]);
    if (one.success) out[key] = one.output;
  }
  return out as Flat;
}

function warningsOf(c: HcloudConfig, settings: ReadonlyMap<string, Setting>): string[] {
  const out: string[] = [];
  if (c.token.length !== 64) {
    out.push(`HCLOUD_TOKEN has ${c.token.length} characters where Hetzner's tokens have 64; proceeding anyway`);
  }
  for (const key of ["HCLOUD_SERVER_CACHE_MODE", "HCLOUD_SERVER_CACHE_MAX_AGE"]) {
    if (settings.has(key)) out.push(`${key} is experimental in hccm; its meaning may change between releases`);
  }
  if (!c.network && settings.has("HCLOUD_NETWORK_ROUTES_ENABLED")) {
    out.push("HCLOUD_NETWORK_ROUTES_ENABLED has no effect without HCLOUD_NETWORK: there is no network to route in");
  }
  if (!c.robot.enabled && (settings.has("ROBOT_USER") || settings.has("ROBOT_PASSWORD"))) {
    out.push("Robot credentials are set but ROBOT_ENABLED is not true: Robot servers are not looked up");
  }
  if (c.robot.enabled && !c.robot.credentials) {
    out.push(
      "ROBOT_ENABLED without ROBOT_USER and ROBOT_PASSWORD: load balancers only, Robot nodes are not initialised",
    );
  }
  return out;
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
