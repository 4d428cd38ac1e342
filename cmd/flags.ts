/**
 * The upstream flag set (upstream: app/options/options.go `Flags`): names, defaults, meanings and `--help` sections, in
 * one table.
 *
 * Every flag upstream accepts is accepted here, so an operator's existing unit file or manifest keeps working.
 * Flags that have no effect in this implementation are marked (`compat(reason)`: `effect: "none"` with a `reason` that
 * says what upstream does with the flag and why it is not done here, or what to use instead); `--help` and
 * docs/flags.md print the reason, and the command logs one warning naming any such flag that was given explicitly.
 */

export type FlagKind = "bool" | "string" | "int" | "float" | "duration" | "list" | "map";

export interface FlagDef {
  readonly name: string;
  readonly kind: FlagKind;
  /** The default as it would be typed on the command line. */
  readonly default: string;
  readonly section: Section;
  readonly help: string;
  /** "none": accepted for compatibility, no effect here; always with a `reason`. */
  readonly effect?: "none";
  /** With `effect: "none"`: what upstream does with the flag and why not here, or what to use instead. */
  readonly reason?: string;
  readonly deprecated?: string;
  /** Single-letter alias (`-v`). */
  readonly alias?: string;
  /** "ours": a flag upstream does not have, documented as such. */
  readonly origin?: "ours";
}

export const SECTIONS = [
  "generic",
  "leader election",
  "cloud-node-controller",
  "service-lb-controller",
  "nodeipam controller",
  "secure serving",
  "authentication",
  "authorization",
  "webhook",
  "debugging",
  "leader-migration",
  "misc",
  "logging",
  "global",
] as const;
export type Section = (typeof SECTIONS)[number];

const flag = (
  section: Section,
  name: string,
  kind: FlagKind,
  def: string,
  help: string,
  extra: Partial<Pick<FlagDef, "effect" | "reason" | "deprecated" | "alias" | "origin">> = {},
): FlagDef => ({ name, kind, default: def, section, help, ...extra });
/** Accepted for compatibility, without effect here, for `reason` (a sentence: upstream's use, and why not here). */
const compat = (reason: string) => ({ effect: "none", reason }) as const;
const NO_CURVES =
  "Bun's TLS server (Bun.serve) has no setting for the curves; put a TLS-terminating proxy in front if a policy needs it.";
const CIPHERS =
  "Comma-separated Go cipher suite names (upstream's, e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) for TLS 1.2; TLS 1.3's suites are always on. Omitted: BoringSSL's defaults. RC4 suites are left out (BoringSSL has none).";
const MIN_VERSION =
  "Minimum TLS version supported: VersionTLS12 or VersionTLS13 (VersionTLS10 and VersionTLS11 are accepted and mean VersionTLS12: Bun serves nothing older). Omitted: TLS 1.2.";
const HTTP1_ONLY = "The port serves HTTP/1.1 only (Bun.serve), so there is no HTTP/2 to turn off or tune.";
const TOKENS_ONLY =
  "callers prove who they are by bearer token only (TokenReview); give the scraper or kubectl a ServiceAccount token.";

export const FLAGS: readonly FlagDef[] = [
  flag("generic", "cloud-provider", "string", "", "The provider for cloud services. Required."),
  flag("generic", "cloud-config", "string", "", "The path to the cloud provider configuration file. Empty for none."),
  flag(
    "generic",
    "external-cloud-volume-plugin",
    "string",
    "",
    "The plugin to use when cloud provider is set to external.",
    compat(
      "Upstream's cloud-controller-manager stores it too but none of its controllers reads it (kube-controller-manager's volume controllers do).",
    ),
  ),
  flag(
    "generic",
    "use-service-account-credentials",
    "bool",
    "false",
    "Use individual service account credentials for each controller.",
    compat(
      "Upstream then gives each controller the token of its own ServiceAccount in kube-system; here every controller uses the manager's credentials, so the manager's account needs the union of their rules: deploy/kubernetes/base/rbac.yaml's ClusterRole cloud-controller-manager (nodes, nodes/status, services, services/status, events, tokenreviews, subjectaccessreviews) and Role cloud-controller-manager:leader-election (leases in kube-system).",
    ),
  ),
  flag("generic", "allow-untagged-cloud", "bool", "false", "Allow the cluster to run without a cluster ID.", {
    deprecated: "will be removed in a future release",
  }),
  flag("generic", "route-reconciliation-period", "duration", "10s", "The period for reconciling routes."),
  flag(
    "generic",
    "cloud-api-max-answer-mib",
    "int",
    "16",
    "The largest answer, in MiB, that one cloud API call may return (1-1024); a larger one is refused unread, so a runaway answer cannot exhaust the manager's memory.",
    { origin: "ours" },
  ),
  flag("generic", "node-monitor-period", "duration", "5s", "The period for checking nodes against the cloud."),
  flag("generic", "cluster-name", "string", "kubernetes", "The instance prefix for the cluster."),
  flag("generic", "cluster-cidr", "string", "", "CIDR range(s) for pods in the cluster, comma-separated (dual stack)."),
  flag(
    "generic",
    "allocate-node-cidrs",
    "bool",
    "false",
    "Should CIDRs for Pods be allocated and set on the cloud provider: the node IPAM controller gives each Node without pod CIDRs one subnet of every --cluster-cidr.",
  ),
  flag(
    "generic",
    "cidr-allocator-type",
    "string",
    "RangeAllocator",
    "Type of CIDR allocator to use: RangeAllocator (from --cluster-cidr), or CloudAllocator (each Node's ranges from the cloud, for providers with a cidrAllocator: sandbox).",
  ),
  flag("generic", "configure-cloud-routes", "bool", "true", "Allocate and set pod CIDR routes on the cloud provider."),
  flag("generic", "node-sync-period", "duration", "0s", "The period for syncing nodes from the cloud provider.", {
    ...compat("Upstream's is a no-op as well (deprecated there: it will be deleted)."),
    deprecated: "no effect",
  }),
  flag(
    "generic",
    "min-resync-period",
    "duration",
    "12h",
    "Informer resync period, randomised between this and twice this.",
  ),
  flag(
    "generic",
    "kube-api-content-type",
    "string",
    "application/vnd.kubernetes.protobuf",
    "Content type of requests sent to the API server.",
    compat(
      "Upstream sends protobuf; this client speaks JSON only, which every API server accepts for every resource the manager uses (requests are larger, nothing else changes).",
    ),
  ),
  flag(
    "generic",
    "kube-api-qps",
    "float",
    "20",
    "QPS to use while talking with the Kubernetes API server. Unset, the API server's flow control (APF) paces the client when the server shows it (its X-Kubernetes-PF-* headers); otherwise this default holds.",
  ),
  flag(
    "generic",
    "kube-api-burst",
    "int",
    "30",
    "Burst to use while talking with the Kubernetes API server. Setting either this or --kube-api-qps keeps the client-side limit even when the server runs APF.",
  ),
  flag("generic", "controller-start-interval", "duration", "0s", "Interval between starting controller managers."),
  flag(
    "generic",
    "controllers",
    "list",
    "*",
    "Controllers to enable: '*' enables all, 'foo' enables foo, '-foo' disables foo. Known: cloud-node-controller, cloud-node-lifecycle-controller, node-ipam-controller, node-route-controller, service-lb-controller.",
  ),
  flag(
    "generic",
    "feature-gates",
    "map",
    "",
    "A set of key=value pairs that describe feature gates for alpha/experimental features. Every gate upstream accepts is accepted; docs/flags.md says what each does here.",
  ),
  flag("leader election", "leader-elect", "bool", "true", "Acquire a leader lease before running controllers."),
  flag("leader election", "leader-elect-lease-duration", "duration", "15s", "Lease duration for non-leaders."),
  flag("leader election", "leader-elect-renew-deadline", "duration", "10s", "How long the leader tries to renew."),
  flag("leader election", "leader-elect-retry-period", "duration", "2s", "Wait between acquire and renew attempts."),
  flag("leader election", "leader-elect-resource-lock", "string", "leases", "The lock type; only 'leases'."),
  flag("leader election", "leader-elect-resource-name", "string", "cloud-controller-manager", "The lease's name."),
  flag("leader election", "leader-elect-resource-namespace", "string", "kube-system", "The lease's namespace."),
  flag(
    "cloud-node-controller",
    "concurrent-node-syncs",
    "int",
    "0",
    "Workers initialising nodes in parallel. 0 (automatic): as many as the provider's declared API rate limit allows (up to 32), or 1 without one. Upstream's default is 1.",
  ),
  flag(
    "cloud-node-controller",
    "concurrent-node-status-updates",
    "int",
    "0",
    "Parallelism of the periodic address refresh; 0 uses the initialisation workers' count.",
  ),
  flag(
    "service-lb-controller",
    "concurrent-service-syncs",
    "int",
    "1",
    "Services synced in parallel, and the parallelism of node-triggered host updates.",
  ),
  flag(
    "nodeipam controller",
    "service-cluster-ip-range",
    "string",
    "",
    "CIDR Range for Services in cluster (up to two, comma-separated); their subnets are never given to Nodes. Requires --allocate-node-cidrs to be true.",
  ),
  flag("nodeipam controller", "node-cidr-mask-size", "int", "0", "Mask size for node cidr in cluster (single stack)."),
  flag(
    "nodeipam controller",
    "node-cidr-mask-size-ipv4",
    "int",
    "0",
    "Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.",
  ),
  flag(
    "nodeipam controller",
    "node-cidr-mask-size-ipv6",
    "int",
    "0",
    "Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.",
  ),
  flag("secure serving", "bind-address", "string", "0.0.0.0", "Address to serve HTTPS on."),
  flag("secure serving", "secure-port", "int", "10258", "Port to serve HTTPS on; 0 turns serving off."),
  flag(
    "secure serving",
    "cert-dir",
    "string",
    "",
    "Without --tls-cert-file: the folder of cloud-controller-manager.crt/.key, generated (self-signed, localhost) when missing and kept across restarts; empty generates one in memory.",
  ),
  flag("secure serving", "tls-cert-file", "string", "", "Serving certificate file (PEM)."),
  flag("secure serving", "tls-private-key-file", "string", "", "Serving key file (PEM)."),
  flag("secure serving", "tls-cipher-suites", "list", "", CIPHERS),
  flag("secure serving", "tls-curve-preferences", "list", "", "Elliptic curves for ECDHE.", compat(NO_CURVES)),
  flag("secure serving", "tls-min-version", "string", "", MIN_VERSION),
  flag(
    "secure serving",
    "tls-sni-cert-key",
    "string",
    "",
    "Certificate and key pairs chosen by the SNI name a client asks for.",
    compat(
      "Upstream serves the pair whose names match the name a client asks for; here one certificate (--tls-cert-file or --cert-dir) is served for every name, so put every name in its subjectAltName.",
    ),
  ),
  flag("secure serving", "disable-http2-serving", "bool", "false", "Disable HTTP/2 serving.", compat(HTTP1_ONLY)),
  flag(
    "secure serving",
    "http2-max-streams-per-connection",
    "int",
    "0",
    "Limit of HTTP/2 streams per client connection.",
    compat(HTTP1_ONLY),
  ),
  flag(
    "secure serving",
    "permit-port-sharing",
    "bool",
    "false",
    "Bind the port with SO_REUSEPORT, so more than one process can listen on it.",
  ),
  flag(
    "secure serving",
    "permit-address-sharing",
    "bool",
    "false",
    "Bind the address with SO_REUSEADDR.",
    compat("Bun's listener always binds with SO_REUSEADDR, so the flag's effect is always on."),
  ),
  flag("authentication", "authentication-kubeconfig", "string", "", "Kubeconfig for TokenReview; empty: --kubeconfig."),
  flag("authentication", "authentication-token-webhook-cache-ttl", "duration", "10s", "Cache of TokenReview answers."),
  flag(
    "authentication",
    "client-ca-file",
    "string",
    "",
    "Authenticate callers presenting a client certificate signed by this CA.",
    compat(
      `Bun's HTTP server (Bun.serve) does not hand a request's client certificate to its handler, so no identity can be read from one: ${TOKENS_ONLY}`,
    ),
  ),
  ...(
    [
      ["requestheader-username-headers", "x-remote-user", "Request headers naming the user."],
      ["requestheader-uid-headers", "", "Request headers naming the user's UID."],
      ["requestheader-group-headers", "x-remote-group", "Request headers naming the groups."],
      ["requestheader-extra-headers-prefix", "x-remote-extra-", "Prefixes of request headers with extra user data."],
      ["requestheader-client-ca-file", "", "The CA a front proxy's client certificate must be signed by."],
      ["requestheader-allowed-names", "", "Common names a front proxy's client certificate may have."],
    ] as const
  ).map(([name, def, help]) =>
    flag(
      "authentication",
      name,
      name === "requestheader-client-ca-file" ? "string" : "list",
      def,
      help,
      compat(`Upstream trusts a front proxy's identity headers; no proxy's headers are trusted here: ${TOKENS_ONLY}`),
    ),
  ),
  flag(
    "authentication",
    "authentication-skip-lookup",
    "bool",
    "false",
    "Do not look up the client CA and request-header settings in kube-system/extension-apiserver-authentication.",
    compat("There is nothing to look up: client certificates and request headers are not authenticated here."),
  ),
  flag(
    "authentication",
    "authentication-tolerate-lookup-failure",
    "bool",
    "false",
    "Start even when that lookup fails.",
    compat("There is nothing to look up: client certificates and request headers are not authenticated here."),
  ),
  flag("authorization", "authorization-kubeconfig", "string", "", "Kubeconfig for SubjectAccessReview."),
  flag("authorization", "authorization-webhook-cache-authorized-ttl", "duration", "10s", "Cache of allowed answers."),
  flag("authorization", "authorization-webhook-cache-unauthorized-ttl", "duration", "10s", "Cache of denied answers."),
  flag(
    "authorization",
    "authorization-always-allow-paths",
    "list",
    "/healthz,/readyz,/livez",
    "Paths served without authentication or authorisation.",
  ),
  flag(
    "webhook",
    "webhooks",
    "list",
    "",
    "The provider's admission webhooks to serve: '*' all, 'foo' one, '-foo' not that one; empty serves none. Needs --feature-gates=CloudControllerManagerWebhook=true. The providers' webhook: service-annotations (hcloud, metal, sandbox), refusing a LoadBalancer Service with an invalid annotation.",
  ),
  flag("webhook", "webhook-bind-address", "string", "0.0.0.0", "Address to serve the webhooks on."),
  flag(
    "webhook",
    "webhook-secure-port",
    "int",
    "10260",
    "Port to serve the webhooks on (HTTPS, each at its own path: /service-annotations); 0 disables.",
  ),
  flag(
    "webhook",
    "webhook-disable-http2-serving",
    "bool",
    "false",
    "Disable HTTP/2 serving on the webhook port.",
    compat(HTTP1_ONLY),
  ),
  flag(
    "webhook",
    "webhook-cert-dir",
    "string",
    "",
    "Without --webhook-tls-cert-file: the folder of cloud-controller-manager-webhook.crt/.key, generated (self-signed, localhost) when missing; empty generates one in memory.",
  ),
  flag(
    "webhook",
    "webhook-tls-cert-file",
    "string",
    "",
    "Webhook serving certificate file (PEM), reloaded when it changes.",
  ),
  flag("webhook", "webhook-tls-private-key-file", "string", "", "Webhook serving key file (PEM)."),
  flag("webhook", "webhook-tls-cipher-suites", "list", "", `Webhook cipher suites. ${CIPHERS}`),
  flag("webhook", "webhook-tls-curve-preferences", "list", "", "Webhook elliptic curves for ECDHE.", compat(NO_CURVES)),
  flag(
    "webhook",
    "webhook-tls-min-version",
    "string",
    "",
    `Webhook ${MIN_VERSION[0]?.toLowerCase()}${MIN_VERSION.slice(1)}`,
  ),
  flag(
    "webhook",
    "webhook-tls-sni-cert-key",
    "string",
    "",
    "Webhook certificate and key pairs chosen by SNI name.",
    compat(
      "Upstream serves the pair whose names match the name the API server asks for; here one certificate (--webhook-tls-cert-file or --webhook-cert-dir) is served for every name, so put every name in its subjectAltName.",
    ),
  ),
  flag("debugging", "profiling", "bool", "true", "Serve the heap's figures on the secure port (/debug/heap/stats)."),
  flag(
    "debugging",
    "heap-snapshot",
    "bool",
    "false",
    "Serve heap snapshots on the secure port (/debug/heap/snapshot). A snapshot holds every secret in the process in clear: leave it off unless you are taking one.",
    { origin: "ours" },
  ),
  flag(
    "debugging",
    "contention-profiling",
    "bool",
    "false",
    "Enable block profiling, if profiling is enabled.",
    compat(
      "Upstream turns on Go's block profiler (/debug/pprof/block); Bun has none. --profiling serves the heap's figures.",
    ),
  ),
  flag(
    "leader-migration",
    "enable-leader-migration",
    "bool",
    "false",
    "Whether to enable controller leader migration (only with --leader-elect): the controllers the migration config names run under its lock.",
  ),
  flag(
    "leader-migration",
    "leader-migration-config",
    "string",
    "",
    "Path to the LeaderMigrationConfiguration file (controllermanager.config.k8s.io v1, v1beta1 or v1alpha1), or empty for upstream's default.",
  ),
  flag("misc", "master", "string", "", "The Kubernetes API server address (overrides the kubeconfig)."),
  flag("misc", "kubeconfig", "string", "", "Path to a kubeconfig; empty uses in-cluster config or $KUBECONFIG."),
  flag("misc", "node-status-update-frequency", "duration", "5m", "Period of the node address refresh."),
  flag("logging", "v", "int", "0", "Log verbosity: 0 info, 2 steady-state detail, 4 and up debug.", { alias: "v" }),
  flag(
    "logging",
    "vmodule",
    "string",
    "",
    "pattern=N,... verbosity per logger name (controller or provider), glob patterns.",
  ),
  flag("logging", "logging-format", "string", "text", "Log format: text or json."),
  flag(
    "logging",
    "log-flush-frequency",
    "duration",
    "5s",
    "Maximum number of seconds between log flushes.",
    compat("Upstream flushes klog's buffer this often; here each line is written unbuffered as it is logged."),
  ),
  flag(
    "logging",
    "log-text-split-stream",
    "bool",
    "false",
    "[Alpha] In text format, write error messages to stderr and info messages to stdout; the default is one stream, stderr. Needs --feature-gates=LoggingAlphaOptions=true.",
  ),
  flag(
    "logging",
    "log-text-info-buffer-size",
    "string",
    "0",
    "[Alpha] In text format with split output streams, buffer info messages up to this size. Needs --feature-gates=LoggingAlphaOptions=true.",
    compat("Upstream buffers the info stream to save writes; here every line is written unbuffered as it is logged."),
  ),
  flag("global", "version", "string", "", "Print version information and quit (--version=raw for JSON)."),
  flag("global", "help", "bool", "false", "Help for the command.", { alias: "h" }),
];

export const FLAGS_BY_NAME: ReadonlyMap<string, FlagDef> = new Map(FLAGS.map((f) => [f.name, f]));
