/**
 * The command's options: one valibot schema over the raw flag strings (defaults from the flag table), then the
 * cross-field rules of upstream validation (upstream: app/options/options.go `Validate`). Every problem is reported at
 * once, each naming its flag.
 *
 * Beyond upstream, values that would leave the manager silently broken are rejected too (zero service workers,
 * negative periods, periods the runtime's timers cannot hold, unprintable or overlong cluster names); upstream
 * accepts them and misbehaves. An invalid `--cluster-cidr`, fatal only once the route controller starts upstream,
 * is a flag error here, with upstream's message.
 */
import * as v from "valibot";
import { canonicalizeControllerList, isControllerEnabled, validateControllerList } from "../controllers/names.ts";
import {
  CidrAllocatorTypes,
  NodeIpamConfigError,
  type NodeIpamFlags,
  nodeIpamConfig,
} from "../controllers/node-ipam/config.ts";
import { ClusterCIDRError, parseClusterCIDRs } from "../controllers/route/cluster-cidr.ts";
import { MAX_TIMER_MS } from "../kube/clock.ts";
import type { LeaderMigrationConfig } from "../platform/leader-migration.ts";
import { tlsPolicy } from "../platform/tls-policy.ts";
import { formatDuration, parseDuration } from "../providers/kit/duration.ts";
import {
  type FeatureGates,
  GATES_BY_NAME,
  LOGGING_ALPHA_OPTIONS,
  LOGGING_BETA_OPTIONS,
  parseFeatureGates,
} from "./feature-gates.ts";
import { FLAGS, FLAGS_BY_NAME } from "./flags.ts";
import { parseVModule } from "./logger.ts";

const got = (s: string) => `got "${s}"`;

/** Above the runtime's timer limit a period would fire every millisecond; `resync` periods are doubled at most. */
const durationMax = (flag: string) => (flag === "min-resync-period" ? Math.floor(MAX_TIMER_MS / 2) : MAX_TIMER_MS);

/** A bare number is the usual slip (Go durations need a unit): say which unit-bearing value was probably meant. */
const durationProblem = (flag: string, value: string): string =>
  /^[+-]?\d+(\.\d+)?$/.test(value.trim())
    ? `--${flag} needs a unit, like ${value.trim()}s or ${value.trim()}m, ${got(value)}`
    : `--${flag} must be a duration like 5s or 1m30s, ${got(value)}`;

const duration = (flag: string, opts: { min: "positive" | "non-negative" }) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => parseDuration(s) !== undefined,
      (i) => durationProblem(flag, String(i.input)),
    ),
    // The checks below judge a value that parsed; one that did not has its one problem above.
    v.check(
      (s) => {
        const ms = parseDuration(s);
        return ms === undefined || (opts.min === "positive" ? ms > 0 : ms >= 0);
      },
      (i) => `--${flag} must be ${opts.min === "positive" ? "greater than 0" : "0 or more"}, ${got(String(i.input))}`,
    ),
    // A period below a millisecond is a busy loop, the same as 0.
    v.check(
      (s) => {
        const ms = parseDuration(s) ?? 0;
        return opts.min !== "positive" || !(ms > 0 && ms < 1);
      },
      (i) => `--${flag} must be at least 1ms, ${got(String(i.input))}`,
    ),
    v.check(
      (s) => (parseDuration(s) ?? 0) <= durationMax(flag),
      (i) =>
        `--${flag} must be at most ${formatDuration(durationMax(flag))}${flag === "min-resync-period" ? " (half the longest timer the runtime holds: resyncs wait up to twice this)" : " (the longest timer the runtime holds)"}, ${got(String(i.input))}`,
    ),
    v.transform((s) => parseDuration(s) as number),
  );

const int = (flag: string, min: number, max = Number.MAX_SAFE_INTEGER, hint = "") =>
  v.pipe(
    v.string(),
    v.check(
      (s) => /^[+-]?\d+$/.test(s.trim()),
      (i) => `--${flag} must be a whole number, ${got(String(i.input))}`,
    ),
    v.transform((s) => Number(s)),
    v.check(
      (n) => n >= min && n <= max,
      (i) =>
        `--${flag} must be ${max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}, inclusive`}, got ${String(i.input)}${hint}`,
    ),
  );

const float = (flag: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => s.trim() !== "" && Number.isFinite(Number(s)),
      (i) => `--${flag} must be a number like 20 or 0.5, ${got(String(i.input))}`,
    ),
    v.transform((s) => Number(s)),
    v.check(
      (n) => n > 0,
      (i) => `--${flag} must be a number greater than 0, got "${String(i.input)}"`,
    ),
  );

const bool = (flag: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => BOOLS.has(s),
      (i) => `--${flag} must be true or false, ${got(String(i.input))}`,
    ),
    v.transform((s) => BOOLS.get(s) as boolean),
  );
const BOOLS = new Map<string, boolean>([
  ...["1", "t", "T", "TRUE", "true", "True"].map((s) => [s, true] as const),
  ...["0", "f", "F", "FALSE", "false", "False"].map((s) => [s, false] as const),
]);

/** A comma-separated flag value as its non-empty, trimmed entries. */
export const splitList = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
const list = v.pipe(v.string(), v.transform(splitList));

const str = v.string();

/**
 * Providers put the cluster name into cloud resource names and tags, and logs print it: a DNS subdomain's length
 * is room enough, and anything unprintable is a mistake (upstream accepts both silently).
 */
const MAX_CLUSTER_NAME = 253;
const UNPRINTABLE = /\p{C}/u;
const excerpt = (value: unknown): string => {
  const s = String(value);
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s).slice(1, -1);
};

/**
 * Upstream's route controller start rules (upstream: app/core.go `startRouteController`), checked before anything
 * starts; the message is upstream's.
 */
const clusterCIDRProblem = (value: string): string | undefined => {
  try {
    parseClusterCIDRs(value);
    return undefined;
  } catch (err) {
    if (err instanceof ClusterCIDRError) return err.message;
    throw err;
  }
};

/**
 * Upstream's node IPAM start errors (bad mask sizes, no --cluster-cidr), checked before anything starts when the
 * controller would run. An unparsable --cluster-cidr is reported by its own check.
 */
const nodeIpamProblem = (o: NodeIpamFlags & { allocateNodeCIDRs: boolean; controllers: string[] }) => {
  if (!o.allocateNodeCIDRs || !isControllerEnabled("node-ipam-controller", o.controllers)) return undefined;
  if (o.cidrAllocatorType === CidrAllocatorTypes.cloud) return undefined;
  try {
    nodeIpamConfig(o);
    return undefined;
  } catch (err) {
    if (err instanceof NodeIpamConfigError) return err.message;
    if (err instanceof ClusterCIDRError) return undefined;
    throw err;
  }
};

/** The flags that change behaviour here; the rest are accepted and checked only for their kind. */
const OptionsSchema = v.pipe(
  v.object({
    "cloud-provider": v.pipe(
      v.string(),
      v.check((s) => s !== "", "--cloud-provider is required: name the cloud provider to run (--help lists them)"),
    ),
    "cloud-config": str,
    "cloud-api-max-answer-mib": int("cloud-api-max-answer-mib", 1, 1024),
    "allow-untagged-cloud": bool("allow-untagged-cloud"),
    "route-reconciliation-period": duration("route-reconciliation-period", { min: "positive" }),
    "node-monitor-period": duration("node-monitor-period", { min: "positive" }),
    "cluster-name": v.pipe(
      v.string(),
      v.check((s) => s !== "", "--cluster-name cannot be empty"),
      v.check(
        (s) => s.length <= MAX_CLUSTER_NAME,
        (i) => `--cluster-name must be at most ${MAX_CLUSTER_NAME} characters, got ${String(i.input).length}`,
      ),
      v.check(
        (s) => !UNPRINTABLE.test(s),
        (i) => `--cluster-name must not contain control or other unprintable characters, ${got(excerpt(i.input))}`,
      ),
    ),
    "cluster-cidr": v.pipe(
      v.string(),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed || dataset.value.trim() === "") return; // empty: the route controller declines
        const problem = clusterCIDRProblem(dataset.value);
        if (problem) addIssue({ message: `--cluster-cidr is invalid: ${problem}` });
      }),
    ),
    "configure-cloud-routes": bool("configure-cloud-routes"),
    "allocate-node-cidrs": bool("allocate-node-cidrs"),
    "cidr-allocator-type": str,
    "node-cidr-mask-size": int("node-cidr-mask-size", 0, 128),
    "node-cidr-mask-size-ipv4": int("node-cidr-mask-size-ipv4", 0, 32),
    "node-cidr-mask-size-ipv6": int("node-cidr-mask-size-ipv6", 0, 128),
    "service-cluster-ip-range": str,
    "min-resync-period": duration("min-resync-period", { min: "positive" }),
    "kube-api-qps": float("kube-api-qps"),
    "kube-api-burst": int("kube-api-burst", 1),
    "controller-start-interval": duration("controller-start-interval", { min: "non-negative" }),
    controllers: list,
    "feature-gates": v.string(),
    "leader-elect": bool("leader-elect"),
    "leader-elect-lease-duration": duration("leader-elect-lease-duration", { min: "positive" }),
    "leader-elect-renew-deadline": duration("leader-elect-renew-deadline", { min: "positive" }),
    "leader-elect-retry-period": duration("leader-elect-retry-period", { min: "positive" }),
    "leader-elect-resource-lock": str,
    "leader-elect-resource-name": str,
    "leader-elect-resource-namespace": str,
    "enable-leader-migration": bool("enable-leader-migration"),
    "leader-migration-config": str,
    "concurrent-node-syncs": int("concurrent-node-syncs", 0),
    "concurrent-node-status-updates": int("concurrent-node-status-updates", 0),
    "concurrent-service-syncs": int("concurrent-service-syncs", 1),
    "bind-address": str,
    "secure-port": str,
    "tls-cert-file": str,
    "tls-private-key-file": str,
    "cert-dir": str,
    "permit-port-sharing": bool("permit-port-sharing"),
    "tls-min-version": str,
    "tls-cipher-suites": list,
    "authentication-kubeconfig": str,
    "authentication-token-webhook-cache-ttl": duration("authentication-token-webhook-cache-ttl", {
      min: "non-negative",
    }),
    "authorization-kubeconfig": str,
    "authorization-webhook-cache-authorized-ttl": duration("authorization-webhook-cache-authorized-ttl", {
      min: "non-negative",
    }),
    "authorization-webhook-cache-unauthorized-ttl": duration("authorization-webhook-cache-unauthorized-ttl", {
      min: "non-negative",
    }),
    "authorization-always-allow-paths": list,
    profiling: bool("profiling"),
    "heap-snapshot": bool("heap-snapshot"),
    webhooks: list,
    "webhook-secure-port": str,
    "webhook-bind-address": str,
    "webhook-cert-dir": str,
    "webhook-tls-cert-file": str,
    "webhook-tls-private-key-file": str,
    "webhook-tls-min-version": str,
    "webhook-tls-cipher-suites": list,
    master: str,
    kubeconfig: str,
    "node-status-update-frequency": duration("node-status-update-frequency", { min: "positive" }),
    v: int("v", 0, 10),
    "log-text-split-stream": bool("log-text-split-stream"),
    "logging-format": v.picklist(
      ["text", "json"],
      (i) => `--logging-format must be text or json, ${got(String(i.input))}`,
    ),
    vmodule: v.pipe(
      v.string(),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const parsed = parseVModule(dataset.value);
        if (parsed.ok) return parsed.rules;
        addIssue({ message: parsed.error });
        return NEVER;
      }),
    ),
  }),
  v.transform((o) => ({
    cloudProvider: o["cloud-provider"],
    cloudConfig: o["cloud-config"],
    /** What the providers' cloud-API clients read of one answer at most. */
    cloudApiMaxAnswerBytes: o["cloud-api-max-answer-mib"] * 1024 * 1024,
    allowUntaggedCloud: o["allow-untagged-cloud"],
    routeReconciliationPeriodMs: o["route-reconciliation-period"],
    nodeMonitorPeriodMs: o["node-monitor-period"],
    clusterName: o["cluster-name"],
    clusterCIDR: o["cluster-cidr"],
    configureCloudRoutes: o["configure-cloud-routes"],
    allocateNodeCIDRs: o["allocate-node-cidrs"],
    cidrAllocatorType: o["cidr-allocator-type"],
    nodeCIDRMaskSize: o["node-cidr-mask-size"],
    nodeCIDRMaskSizeIPv4: o["node-cidr-mask-size-ipv4"],
    nodeCIDRMaskSizeIPv6: o["node-cidr-mask-size-ipv6"],
    serviceClusterIPRange: o["service-cluster-ip-range"],
    minResyncPeriodMs: o["min-resync-period"],
    kubeApiQps: o["kube-api-qps"],
    kubeApiBurst: o["kube-api-burst"],
    controllerStartIntervalMs: o["controller-start-interval"],
    controllers: canonicalizeControllerList(o.controllers),
    leaderElection: {
      enabled: o["leader-elect"],
      leaseDurationMs: o["leader-elect-lease-duration"],
      renewDeadlineMs: o["leader-elect-renew-deadline"],
      retryPeriodMs: o["leader-elect-retry-period"],
      resourceLock: o["leader-elect-resource-lock"],
      name: o["leader-elect-resource-name"],
      namespace: o["leader-elect-resource-namespace"],
    },
    /** `--enable-leader-migration` and the file of `--leader-migration-config` (empty: upstream's default). */
    leaderMigration: { enabled: o["enable-leader-migration"], configFile: o["leader-migration-config"] },
    concurrentNodeSyncs: o["concurrent-node-syncs"],
    // 0 = the initialisation workers' count, which the node controller works out (it may be automatic).
    concurrentNodeStatusUpdates: o["concurrent-node-status-updates"] || o["concurrent-node-syncs"],
    concurrentServiceSyncs: o["concurrent-service-syncs"],
    serving: {
      bindAddress: o["bind-address"],
      securePort: Number(o["secure-port"]),
      certFile: o["tls-cert-file"],
      keyFile: o["tls-private-key-file"],
      certDir: o["cert-dir"],
      permitPortSharing: o["permit-port-sharing"],
      tls: tlsPolicy({ prefix: "", minVersion: o["tls-min-version"], cipherSuites: o["tls-cipher-suites"] }).policy,
      authenticationKubeconfig: o["authentication-kubeconfig"],
      tokenCacheTtlMs: o["authentication-token-webhook-cache-ttl"],
      authorizationKubeconfig: o["authorization-kubeconfig"],
      allowedCacheTtlMs: o["authorization-webhook-cache-authorized-ttl"],
      deniedCacheTtlMs: o["authorization-webhook-cache-unauthorized-ttl"],
      alwaysAllowPaths: o["authorization-always-allow-paths"],
      profiling: o.profiling,
      heapSnapshot: o["heap-snapshot"],
    },
    webhooks: o.webhooks,
    webhookSecurePort: Number(o["webhook-secure-port"]),
    webhookServing: {
      bindAddress: o["webhook-bind-address"],
      certDir: o["webhook-cert-dir"],
      certFile: o["webhook-tls-cert-file"],
      keyFile: o["webhook-tls-private-key-file"],
      tls: tlsPolicy({
        prefix: "webhook-",
        minVersion: o["webhook-tls-min-version"],
        cipherSuites: o["webhook-tls-cipher-suites"],
      }).policy,
    },
    master: o.master,
    kubeconfig: o.kubeconfig,
    nodeStatusUpdateFrequencyMs: o["node-status-update-frequency"],
    verbosity: o.v,
    loggingFormat: o["logging-format"],
    logTextSplitStream: o["log-text-split-stream"],
    vmodule: o.vmodule,
  })),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = nodeIpamProblem(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
);

export type Options = v.InferOutput<typeof OptionsSchema> & {
  /** Every known gate's value: `--feature-gates` over upstream's defaults. */
  readonly featureGates: FeatureGates;
  /** `--kube-api-qps` or `--kube-api-burst` was given: the client-side limit holds, not the server's flow control. */
  readonly kubeApiLimitsSet?: boolean;
  /** The leader migration in effect (cmd/leader-migration.ts `loadLeaderMigration`), read before the manager starts. */
  readonly leaderMigrationConfig?: LeaderMigrationConfig | undefined;
};

export type OptionsResult =
  | { ok: true; options: Options; ignored: string[]; warnings: string[] }
  | { ok: false; errors: string[] };

/**
 * Typed, validated options from raw flag strings. `ignored` lists flags given explicitly that have no effect, and
 * feature gates so set; `warnings`, what upstream warns of too (a GA or deprecated gate set).
 */
export function buildOptions(values: ReadonlyMap<string, string>): OptionsResult {
  const raw: Record<string, string> = {};
  for (const f of FLAGS) raw[f.name] = values.get(f.name) ?? f.default;
  const errors: string[] = [];
  const result = v.safeParse(OptionsSchema, raw, { abortEarly: false });
  if (!result.success) errors.push(...result.issues.map((i) => i.message));
  errors.push(...kindErrors(values), ...crossFieldErrors(raw));
  const gates = parseFeatureGates(raw["feature-gates"] ?? "");
  errors.push(...(gates.ok ? loggingGateErrors(gates.gates, raw) : gates.errors));
  if (errors.length > 0 || !result.success || !gates.ok) return { ok: false, errors: [...new Set(errors)] };
  const ignored = [
    ...[...values.keys()].filter((name) => FLAGS_BY_NAME.get(name)?.effect === "none"),
    ...gatesWithoutEffect(raw["feature-gates"] ?? ""),
  ];
  const kubeApiLimitsSet = values.has("kube-api-qps") || values.has("kube-api-burst");
  return {
    ok: true,
    options: { ...result.output, featureGates: gates.gates, kubeApiLimitsSet },
    ignored,
    warnings: gates.warnings,
  };
}

/** The gates named in `--feature-gates` that change nothing here, as `feature-gates=Name`. */
function gatesWithoutEffect(value: string): string[] {
  const names = splitList(value).map((entry) => entry.split("=")[0]?.trim() ?? "");
  return [...new Set(names)].filter((n) => GATES_BY_NAME.get(n)?.effect === "none").map((n) => `feature-gates=${n}`);
}

/** What the logging gates guard, refused as upstream's logging options refuse it (with its messages). */
function loggingGateErrors(gates: FeatureGates, raw: Record<string, string>): string[] {
  const errors: string[] = [];
  if (raw["logging-format"] === "json" && gates.get(LOGGING_BETA_OPTIONS) === false) {
    errors.push(`--logging-format: Log format json is disabled, see ${LOGGING_BETA_OPTIONS} feature`);
  }
  if (gates.get(LOGGING_ALPHA_OPTIONS) === false) {
    if (BOOLS.get(raw["log-text-split-stream"] ?? "") === true) {
      errors.push(`--log-text-split-stream: Feature ${LOGGING_ALPHA_OPTIONS} is disabled`);
    }
    if (!/^0*$|^0[a-zA-Z]*$/.test(raw["log-text-info-buffer-size"] ?? "0")) {
      errors.push(`--log-text-info-buffer-size: Feature ${LOGGING_ALPHA_OPTIONS} is disabled`);
    }
  }
  return errors;
}

/** Kind checks for the compatibility-only flags, so a typo there is still reported. */
function kindErrors(values: ReadonlyMap<string, string>): string[] {
  const errors: string[] = [];
  for (const [name, value] of values) {
    const def = FLAGS_BY_NAME.get(name);
    if (def?.effect !== "none") continue;
    if (def.kind === "bool" && !BOOLS.has(value)) errors.push(`--${name} must be true or false, ${got(value)}`);
    if (def.kind === "int" && !/^[+-]?\d+$/.test(value)) errors.push(`--${name} must be a whole number, ${got(value)}`);
    if (def.kind === "duration" && parseDuration(value) === undefined) {
      errors.push(durationProblem(name, value));
    }
  }
  return errors;
}

/** Upstream's aggregated validation (c.3), with its exact messages. */
function crossFieldErrors(raw: Record<string, string>): string[] {
  const errors = validateControllerList(splitList(raw.controllers ?? ""));
  for (const prefix of ["", "webhook-"] as const) {
    const tls = tlsPolicy({
      prefix,
      minVersion: raw[`${prefix}tls-min-version`] ?? "",
      cipherSuites: splitList(raw[`${prefix}tls-cipher-suites`] ?? ""),
    });
    errors.push(...tls.errors);
  }
  if (BOOLS.get(raw["leader-elect"] ?? "") && raw["leader-elect-resource-lock"] !== "leases") {
    errors.push(`resourceLock value must be "leases"`);
  }
  // The names are the provider's: the command checks them once the provider is built (selectWebhooks).
  const securePort = Number(raw["secure-port"]);
  const webhookPort = Number(raw["webhook-secure-port"]);
  if (!/^[+-]?\d+$/.test(raw["secure-port"] ?? "")) {
    errors.push(`--secure-port must be a whole number, ${got(raw["secure-port"] ?? "")}`);
  } else if (securePort < 0 || securePort > 65535) {
    errors.push(`--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got ${securePort}`);
  }
  if (!/^[+-]?\d+$/.test(raw["webhook-secure-port"] ?? "")) {
    errors.push(`--webhook-secure-port must be a whole number, ${got(raw["webhook-secure-port"] ?? "")}`);
  } else if (webhookPort < 0 || webhookPort > 65535) {
    errors.push(
      `--webhook-secure-port must be between 0 and 65535, inclusive (0 turns the webhook endpoint off), got ${webhookPort}`,
    );
  } else if (webhookPort !== 0 && webhookPort === securePort) {
    errors.push("--webhook-secure-port cannot be the same value as --secure-port");
  }
  if ((raw["tls-cert-file"] === "") !== (raw["tls-private-key-file"] === "")) {
    errors.push("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if ((raw["webhook-tls-cert-file"] === "") !== (raw["webhook-tls-private-key-file"] === "")) {
    errors.push("--webhook-tls-cert-file and --webhook-tls-private-key-file must be given together");
  }
  return errors;
}
