import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { readScalewayConfig } from "./config.ts";

const KEYS = {
  SCW_ACCESS_KEY: "SCWABCDEFGHIJ0123456",
  SCW_SECRET_KEY: "11111111-2222-4333-8444-555555555555",
  SCW_DEFAULT_REGION: "fr-par",
};

const read = (env: Record<string, string>, config?: string) =>
  readScalewayConfig({
    env,
    config,
    configSource: "cloud.yaml",
    readFile: async () => "99999999-2222-4333-8444-555555555555\n",
  });

async function problems(env: Record<string, string>, config?: string): Promise<string> {
  try {
    await read(env, config);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("no error");
}

describe("the scaleway configuration", () => {
  test("reads scw CCM's defaults with only the keys and the region", async () => {
    const { config, warnings } = await read({ ...KEYS, DISABLE_TAGS_SYNC: "1" });
    expect(config).toEqual({
      accessKey: KEYS.SCW_ACCESS_KEY,
      secretKey: KEYS.SCW_SECRET_KEY,
      projectID: undefined,
      organizationID: undefined,
      region: "fr-par",
      zone: undefined,
      apiUrl: "https://api.scaleway.com",
      privateNetworkID: undefined,
      loadBalancer: { defaultType: undefined, prefix: "", tags: [] },
      extraUserAgent: undefined,
      disabled: { instances: false, loadBalancer: false, zones: false },
      tagsSync: false,
    });
    expect(warnings).toEqual([]);
  });

  test("reads every setting, the secret key from a file, the URL without its trailing slash", async () => {
    const { config } = await read({
      SCW_ACCESS_KEY: KEYS.SCW_ACCESS_KEY,
      SCW_SECRET_KEY_FILE: "/run/secret",
      SCW_DEFAULT_REGION: "nl-ams",
      SCW_DEFAULT_ZONE: "nl-ams-2",
      SCW_DEFAULT_PROJECT_ID: "aaaaaaaa-2222-4333-8444-555555555555",
      SCW_API_URL: "http://127.0.0.1:8381/",
      PN_ID: "bbbbbbbb-2222-4333-8444-555555555555",
      LB_DEFAULT_TYPE: "LB-GP-M",
      SCW_CCM_PREFIX: "k8s-",
      SCW_CCM_TAGS: "a;b",
      SCW_CCM_TAGS_DELIMITER: ";",
      EXTRA_USER_AGENT: "cluster-1",
      DISABLE_INTERFACES: "Instances, loadbalancer",
      DISABLE_TAGS_SYNC: "true",
    });
    expect(config).toMatchObject({
      secretKey: "99999999-2222-4333-8444-555555555555",
      region: "nl-ams",
      zone: "nl-ams-2",
      apiUrl: "http://127.0.0.1:8381",
      privateNetworkID: "bbbbbbbb-2222-4333-8444-555555555555",
      loadBalancer: { defaultType: "LB-GP-M", prefix: "k8s-", tags: ["a", "b"] },
      extraUserAgent: "cluster-1",
      disabled: { instances: true, loadBalancer: true, zones: false },
    });
  });

  test("the environment wins over the cloud-config, setting by setting", async () => {
    const { config } = await read(
      { ...KEYS, DISABLE_TAGS_SYNC: "1" },
      "SCW_DEFAULT_REGION: pl-waw\nSCW_DEFAULT_ZONE: pl-waw-2\n",
    );
    expect(config).toMatchObject({ region: "fr-par", zone: "pl-waw-2" });
  });

  test("names every invalid variable at once, and never the secret key's value", async () => {
    const message = await problems({
      SCW_ACCESS_KEY: "scw-lower",
      SCW_SECRET_KEY: "not-a-uuid-secret",
      SCW_DEFAULT_REGION: "paris",
      SCW_DEFAULT_ZONE: "fr-par",
      SCW_API_URL: "ftp://x",
      PN_ID: "pn",
      DISABLE_INTERFACES: "instances,routes",
      SCW_CCM_TAGS_DELIMITER: ";;",
      SCW_DEFAULT_PROJCT_ID: "x",
    });
    for (const name of [
      "SCW_ACCESS_KEY",
      "SCW_SECRET_KEY",
      "SCW_DEFAULT_REGION",
      "SCW_DEFAULT_ZONE",
      "SCW_API_URL",
      "PN_ID",
      "DISABLE_INTERFACES",
      "SCW_CCM_TAGS_DELIMITER",
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toContain("did you mean SCW_DEFAULT_PROJECT_ID?");
    expect(message).not.toContain("not-a-uuid-secret");
  });

  test("the keys and the region are required, each named", async () => {
    const message = await problems({});
    for (const name of ["SCW_ACCESS_KEY", "SCW_SECRET_KEY", "SCW_DEFAULT_REGION"]) {
      expect(message).toContain(`${name}: is required`);
    }
  });

  test("the Scaleway CLI's own variables in the environment are no typo", async () => {
    const { config } = await read({ ...KEYS, SCW_PROFILE: "prod", SCW_CONFIG_PATH: "/x", DISABLE_TAGS_SYNC: "1" });
    expect(config.region).toBe("fr-par");
  });

  test("warns of a zone outside the region, and that tags are not synced", async () => {
    const { warnings } = await read({ ...KEYS, SCW_DEFAULT_ZONE: "nl-ams-1" });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("SCW_DEFAULT_ZONE=nl-ams-1 is not in SCW_DEFAULT_REGION=fr-par");
    expect(warnings[1]).toContain("DISABLE_TAGS_SYNC");
  });
});
