import { describe, expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../providers/kit/duration.ts";
import { parseArgv } from "./argv.ts";
import { buildOptions } from "./options.ts";

const optionsFor = (...argv: string[]) => buildOptions(parseArgv(["--cloud-provider=fake", ...argv]).values);
const errorsFor = (...argv: string[]) => {
  const r = optionsFor(...argv);
  return r.ok ? [] : r.errors;
};

describe("parseArgv", () => {
  test.each([
    ["--name=value", ["--cluster-name=c1"], { "cluster-name": "c1" }],
    ["--name value", ["--cluster-name", "c1"], { "cluster-name": "c1" }],
    ["a bare boolean is true", ["--leader-elect"], { "leader-elect": "true" }],
    ["a boolean with =false", ["--leader-elect=false"], { "leader-elect": "false" }],
    ["-v=2 and --v=2 are the same flag", ["-v=2"], { v: "2" }],
    ["-v 3", ["-v", "3"], { v: "3" }],
    ["the last repeat wins", ["--cluster-name=a", "--cluster-name=b"], { "cluster-name": "b" }],
    ["a value may contain '='", ["--feature-gates=A=true"], { "feature-gates": "A=true" }],
    [
      "repeats of a map add up, as pflag's",
      ["--feature-gates=A=true", "--feature-gates", "B=false"],
      { "feature-gates": "A=true,B=false" },
    ],
  ])("reads %s", (_name, argv, want) => {
    const parsed = parseArgv(argv);
    expect(Object.fromEntries(parsed.values)).toEqual(want);
    expect(parsed.errors).toEqual([]);
  });

  test("reports every unknown flag and a missing value together", () => {
    expect(parseArgv(["--bogus=1", "-x", "--cluster-name"]).errors).toEqual([
      "unknown flag: --bogus",
      "unknown shorthand flag: 'x' in -x",
      "flag needs an argument: --cluster-name",
    ]);
  });

  test("keeps positional arguments apart", () => {
    expect(parseArgv(["extra", "--leader-elect", "more"]).positionals).toEqual(["extra", "more"]);
  });
});

describe("buildOptions", () => {
  test("applies upstream defaults (and ours where the issue asks for them)", () => {
    const r = optionsFor();
    if (!r.ok) throw new Error(r.errors.join("; "));
    const o = r.options;
    expect(o.clusterName).toBe("kubernetes");
    expect(o.nodeMonitorPeriodMs).toBe(5000);
    expect(o.routeReconciliationPeriodMs).toBe(10_000);
    expect(o.nodeStatusUpdateFrequencyMs).toBe(300_000);
    expect(o.minResyncPeriodMs).toBe(12 * 3_600_000);
    expect(o.kubeApiQps).toBe(20);
    expect(o.kubeApiBurst).toBe(30);
    expect(o.controllers).toEqual(["*"]);
    expect(o.configureCloudRoutes).toBe(true);
    expect(o.leaderElection).toEqual({
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
      resourceLock: "leases",
      name: "cloud-controller-manager",
      namespace: "kube-system",
    });
    expect(o.serving.securePort).toBe(10258);
    expect(o.serving.bindAddress).toBe("0.0.0.0");
    expect(o.serving.alwaysAllowPaths).toEqual(["/healthz", "/readyz", "/livez"]);
    expect(o.concurrentNodeSyncs).toBe(0); // automatic (upstream: 1); the node controller sizes it
    expect(o.concurrentServiceSyncs).toBe(1);
    expect(o.cloudApiMaxAnswerBytes).toBe(16 * 1024 * 1024);
  });

  test("uses --concurrent-node-syncs for the refresh when --concurrent-node-status-updates is 0", () => {
    const r = optionsFor("--concurrent-node-syncs=8");
    expect(r.ok && r.options.concurrentNodeStatusUpdates).toBe(8);
    const r2 = optionsFor("--concurrent-node-syncs=8", "--concurrent-node-status-updates=3");
    expect(r2.ok && r2.options.concurrentNodeStatusUpdates).toBe(3);
  });

  test("rewrites --controllers to canonical names", () => {
    const r = optionsFor("--controllers=*,-route,service");
    expect(r.ok && r.options.controllers).toEqual(["*", "-node-route-controller", "service-lb-controller"]);
  });

  // Each bad value is one problem: a value that does not parse is not also judged by the checks after parsing.
  test.each([
    [
      "a bare number as a duration",
      ["--node-monitor-period=5"],
      ['--node-monitor-period needs a unit, like 5s or 5m, got "5"'],
    ],
    [
      "a word as a duration",
      ["--node-monitor-period=soon"],
      ['--node-monitor-period must be a duration like 5s or 1m30s, got "soon"'],
    ],
    [
      "a bare number for a compatibility-only duration",
      ["--log-flush-frequency=5"],
      ['--log-flush-frequency needs a unit, like 5s or 5m, got "5"'],
    ],
    ["a word as the QPS", ["--kube-api-qps=fast"], ['--kube-api-qps must be a number like 20 or 0.5, got "fast"']],
    [
      "a secure port above the range",
      ["--secure-port=70000"],
      ["--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got 70000"],
    ],
    [
      "a secure port below the range",
      ["--secure-port=-1"],
      ["--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got -1"],
    ],
  ])("reports %s as exactly one problem", (_name, argv, want) => {
    expect(errorsFor(...argv)).toEqual(want);
  });

  test("reports both problems of the issue's example at once", () => {
    expect(errorsFor("--concurrent-service-syncs=0", "--node-monitor-period=-1s")).toEqual([
      '--node-monitor-period must be greater than 0, got "-1s"',
      "--concurrent-service-syncs must be at least 1, got 0",
    ]);
  });

  test.each([
    [
      "an empty provider",
      ["--cloud-provider="],
      "--cloud-provider is required: name the cloud provider to run (--help lists them)",
    ],
    ["an unknown controller", ["--controllers=*,-bogus-ipam"], '"bogus-ipam" is not in the list of known controllers'],
    [
      "--allocate-node-cidrs without --cluster-cidr",
      ["--allocate-node-cidrs=true"],
      "Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set",
    ],
    [
      "a node mask wider than the cluster CIDR",
      ["--allocate-node-cidrs=true", "--cluster-cidr=10.0.0.0/25"],
      "Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family",
    ],
    [
      "--node-cidr-mask-size with dual stack",
      ["--allocate-node-cidrs=true", "--cluster-cidr=10.0.0.0/8,fd00::/48", "--node-cidr-mask-size=24"],
      "usage of --node-cidr-mask-size is not allowed with dual-stack clusters",
    ],
    [
      "an unknown CIDR allocator type",
      ["--allocate-node-cidrs=true", "--cluster-cidr=10.0.0.0/8", "--cidr-allocator-type=IPAMFromCloud"],
      "invalid CIDR allocator type: IPAMFromCloud",
    ],
    ["a node mask past IPv4's bits", ["--node-cidr-mask-size-ipv4=33"], "--node-cidr-mask-size-ipv4 must be"],
    ["a lock other than leases", ["--leader-elect-resource-lock=endpoints"], 'resourceLock value must be "leases"'],
    [
      "one webhook file without the other",
      ["--webhook-tls-cert-file=/etc/ccm/webhook.crt"],
      "--webhook-tls-cert-file and --webhook-tls-private-key-file must be given together",
    ],
    [
      "a negative secure port",
      ["--secure-port=-1"],
      "--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got -1",
    ],
    [
      "a secure port above 65535",
      ["--secure-port=70000"],
      "--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got 70000",
    ],
    [
      "a webhook port out of range",
      ["--webhook-secure-port=70000"],
      "--webhook-secure-port must be between 0 and 65535, inclusive (0 turns the webhook endpoint off), got 70000",
    ],
    [
      "the webhook port equal to the secure port",
      ["--webhook-secure-port=10258"],
      "--webhook-secure-port cannot be the same value as --secure-port",
    ],
    [
      "a bad duration",
      ["--min-resync-period=soon"],
      '--min-resync-period must be a duration like 5s or 1m30s, got "soon"',
    ],
    ["a bad boolean", ["--leader-elect=yes"], '--leader-elect must be true or false, got "yes"'],
    ["a bad number", ["--kube-api-burst=lots"], '--kube-api-burst must be a whole number, got "lots"'],
    [
      "a cloud answer bound past 1 GiB",
      ["--cloud-api-max-answer-mib=4096"],
      "--cloud-api-max-answer-mib must be between 1 and 1024, inclusive, got 4096",
    ],
    ["a zero QPS", ["--kube-api-qps=0"], '--kube-api-qps must be a number greater than 0, got "0"'],
    ["a QPS that is no number", ["--kube-api-qps=fast"], '--kube-api-qps must be a number like 20 or 0.5, got "fast"'],
    ["an empty QPS", ["--kube-api-qps="], '--kube-api-qps must be a number like 20 or 0.5, got ""'],
    ["a bad log format", ["--logging-format=xml"], '--logging-format must be text or json, got "xml"'],
    [
      "half a serving key pair",
      ["--tls-cert-file=/x.crt"],
      "--tls-cert-file and --tls-private-key-file must be given together",
    ],
    [
      "a bad value of a compatibility-only flag",
      ["--contention-profiling=maybe"],
      '--contention-profiling must be true or false, got "maybe"',
    ],
    ["an unknown TLS version", ["--tls-min-version=TLS1.3"], '--tls-min-version: unknown tls version "TLS1.3"'],
    [
      "an unknown webhook cipher suite",
      ["--webhook-tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,AES128-SHA"],
      "--webhook-tls-cipher-suites: Cipher suite AES128-SHA not supported or doesn't exist",
    ],
    [
      "an unknown feature gate",
      ["--feature-gates=Nope=true"],
      "--feature-gates: unrecognized feature gate: Nope (--help lists the known ones)",
    ],
    [
      "JSON logs with the beta logging options turned off",
      ["--logging-format=json", "--feature-gates=LoggingBetaOptions=false"],
      "--logging-format: Log format json is disabled, see LoggingBetaOptions feature",
    ],
    [
      "split log streams without the alpha logging options",
      ["--log-text-split-stream=true"],
      "--log-text-split-stream: Feature LoggingAlphaOptions is disabled",
    ],
    [
      "an info buffer without the alpha logging options",
      ["--log-text-info-buffer-size=4Ki"],
      "--log-text-info-buffer-size: Feature LoggingAlphaOptions is disabled",
    ],
    [
      "a period the runtime's timers cannot hold",
      ["--route-reconciliation-period=600h"],
      '--route-reconciliation-period must be at most 596h31m23.647s (the longest timer the runtime holds), got "600h"',
    ],
    [
      "an absurdly long period",
      ["--node-monitor-period=999999999999h"],
      "--node-monitor-period must be at most 596h31m23.647s",
    ],
    [
      "a resync period whose doubled value overflows a timer",
      ["--min-resync-period=300h"],
      "--min-resync-period must be at most 298h15m41.823s (half the longest timer the runtime holds",
    ],
    [
      "a period below a millisecond",
      ["--node-status-update-frequency=1ns"],
      '--node-status-update-frequency must be at least 1ms, got "1ns"',
    ],
    [
      "a TTL beyond a timer",
      ["--authentication-token-webhook-cache-ttl=1000h"],
      "--authentication-token-webhook-cache-ttl must be at most",
    ],
    [
      "an overlong cluster name",
      [`--cluster-name=${"x".repeat(100_000)}`],
      "--cluster-name must be at most 253 characters, got 100000",
    ],
    [
      "a cluster name with control characters",
      ["--cluster-name=prod\u001b[31m\nx"],
      '--cluster-name must not contain control or other unprintable characters, got "prod\\u001b[31m\\nx"',
    ],
    [
      "two cluster CIDRs of one family",
      ["--cluster-cidr=10.0.0.0/16,10.1.0.0/16"],
      "--cluster-cidr is invalid: len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily",
    ],
    [
      "three cluster CIDRs",
      ["--cluster-cidr=10.0.0.0/16,fd00::/48,10.1.0.0/16"],
      "--cluster-cidr is invalid: length of clusterCIDRs is:3 more than max allowed of 2",
    ],
    [
      "a cluster CIDR with a prefix too long",
      ["--cluster-cidr=10.0.0.0/99"],
      '--cluster-cidr is invalid: failed to parse cidr value:"10.0.0.0/99" with error:',
    ],
  ])("rejects %s", (_name, argv, want) => {
    expect(errorsFor(...argv).join("\n")).toContain(want);
  });

  test.each([
    ["the longest period a timer holds", ["--node-monitor-period=596h31m23.647s"]],
    ["a dual-stack pair of cluster CIDRs", ["--cluster-cidr=10.0.0.0/16,fd00::/48"]],
    ["an empty cluster CIDR (the route controller declines)", ["--cluster-cidr="]],
    ["a cluster name of 253 characters", [`--cluster-name=${"c".repeat(253)}`]],
    ["upstream's component-base gates", ["--feature-gates=AllBeta=true,ContextualLogging=true"]],
    ["split log streams with the alpha logging options", ["--log-text-split-stream", "--feature-gates=AllAlpha=true"]],
  ])("accepts %s", (_name, argv) => {
    expect(errorsFor(...argv)).toEqual([]);
  });

  test("reports a bad --cluster-cidr with the other flag errors", () => {
    expect(errorsFor("--cluster-cidr=10.0.0.0/99", "--route-reconciliation-period=600h")).toHaveLength(2);
  });

  test("node IPAM flags are not checked when the controller does not run", () => {
    expect(errorsFor("--allocate-node-cidrs=true", "--controllers=*,-nodeipam")).toEqual([]);
    expect(errorsFor("--node-cidr-mask-size=24", "--cluster-cidr=10.0.0.0/8,fd00::/48")).toEqual([]);
  });

  test("lists compatibility-only flags that were given", () => {
    const r = optionsFor("--allocate-node-cidrs=true", "--cluster-cidr=10.0.0.0/8", "--contention-profiling=true");
    expect(r.ok && r.ignored).toEqual(["contention-profiling"]);
  });

  test("lists feature gates without effect that were given, and warns of a deprecated one", () => {
    const r = optionsFor("--feature-gates=ContextualLogging=false,KMSv1=false,AllBeta=true");
    expect(r.ok && r.ignored).toEqual(["feature-gates=ContextualLogging", "feature-gates=KMSv1"]);
    expect(r.ok && r.warnings).toEqual([
      "setting deprecated feature gate KMSv1=false; it will be removed in a future release",
    ]);
  });

  test("hands the controllers every gate's value, defaults included", () => {
    const r = optionsFor("--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true");
    expect(r.ok && r.options.featureGates.get("CloudControllerManagerWatchBasedRoutesReconciliation")).toBe(true);
    expect(r.ok && r.options.featureGates.get("ContextualLogging")).toBe(true);
  });
});

describe("Go durations", () => {
  test.each([
    ["5s", 5000],
    ["1m30s", 90_000],
    ["300ms", 300],
    ["1.5h", 5_400_000],
    ["-1s", -1000],
    ["0", 0],
    ["12h", 43_200_000],
  ])("parses %p", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each(["", "5", "s", "5 s", "1d", "5s3"])("rejects %p", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  test.each([
    [0, "0s"],
    [500, "500ms"],
    [90_000, "1m30s"],
    [3_600_000, "1h0m0s"],
  ])("formats %p as %p", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
