import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { rejection } from "../testing.ts";
import { type HcloudConfig, hcloudSettingNames, readHcloudConfig } from "./config.ts";

const TOKEN = "t".repeat(64);
const files: Record<string, string> = { "/run/token": `${TOKEN}\n`, "/run/user": "robot-user\n", "/run/empty": " \n" };
const readFile = async (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return text;
};

const read = (env: Record<string, string>, config?: string) =>
  readHcloudConfig({ env: { HCLOUD_TOKEN: TOKEN, ...env }, config, configSource: "cc.yaml", readFile });

/** The problems of a configuration that must fail, as variable → message. */
async function problems(env: Record<string, string>, config?: string): Promise<Record<string, string>> {
  const err = await rejection(() => read(env, config));
  if (!(err instanceof ConfigError)) throw err;
  return Object.fromEntries(err.issues.map((i) => [i.path, i.message]));
}

describe("hcloud configuration", () => {
  test("takes hccm's defaults when only the token is set", async () => {
    const { config, warnings } = await read({});
    expect(config).toEqual({
      token: TOKEN,
      endpoint: "https://api.hetzner.cloud/v1",
      debug: false,
      rateLimit: { qps: 0.9, burst: 10 },
      network: undefined,
      networkAttachedCheck: true,
      routesEnabled: false,
      instances: { addressFamily: "ipv4", zoneLabel: true },
      serverCache: { mode: "all", maxAgeMs: 10_000 },
      metrics: { enabled: true, address: ":8233" },
      loadBalancers: {
        enabled: true,
        location: undefined,
        networkZone: undefined,
        privateIngress: true,
        usePrivateIP: false,
        proxyProtocol: undefined,
        ipv6: true,
        disablePublicNetwork: undefined,
        privateSubnetIPRange: undefined,
        algorithm: undefined,
        healthCheck: { intervalMs: undefined, timeoutMs: undefined, retries: undefined },
        type: undefined,
      },
      robot: {
        enabled: false,
        endpoint: "https://robot-ws.your-server.de",
        credentials: undefined,
        cacheTimeoutMs: 300_000,
        rateLimitWaitMs: 0,
        forwardInternalIPs: false,
      },
    });
    expect(warnings).toEqual([]);
  });

  // One row per variable: a value hccm accepts, where it lands, and a value it must refuse with the message.
  const rows: [string, string, (c: HcloudConfig) => unknown, unknown, string, string][] = [
    ["HCLOUD_TOKEN", "abc", (c) => c.token, "abc", "has spaces", "must be a Hetzner Cloud API token"],
    [
      "HCLOUD_ENDPOINT",
      "http://127.0.0.1:4000/v1/",
      (c) => c.endpoint,
      "http://127.0.0.1:4000/v1",
      "api.hetzner.cloud",
      "must be an http(s) URL",
    ],
    ["HCLOUD_DEBUG", "T", (c) => c.debug, true, "yes", "must be true or false"],
    ["HCLOUD_RATE_LIMIT_QPS", "20", (c) => c.rateLimit.qps, 20, "2000", "must be at most 1000 requests a second"],
    ["HCLOUD_RATE_LIMIT_BURST", "50", (c) => c.rateLimit.burst, 50, "0", "must be at least 1"],
    ["HCLOUD_NETWORK", "4711", (c) => c.network, "4711", "my net", "must be the name or ID of a Hetzner Cloud network"],
    ["HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK", "1", (c) => c.networkAttachedCheck, false, "on", "must be true or false"],
    ["HCLOUD_NETWORK_ROUTES_ENABLED", "false", (c) => c.routesEnabled, false, "nope", "must be true or false"],
    [
      "HCLOUD_INSTANCES_ADDRESS_FAMILY",
      "dualstack",
      (c) => c.instances.addressFamily,
      "dualstack",
      "ipv5",
      "must be ipv4, ipv6 or dualstack",
    ],
    ["HCLOUD_INSTANCES_ZONE_LABEL_ENABLED", "false", (c) => c.instances.zoneLabel, false, "2", "must be true or false"],
    ["HCLOUD_SERVER_CACHE_MODE", "one", (c) => c.serverCache.mode, "one", "some", "must be all, one or off"],
    [
      "HCLOUD_SERVER_CACHE_MAX_AGE",
      "1m30s",
      (c) => c.serverCache.maxAgeMs,
      90_000,
      "-5s",
      "must be a Go duration that is not negative",
    ],
    ["HCLOUD_METRICS_ENABLED", "f", (c) => c.metrics.enabled, false, "off", "must be true or false"],
    [
      "HCLOUD_METRICS_ADDRESS",
      "[::1]:9000",
      (c) => c.metrics.address,
      "[::1]:9000",
      "8233",
      "must be host:port or :port",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_ENABLED",
      "FALSE",
      (c) => c.loadBalancers.enabled,
      false,
      "disabled",
      "must be true or false",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_LOCATION",
      "fsn1",
      (c) => c.loadBalancers.location,
      "fsn1",
      "FSN 1",
      "must be a location name",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE",
      "eu-central",
      (c) => c.loadBalancers.networkZone,
      "eu-central",
      "EU",
      "must be a network zone",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS",
      "true",
      (c) => c.loadBalancers.privateIngress,
      false,
      "y",
      "must be true or false",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP",
      "true",
      (c) => c.loadBalancers.usePrivateIP,
      true,
      "y",
      "must be true or false",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL",
      "false",
      (c) => c.loadBalancers.proxyProtocol,
      false,
      "y",
      "must be true or false",
    ],
    ["HCLOUD_LOAD_BALANCERS_DISABLE_IPV6", "true", (c) => c.loadBalancers.ipv6, false, "y", "must be true or false"],
    [
      "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK",
      "true",
      (c) => c.loadBalancers.disablePublicNetwork,
      true,
      "y",
      "must be true or false",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE",
      "10.0.1.0/24",
      (c) => c.loadBalancers.privateSubnetIPRange,
      "10.0.1.0/24",
      "10.0.1.0",
      "must be a CIDR",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE",
      " Least_Connections ",
      (c) => c.loadBalancers.algorithm,
      "least_connections",
      "random",
      "must be round_robin or least_connections",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL",
      "15s",
      (c) => c.loadBalancers.healthCheck.intervalMs,
      15_000,
      "999999999h",
      "must be whole seconds from 1s to 3600s",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT",
      "1m",
      (c) => c.loadBalancers.healthCheck.timeoutMs,
      60_000,
      "0s",
      "must be whole seconds from 1s to 3600s",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES",
      "5",
      (c) => c.loadBalancers.healthCheck.retries,
      5,
      "99",
      "must be an integer from 1 to 5",
    ],
    [
      "HCLOUD_LOAD_BALANCERS_TYPE",
      "lb21",
      (c) => c.loadBalancers.type,
      "lb21",
      "LB 21",
      "must be a load balancer type name",
    ],
    ["ROBOT_ENABLED", "true", (c) => c.robot.enabled, true, "enabled", "must be true or false"],
    [
      "ROBOT_ENDPOINT",
      "http://127.0.0.1:4001/",
      (c) => c.robot.endpoint,
      "http://127.0.0.1:4001",
      "robot-ws",
      "must be an http(s) URL",
    ],
    ["ROBOT_USER", "#ws+abc", (c) => c.robot.credentials?.user, "#ws+abc", "a:b", "must be the Robot webservice user"],
    ["ROBOT_CACHE_TIMEOUT", "90s", (c) => c.robot.cacheTimeoutMs, 90_000, "5 minutes", "must be a Go duration"],
    ["ROBOT_RATE_LIMIT_WAIT_TIME", "10m", (c) => c.robot.rateLimitWaitMs, 600_000, "10", "must be a Go duration"],
    ["ROBOT_FORWARD_INTERNAL_IPS", "0", (c) => c.robot.forwardInternalIPs, false, "no", "must be true or false"],
  ];
  /** What a row needs beside its own variable to be valid, and to be seen. */
  const context: Record<string, Record<string, string>> = {
    HCLOUD_NETWORK_ROUTES_ENABLED: { HCLOUD_NETWORK: "k8s" },
    ROBOT_USER: { ROBOT_ENABLED: "true", ROBOT_PASSWORD: "pw-secret" },
    ROBOT_FORWARD_INTERNAL_IPS: { ROBOT_ENABLED: "true" },
  };

  test("has a row for every variable but the password, whose rows are below", () => {
    expect(rows.map((r) => r[0]).sort()).toEqual(hcloudSettingNames.filter((n) => n !== "ROBOT_PASSWORD").sort());
  });

  test.each(rows)("reads %s=%p", async (key, good, field, want) => {
    const { config } = await read({ ...context[key], [key]: good });
    expect(field(config)).toEqual(want);
  });

  test.each(rows)("refuses %s when it is invalid, naming it", async (key, _good, _field, _want, bad, message) => {
    const got = await problems({ ...context[key], [key]: bad });
    expect(Object.keys(got)).toEqual([key]);
    expect(got[key]).toContain(message);
    const secret = key === "HCLOUD_TOKEN" || key === "ROBOT_USER";
    expect(got[key]?.includes(JSON.stringify(bad))).toBe(!secret);
  });

  test("reports every problem at once, never with a secret's value", async () => {
    const got = await problems({
      HCLOUD_TOKEN: "not a token",
      HCLOUD_INSTANCES_ADDRESS_FAMILY: "ipv5",
      HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
      HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: "eu-central",
      ROBOT_ENABLED: "true",
      ROBOT_PASSWORD: "hunter2-secret",
      HCLOUD_NETWORK: "k8s",
      HCLOUD_NETWROK: "k8s",
    });
    expect(got).toEqual({
      HCLOUD_NETWROK: "is not read by the hcloud provider; did you mean HCLOUD_NETWORK?",
      HCLOUD_TOKEN: "must be a Hetzner Cloud API token: printable characters without spaces",
      HCLOUD_INSTANCES_ADDRESS_FAMILY: 'is "ipv5"; must be ipv4, ipv6 or dualstack',
      HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: "is set together with HCLOUD_LOAD_BALANCERS_LOCATION; set only one of them",
      ROBOT_USER: "is required with ROBOT_PASSWORD: set both (or their _FILE forms), or neither",
      HCLOUD_NETWORK_ROUTES_ENABLED:
        "must be false with ROBOT_ENABLED: routes are not supported with Robot servers (they default to true when HCLOUD_NETWORK is set)",
    });
    expect(JSON.stringify(got)).not.toContain("hunter2");
  });

  test.each([
    ["no token at all", { HCLOUD_TOKEN: "" }, "HCLOUD_TOKEN", "is required: the Hetzner Cloud project's API token"],
    [
      "a token given both ways",
      { HCLOUD_TOKEN_FILE: "/run/token" },
      "HCLOUD_TOKEN",
      "both as HCLOUD_TOKEN and as HCLOUD_TOKEN_FILE",
    ],
    [
      "a token file that is not there",
      { HCLOUD_TOKEN: "", HCLOUD_TOKEN_FILE: "/run/none" },
      "HCLOUD_TOKEN_FILE",
      'cannot read "/run/none": ENOENT',
    ],
    [
      "an empty token file",
      { HCLOUD_TOKEN: "", HCLOUD_TOKEN_FILE: "/run/empty" },
      "HCLOUD_TOKEN_FILE",
      'names "/run/empty", which is empty',
    ],
    [
      "a password without a user",
      { ROBOT_ENABLED: "1", ROBOT_PASSWORD: "pw-secret" },
      "ROBOT_USER",
      "is required with ROBOT_PASSWORD",
    ],
    [
      "a user without a password",
      { ROBOT_ENABLED: "1", ROBOT_USER_FILE: "/run/user" },
      "ROBOT_PASSWORD",
      "is required with ROBOT_USER",
    ],
    [
      "Robot with routes on by default",
      { ROBOT_ENABLED: "1", HCLOUD_NETWORK: "k8s" },
      "HCLOUD_NETWORK_ROUTES_ENABLED",
      "must be false with ROBOT_ENABLED",
    ],
    [
      "Robot with routes asked for",
      { ROBOT_ENABLED: "1", HCLOUD_NETWORK: "k8s", HCLOUD_NETWORK_ROUTES_ENABLED: "true" },
      "HCLOUD_NETWORK_ROUTES_ENABLED",
      "must be false with ROBOT_ENABLED",
    ],
    ["a typo of a Robot variable", { ROBOT_ENABLE: "true" }, "ROBOT_ENABLE", "did you mean ROBOT_ENABLED?"],
    [
      "a variable without its underscores",
      { HCLOUD_LOADBALANCERS_TYPE: "lb21" },
      "HCLOUD_LOADBALANCERS_TYPE",
      "did you mean HCLOUD_LOAD_BALANCERS_TYPE?",
    ],
    [
      "a lower-case variable typed for another",
      { ROBOT_PASWORD_FILE: "/p" },
      "ROBOT_PASWORD_FILE",
      "did you mean ROBOT_PASSWORD_FILE?",
    ],
  ])("refuses %s", async (_, env, key, message) => {
    expect((await problems(env))[key]).toContain(message);
  });

  test("reads secrets from their files, trimmed, and Robot credentials only with Robot enabled", async () => {
    const { config } = await read({
      HCLOUD_TOKEN: "",
      HCLOUD_TOKEN_FILE: "/run/token",
      ROBOT_ENABLED: "true",
      ROBOT_USER_FILE: "/run/user",
      ROBOT_PASSWORD: "pw-secret",
    });
    expect(config.token).toBe(TOKEN);
    expect(config.robot).toMatchObject({ credentials: { user: "robot-user", password: "pw-secret" } });
    expect(config.robot.forwardInternalIPs).toBe(true);
    const off = await read({ ROBOT_USER: "u", ROBOT_PASSWORD: "p" });
    expect(off.config.robot.credentials).toBeUndefined();
    expect(off.warnings).toContain(
      "Robot credentials are set but ROBOT_ENABLED is not true: Robot servers are not looked up",
    );
  });

  test("turns routes on with a network, and treats 0 as hccm's 5-minute Robot cache", async () => {
    expect((await read({ HCLOUD_NETWORK: "k8s" })).config.routesEnabled).toBe(true);
    expect((await read({ ROBOT_CACHE_TIMEOUT: "0" })).config.robot.cacheTimeoutMs).toBe(300_000);
  });

  test("ignores other tools' variables and far-off names of the same prefixes", async () => {
    const { config } = await read({
      HCLOUD_CONTEXT: "prod",
      HCLOUD_CONFIG: "/x",
      HCLOUD_SOMETHING_ELSE: "1",
      HOME: "/",
    });
    expect(config.token).toBe(TOKEN);
  });

  test.each([
    ["a short token", { HCLOUD_TOKEN: "abc" }, "HCLOUD_TOKEN has 3 characters where Hetzner's tokens have 64"],
    ["an experimental cache setting", { HCLOUD_SERVER_CACHE_MODE: "off" }, "HCLOUD_SERVER_CACHE_MODE is experimental"],
    ["routes without a network", { HCLOUD_NETWORK_ROUTES_ENABLED: "true" }, "has no effect without HCLOUD_NETWORK"],
    ["Robot without credentials", { ROBOT_ENABLED: "true" }, "load balancers only, Robot nodes are not initialised"],
  ])("warns about %s without failing", async (_, env, warning) => {
    const { warnings } = await read(env);
    expect(warnings.some((w) => w.includes(warning))).toBe(true);
  });

  describe("cloud-config file", () => {
    test("carries the same settings, and the environment wins over it", async () => {
      const text =
        "HCLOUD_NETWORK: 4711\nHCLOUD_LOAD_BALANCERS_TYPE: lb21\nROBOT_ENABLED: true\nHCLOUD_NETWORK_ROUTES_ENABLED: false\n";
      const { config } = await read({ HCLOUD_LOAD_BALANCERS_TYPE: "lb31" }, text);
      expect(config.network).toBe("4711");
      expect(config.loadBalancers.type).toBe("lb31");
      expect(config.robot.enabled).toBe(true);
    });

    test("gives the token's file in the file, or its value, the environment's one still winning", async () => {
      const fromFile = await readHcloudConfig({
        env: {},
        config: "HCLOUD_TOKEN_FILE: /run/token",
        configSource: "cc.yaml",
        readFile,
      });
      expect(fromFile.config.token).toBe(TOKEN);
      expect((await read({ HCLOUD_TOKEN: "from-env" }, "HCLOUD_TOKEN: from-file")).config.token).toBe("from-env");
    });

    test("names unknown keys, lists and values from the file", async () => {
      const got = await problems(
        {},
        "HCLOUD_NETWROK: k8s\nlocation: fsn1\nHCLOUD_LOAD_BALANCERS_TYPE: [lb11]\nHCLOUD_INSTANCES_ADDRESS_FAMILY: ipv5\n",
      );
      expect(got).toEqual({
        HCLOUD_NETWROK:
          "is not a setting of the hcloud provider; did you mean HCLOUD_NETWORK? (keys are hccm's environment variable names)",
        location: "is not a setting of the hcloud provider (keys are hccm's environment variable names)",
        HCLOUD_LOAD_BALANCERS_TYPE: "must be a single value (a string, a number or true/false), not a list or mapping",
        HCLOUD_INSTANCES_ADDRESS_FAMILY: 'is "ipv5"; must be ipv4, ipv6 or dualstack (set in the cloud-config)',
      });
    });

    test("refuses a file that is not a mapping", async () => {
      const err = await rejection(() => read({}, "- HCLOUD_NETWORK"));
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.message).toContain("must be a mapping of hccm's variable names to values");
    });
  });
});
