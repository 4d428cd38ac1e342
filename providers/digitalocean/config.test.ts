import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { readDigitalOceanConfig } from "./config.ts";

const read = (env: Record<string, string>, config?: string) =>
  readDigitalOceanConfig({ env, config, configSource: "cloud.yaml", readFile: async () => "file-token\n" });

async function problems(env: Record<string, string>, config?: string): Promise<string> {
  try {
    await read(env, config);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("no error");
}

describe("the digitalocean configuration", () => {
  test("reads DO CCM's defaults with only a token", async () => {
    const { config, warnings } = await read({ DO_ACCESS_TOKEN: "dop_v1_abc" });
    expect(config).toEqual({
      token: "dop_v1_abc",
      apiUrl: "https://api.digitalocean.com",
      region: undefined,
      clusterID: undefined,
      vpcID: undefined,
      defaultLoadBalancerType: "REGIONAL_NETWORK",
      metadataUrl: "http://169.254.169.254",
      firewall: undefined,
      rateLimit: { qps: 1.25, burst: 20 },
    });
    expect(warnings).toEqual([]);
  });

  test("reads every setting, the token from a file, the URL without its trailing slash", async () => {
    const { config } = await read({
      DO_ACCESS_TOKEN_FILE: "/run/token",
      DO_OVERRIDE_URL: "http://127.0.0.1:8080/",
      REGION: "fra1",
      DO_CLUSTER_ID: "c-1",
      DO_CLUSTER_VPC_ID: "5a4981aa-9653-4bd1-bef5-d6bff52042e4",
      DO_API_RATE_LIMIT_QPS: "2.5",
      DEFAULT_LB_TYPE: "REGIONAL",
    });
    expect(config).toMatchObject({
      token: "file-token",
      apiUrl: "http://127.0.0.1:8080",
      region: "fra1",
      clusterID: "c-1",
      defaultLoadBalancerType: "REGIONAL",
      rateLimit: { qps: 2.5, burst: 3 },
    });
  });

  test("the environment wins over the cloud-config, setting by setting", async () => {
    const { config } = await read({ REGION: "ams3" }, "DO_ACCESS_TOKEN: t\nREGION: sfo3\nDO_CLUSTER_ID: c-2\n");
    expect(config).toMatchObject({ token: "t", region: "ams3", clusterID: "c-2" });
  });

  test("names every invalid variable at once, and never the token's value", async () => {
    const message = await problems({
      DO_ACCESS_TOKEN: "has space",
      DO_OVERRIDE_URL: "ftp://x",
      REGION: "New York",
      DO_API_RATE_LIMIT_QPS: "fast",
      DEFAULT_LB_TYPE: "GLOBAL",
      DO_CLSTER_ID: "x",
    });
    for (const name of ["DO_ACCESS_TOKEN", "DO_OVERRIDE_URL", "REGION", "DO_API_RATE_LIMIT_QPS", "DEFAULT_LB_TYPE"]) {
      expect(message).toContain(name);
    }
    expect(message).toContain("did you mean DO_CLUSTER_ID?");
    expect(message).not.toContain("has space");
  });

  test("a missing token is an error naming DO_ACCESS_TOKEN", async () => {
    expect(await problems({})).toContain("DO_ACCESS_TOKEN: is required");
  });

  test("an unknown cloud-config key is an error", async () => {
    expect(await problems({ DO_ACCESS_TOKEN: "t" }, "REGIN: nyc3\n")).toContain("did you mean REGION?");
  });

  test("DO CCM's debug and metrics variables are accepted with a warning", async () => {
    const { warnings } = await read({ DO_ACCESS_TOKEN: "t", METRICS_ADDR: ":9090", DEBUG_ADDR: ":8080" });
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain("METRICS_ADDR has no effect here");
  });

  test("reads the public-access firewall's name and comma-separated tags", async () => {
    const { config, warnings } = await read({
      DO_ACCESS_TOKEN: "t",
      PUBLIC_ACCESS_FIREWALL_NAME: "k8s-public-access",
      PUBLIC_ACCESS_FIREWALL_TAGS: "k8s:worker, k8s:c-1",
    });
    expect(config.firewall).toEqual({ name: "k8s-public-access", tags: ["k8s:worker", "k8s:c-1"] });
    expect(warnings).toEqual([]);
  });

  test.each([
    [
      { PUBLIC_ACCESS_FIREWALL_NAME: "fw" },
      "PUBLIC_ACCESS_FIREWALL_TAGS: is required with PUBLIC_ACCESS_FIREWALL_NAME",
    ],
    [
      { PUBLIC_ACCESS_FIREWALL_TAGS: "k8s" },
      "PUBLIC_ACCESS_FIREWALL_NAME: is required with PUBLIC_ACCESS_FIREWALL_TAGS",
    ],
    [{ PUBLIC_ACCESS_FIREWALL_NAME: "fw name", PUBLIC_ACCESS_FIREWALL_TAGS: "k8s" }, "must be a firewall name"],
    [{ PUBLIC_ACCESS_FIREWALL_NAME: "fw", PUBLIC_ACCESS_FIREWALL_TAGS: "k8s,,x" }, "must be a comma-separated list"],
    [{ DO_METADATA_URL: "169.254.169.254" }, "must be an http(s) URL"],
  ])("refuses %p naming the variable", async (env, message) => {
    const said = await problems({ DO_ACCESS_TOKEN: "t", ...env });
    expect(said).toContain(message);
    for (const name of Object.keys(env)) if (message.includes("required")) expect(said).toContain(name);
  });
});
