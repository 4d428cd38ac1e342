/**
 * `--feature-gates`: every gate upstream's cloud-controller-manager accepts, as its binary registers them at
 * Kubernetes 1.36 (component-base's `AllAlpha`/`AllBeta`, logging, metrics and z-pages gates; apiserver's; the
 * controller-manager's), with upstream's defaults, stages and locks, so a manifest written for a Go manager starts
 * this one. Each row says what the gate does here, or why it does nothing.
 *
 * The parser keeps upstream's rules (upstream: component-base featuregate `Set`): `AllAlpha`/`AllBeta` set every
 * alpha/beta gate not named explicitly; a gate locked to its default refuses another value; an unknown gate is an
 * error; setting a GA or deprecated gate is allowed, with a warning. Unlike upstream, every problem is reported at
 * once rather than the first unknown gate alone.
 */

export type GateStage = "ALPHA" | "BETA" | "GA" | "DEPRECATED";

export interface GateDef {
  readonly name: string;
  readonly stage: GateStage;
  readonly default: boolean;
  /** Upstream refuses any value but the default. */
  readonly locked?: true;
  /** What the gate does here, or why it does nothing. */
  readonly here: string;
  /** "none": accepted for compatibility, no effect here. */
  readonly effect?: "none";
}

/** The Kubernetes minor whose registrations the table mirrors: it fixes each gate's stage and default. */
export const GATES_UPSTREAM_VERSION = "1.36";

export const ALL_ALPHA = "AllAlpha";
export const ALL_BETA = "AllBeta";
export const LOGGING_ALPHA_OPTIONS = "LoggingAlphaOptions";
export const LOGGING_BETA_OPTIONS = "LoggingBetaOptions";

const gate = (
  name: string,
  stage: GateStage,
  def: boolean,
  here: string,
  extra: Partial<Pick<GateDef, "locked" | "effect">> = {},
): GateDef => ({ name, stage, default: def, here, ...extra });
/** A gate accepted for compatibility, with why it changes nothing here. */
const none = (name: string, stage: GateStage, def: boolean, why: string, locked = false): GateDef =>
  gate(name, stage, def, `No effect here: ${why}`, { effect: "none", ...(locked && { locked: true }) });

const SERVES_NO_API = "it changes how an API server serves or stores its API; the manager serves none.";
const NO_CLIENT_CERTS = "client certificates are not authenticated here (--client-ca-file has no effect).";
const NO_AUTH_CONFIG = "callers are authenticated by TokenReview only; there is no authentication configuration.";

export const FEATURE_GATES: readonly GateDef[] = [
  gate(ALL_ALPHA, "ALPHA", false, "Sets every alpha gate that is not named explicitly."),
  gate(ALL_BETA, "BETA", false, "Sets every beta gate that is not named explicitly."),
  // The controller-manager's gates.
  gate(
    "CloudControllerManagerWatchBasedRoutesReconciliation",
    "ALPHA",
    false,
    "The route controller reconciles when a node is added, removed or changes as routes depend on, rather than every --route-reconciliation-period.",
  ),
  gate(
    "CloudControllerManagerWebhook",
    "ALPHA",
    false,
    "Serves the provider's admission webhooks that --webhooks enables on --webhook-secure-port.",
  ),
  none(
    "ControllerManagerReleaseLeaderElectionLockOnExit",
    "ALPHA",
    false,
    "the manager always hands its lease back on a clean stop, once its writes are done.",
  ),
  // component-base: logging, metrics, z-pages.
  none(
    "ContextualLogging",
    "BETA",
    true,
    "every controller and provider already logs through the named logger it is handed; there is no global one.",
  ),
  gate(
    LOGGING_ALPHA_OPTIONS,
    "ALPHA",
    false,
    "Allows --log-text-split-stream and --log-text-info-buffer-size, as upstream: either without it is an error (both flags have no effect here).",
  ),
  gate(LOGGING_BETA_OPTIONS, "BETA", true, "Allows --logging-format=json, as upstream: turned off, JSON is refused."),
  none("NativeHistograms", "ALPHA", false, "metrics are served in Prometheus' text format, which has none."),
  none("ComponentFlagz", "BETA", true, "/flagz is not served."),
  none("ComponentStatusz", "BETA", true, "/statusz is not served."),
  // apiserver's, registered by the serving library every manager links.
  none("APIResponseCompression", "BETA", true, SERVES_NO_API),
  none("APIServerIdentity", "BETA", true, SERVES_NO_API),
  none("APIServerTracing", "GA", true, "the manager exports no traces.", true),
  none("APIServingWithRoutine", "ALPHA", false, SERVES_NO_API),
  none("AggregatedDiscoveryRemoveBetaType", "DEPRECATED", true, SERVES_NO_API, true),
  none("AllowParsingUserUIDFromCertAuth", "BETA", true, NO_CLIENT_CERTS),
  none("AllowUnsafeMalformedObjectDeletion", "ALPHA", false, SERVES_NO_API),
  none("AnonymousAuthConfigurableEndpoints", "GA", true, NO_AUTH_CONFIG, true),
  none("AuthorizeWithSelectors", "GA", true, "SubjectAccessReviews carry no field or label selectors.", true),
  none("BtreeWatchCache", "GA", true, SERVES_NO_API, true),
  none("CBORServingAndStorage", "ALPHA", false, SERVES_NO_API),
  none("ConcurrentWatchObjectDecode", "BETA", false, SERVES_NO_API),
  none("ConsistentListFromCache", "GA", true, SERVES_NO_API, true),
  none("ConstrainedImpersonation", "BETA", true, SERVES_NO_API),
  none("CoordinatedLeaderElection", "BETA", false, "the manager takes its Lease itself, as --leader-elect says."),
  none("DeclarativeValidation", "GA", true, SERVES_NO_API, true),
  none("DeclarativeValidationBeta", "BETA", true, SERVES_NO_API),
  none("DeclarativeValidationTakeover", "DEPRECATED", false, SERVES_NO_API),
  none("DetectCacheInconsistency", "BETA", true, SERVES_NO_API),
  none("KMSv1", "DEPRECATED", false, SERVES_NO_API),
  none("ListFromCacheSnapshot", "BETA", true, SERVES_NO_API),
  none("ManifestBasedAdmissionControlConfig", "ALPHA", false, SERVES_NO_API),
  none("MutatingAdmissionPolicy", "GA", true, SERVES_NO_API),
  none("OpenAPIEnums", "BETA", true, SERVES_NO_API),
  none("RemoteRequestHeaderUID", "BETA", true, "request-header authentication is not supported here."),
  none("ResilientWatchCacheInitialization", "GA", true, SERVES_NO_API, true),
  none("RetryGenerateName", "GA", true, SERVES_NO_API, true),
  none("SeparateCacheWatchRPC", "DEPRECATED", false, SERVES_NO_API, true),
  none("ShardedListAndWatch", "ALPHA", false, SERVES_NO_API),
  none("SizeBasedListCostEstimate", "BETA", true, SERVES_NO_API),
  none("StorageVersionAPI", "ALPHA", false, SERVES_NO_API),
  none("StorageVersionHash", "BETA", true, SERVES_NO_API),
  none("StreamingCollectionEncodingToJSON", "GA", true, SERVES_NO_API, true),
  none("StreamingCollectionEncodingToProtobuf", "GA", true, SERVES_NO_API, true),
  none("StructuredAuthenticationConfiguration", "GA", true, NO_AUTH_CONFIG, true),
  none("StructuredAuthenticationConfigurationEgressSelector", "BETA", true, NO_AUTH_CONFIG),
  none("StructuredAuthenticationConfigurationJWKSMetrics", "BETA", true, NO_AUTH_CONFIG),
  none("TokenRequestServiceAccountUIDValidation", "BETA", true, SERVES_NO_API),
  none("UnauthenticatedHTTP2DOSMitigation", "BETA", true, "the secure port serves HTTP/1.1 only."),
  none("UnknownVersionInteroperabilityProxy", "BETA", true, SERVES_NO_API),
  none("WatchCacheInitializationPostStartHook", "BETA", true, SERVES_NO_API),
  none("WatchList", "BETA", true, "the manager's informers list, then watch."),
];

export const GATES_BY_NAME: ReadonlyMap<string, GateDef> = new Map(FEATURE_GATES.map((g) => [g.name, g]));

/** Every known gate's value once `--feature-gates` is applied: a gate not named has its default. */
export type FeatureGates = ReadonlyMap<string, boolean>;

export type FeatureGatesResult =
  | { ok: true; gates: FeatureGates; warnings: string[] }
  | { ok: false; errors: string[] };

/** Go's `strconv.ParseBool`. */
const BOOLS = new Map<string, boolean>([
  ...["1", "t", "T", "TRUE", "true", "True"].map((s) => [s, true] as const),
  ...["0", "f", "F", "FALSE", "false", "False"].map((s) => [s, false] as const),
]);

/** `--feature-gates`' value (`Name=bool,...`) resolved against `table`; the messages are upstream's. */
export function parseFeatureGates(value: string, table: readonly GateDef[] = FEATURE_GATES): FeatureGatesResult {
  const byName = new Map(table.map((g) => [g.name, g]));
  const errors: string[] = [];
  const set = new Map<string, boolean>();
  for (const entry of value.split(",")) {
    if (entry === "") continue;
    const at = entry.indexOf("=");
    const name = (at < 0 ? entry : entry.slice(0, at)).trim();
    if (at < 0) {
      errors.push(`--feature-gates: missing bool value for ${name}`);
      continue;
    }
    const raw = entry.slice(at + 1).trim();
    const on = BOOLS.get(raw);
    const def = byName.get(name);
    if (on === undefined) errors.push(`--feature-gates: invalid value of ${name}=${raw}: must be true or false`);
    else if (!def) errors.push(`--feature-gates: unrecognized feature gate: ${name} (--help lists the known ones)`);
    else if (def.locked && on !== def.default) {
      errors.push(`--feature-gates: cannot set feature gate ${name} to ${on}, feature is locked to ${def.default}`);
    } else set.set(name, on);
  }
  if (errors.length > 0) return { ok: false, errors };

  const gates = new Map(table.map((g) => [g.name, g.default]));
  for (const [name, on] of set) gates.set(name, on);
  for (const [all, stage] of [
    [ALL_ALPHA, "ALPHA"],
    [ALL_BETA, "BETA"],
  ] as const) {
    const on = set.get(all);
    if (on === undefined) continue;
    for (const g of table) {
      if (g.stage === stage && g.name !== ALL_ALPHA && g.name !== ALL_BETA && !set.has(g.name)) gates.set(g.name, on);
    }
  }
  const warnings = [...set.keys()].flatMap((name) => {
    const stage = byName.get(name)?.stage;
    if (stage !== "GA" && stage !== "DEPRECATED") return [];
    const kind = stage === "GA" ? "GA" : "deprecated";
    return [`setting ${kind} feature gate ${name}=${set.get(name)}; it will be removed in a future release`];
  });
  return { ok: true, gates, warnings };
}

/**
 * The gates as upstream's `--help` lists them under `--feature-gates`: one `Name=true|false (STAGE - default=v)`
 * line each, sorted, GA and deprecated gates left out (they are on their way out).
 */
export function knownFeatureLines(table: readonly GateDef[] = FEATURE_GATES): string[] {
  return table
    .filter((g) => g.stage === "ALPHA" || g.stage === "BETA")
    .map((g) => `${g.name}=true|false (${g.stage} - default=${g.default})`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
