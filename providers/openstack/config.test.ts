import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { readOpenStackConfig } from "./config.ts";
import { LOAD_BALANCER_DEADLINE_MS } from "./provider.ts";

const files: Record<string, string> = {
  "/etc/openstack/clouds.yaml": `clouds:
  ovh:
    auth:
      auth_url: https://auth.cloud.ovh.net/v3
      username: user-abc
      password: yaml-password
      project_id: 0123456789abcdef
      user_domain_name: Default
    region_name: GRA11
    interface: public
  other:
    auth:
      auth_url: https://other.example.com:5000
      application_credential_id: ac-1
      application_credential_secret: ac-secret
`,
};

const read = (config: string | undefined, env: Record<string, string> = {}) =>
  readOpenStackConfig({
    env,
    config,
    configSource: "cloud.conf",
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
      return text;
    },
  });

async function problems(config: string | undefined, env: Record<string, string> = {}): Promise<string> {
  try {
    await read(config, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("no error");
}

const PASSWORD_CONF = `
[Global]
auth-url = https://keystone.example.com:5000/v3
username = admin
password = "p;a#ss"
user-domain-name = Default
tenant-name = k8s
tenant-domain-id = default
region = RegionOne
`;

describe("the openstack configuration", () => {
  test("reads OCCM's password cloud.conf, with OCCM's defaults for every other section", async () => {
    const { config, warnings } = await read(PASSWORD_CONF);
    expect(config.auth).toEqual({
      authUrl: "https://keystone.example.com:5000/v3",
      method: { kind: "password", user: { name: "admin", domain: { name: "Default" } }, password: "p;a#ss" },
      project: { name: "k8s", domain: { id: "default" } },
      region: "RegionOne",
      interface: "public",
      caFile: undefined,
      certFile: undefined,
      keyFile: undefined,
      tlsInsecure: false,
    });
    expect(config.networking).toEqual({
      ipv6SupportDisabled: false,
      publicNetworkNames: [],
      internalNetworkNames: [],
      addressSortOrder: [],
    });
    expect(config.metadata).toEqual({ searchOrder: ["configDrive", "metadataService"], requestTimeoutMs: 60_000 });
    expect(config.loadBalancer).toMatchObject({
      enabled: true,
      "lb-provider": "amphora",
      "lb-method": "ROUND_ROBIN",
      "monitor-delay": 5000,
      "monitor-timeout": 3000,
      "monitor-max-retries": 1,
      "monitor-max-retries-down": 3,
      "cascade-delete": true,
      "max-shared-lb": 2,
      "ingress-hostname-suffix": "nip.io",
      "container-store": "barbican",
      "pending-deadline": LOAD_BALANCER_DEADLINE_MS,
    });
    expect(config.regionalProviderIDs).toBe(false);
    expect(warnings).toEqual([]);
  });

  test("reads an application credential, which carries its own project", async () => {
    const { config } = await read(`[Global]
auth-url=https://keystone.example.com:5000
application-credential-id = 3c4c
application-credential-secret = s3cret
region = RegionOne
`);
    expect(config.auth.method).toEqual({
      kind: "application_credential",
      credential: { id: "3c4c" },
      secret: "s3cret",
    });
    expect(config.auth.project).toBeUndefined();
    expect(config.auth.authUrl).toBe("https://keystone.example.com:5000/v3");
  });

  test("reads a trust: the trustee's password auth, scoped to the trust", async () => {
    const { config } = await read(`[Global]
auth-url=https://k.example.com/v3
trust-id = t-1
trustee-id = u-2
trustee-password = tp
`);
    expect(config.auth.method).toEqual({ kind: "trust", trustID: "t-1", user: { id: "u-2" }, password: "tp" });
  });

  test("section and key names are case-insensitive, as gcfg reads them; domain-name stands in for both domains", async () => {
    const { config } = await read(`[global]
Auth-URL = https://k.example.com/v3
USERNAME = a
Password = b
domain-name = D
tenant-name = p
`);
    expect(config.auth.method).toEqual({ kind: "password", user: { name: "a", domain: { name: "D" } }, password: "b" });
    expect(config.auth.project).toEqual({ name: "p", domain: { name: "D" } });
  });

  test("an indented section line, or one with a comment after it, is a section as in gcfg", async () => {
    const { config } = await read(`${PASSWORD_CONF}
  [Networking] ; the node networks
public-network-name = ext
`);
    expect(config.networking.publicNetworkNames).toEqual(["ext"]);
  });

  test("reads [Networking], repeated network names, and OS_CCM_REGIONAL", async () => {
    const { config } = await read(
      `${PASSWORD_CONF}
[Networking]
public-network-name = public
public-network-name = ext-net
internal-network-name = private
ipv6-support-disabled = true
address-sort-order = 10.0.0.0/8, 192.168.0.0/16
`,
      { OS_CCM_REGIONAL: "true" },
    );
    expect(config.networking).toEqual({
      ipv6SupportDisabled: true,
      publicNetworkNames: ["public", "ext-net"],
      internalNetworkNames: ["private"],
      addressSortOrder: ["10.0.0.0/8", "192.168.0.0/16"],
    });
    expect(config.regionalProviderIDs).toBe(true);
  });

  test("an empty value clears a multi-valued key, as in gcfg", async () => {
    const { config } = await read(`${PASSWORD_CONF}
[Networking]
public-network-name = a
public-network-name =
public-network-name = b
`);
    expect(config.networking.publicNetworkNames).toEqual(["b"]);
  });

  test('reads [LoadBalancer], [LoadBalancerClass "…"] (dots and case kept) and [Route]', async () => {
    const { config, warnings } = await read(`${PASSWORD_CONF}
[LoadBalancer]
floating-network-id = 0a1b
lb-provider = ovn
lb-method = SOURCE_IP_PORT
create-monitor
monitor-delay = 1m30s
monitor-max-retries = 5
pending-deadline = 20s
[LoadBalancerClass "Public.v4"]
floating-network-id = 9f9f
subnet-id = 8e8e
[Route]
router-id = r-1
`);
    expect(config.loadBalancer).toMatchObject({
      "floating-network-id": "0a1b",
      "lb-provider": "ovn",
      "lb-method": "SOURCE_IP_PORT",
      "create-monitor": true,
      "monitor-delay": 90_000,
      "monitor-max-retries": 5,
      "pending-deadline": 20_000,
    });
    expect(config.loadBalancerClasses).toEqual({ "Public.v4": { "floating-network-id": "9f9f", "subnet-id": "8e8e" } });
    expect(config.routerID).toBe("r-1");
    expect(warnings).toEqual([]);
  });

  test("an lb-provider or container-store OCCM does not test with is a warning, as OCCM logs it", async () => {
    const { warnings } = await read(
      `${PASSWORD_CONF}\n[LoadBalancer]\nlb-provider = vendor-x\ncontainer-store = vault\n`,
    );
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("lb-provider");
  });

  test("names every unknown or invalid key at once by section, with the nearest name, and never a secret", async () => {
    const message = await problems(`
[Global]
auth-url = ftp://x
username = admin
password = "hunter2-secret"
user-domain-name = Default
tenant-nam = k8s
tls-insecure = yes
[LoadBalancer]
lb-method = RANDOM
monitor-delay = 5
monitor-max-retries = 11
enabled = maybe
[Networking]
address-sort-order = 10.0.0.0/33
[Metadata]
search-order = cloudInit
[Glbal]
x = 1
`);
    for (const part of [
      "[Global] auth-url: must be Keystone's http(s) URL",
      "[Global] tenant-nam: is not a key of [Global]; did you mean tenant-name?",
      "[Global] tls-insecure: must be true or false",
      "[LoadBalancer] lb-method: must be ROUND_ROBIN",
      "[LoadBalancer] monitor-delay: must be a Go duration",
      "[LoadBalancer] monitor-max-retries: must be a whole number from 1 to 10",
      "[LoadBalancer] enabled: must be true or false",
      "[Networking] address-sort-order: must be CIDRs",
      "[Metadata] search-order: must be configDrive, metadataService",
      "[Glbal]: is not a section OCCM reads; did you mean [Global]?",
    ]) {
      expect(message).toContain(part);
    }
    expect(message).not.toContain("hunter2-secret");
  });

  test.each([
    ["no credential", "[Global]\nauth-url=https://k/v3\ntenant-id=p\n", "[Global] password: is required"],
    [
      "no auth-url",
      "[Global]\napplication-credential-id=a\napplication-credential-secret=s\n",
      "[Global] auth-url: is required",
    ],
    [
      "a secret without a credential",
      "[Global]\nauth-url=https://k/v3\napplication-credential-secret=s\n",
      "[Global] application-credential-id: is required",
    ],
    [
      "a credential without its secret",
      "[Global]\nauth-url=https://k/v3\napplication-credential-id=a\n",
      "[Global] application-credential-secret: is required",
    ],
    [
      "a user name without its domain",
      "[Global]\nauth-url=https://k/v3\nusername=u\npassword=p\ntenant-id=x\n",
      "[Global] user-domain-name: is required with username",
    ],
    [
      "a password without a project",
      "[Global]\nauth-url=https://k/v3\nuser-id=u\npassword=p\n",
      "[Global] tenant-id: is required",
    ],
    [
      "a project name without its domain",
      "[Global]\nauth-url=https://k/v3\nuser-id=u\npassword=p\ntenant-name=x\n",
      "[Global] tenant-domain-name: is required with tenant-name",
    ],
    [
      "a certificate without its key",
      "[Global]\nauth-url=https://k/v3\nuser-id=u\npassword=p\ntenant-id=x\ncert-file=/c\n",
      "[Global] key-file: is required",
    ],
    ["a key given twice", "[Global]\nregion=a\nregion=b\n", "[Global] region: is given 2 times"],
    ["single quotes", "[Global]\npassword='x'\n", "[Global] password: is in single quotes"],
    ["a comment after quotes", '[Global]\npassword="x" ; c\n', "[Global] password: has a comment after its quotes"],
    ["quotes around part", '[Global]\npassword=a"b"\n', "[Global] password: has quotes around part of it"],
    [
      "a backslash outside quotes",
      "[Global]\nca-file=C:\\ca.pem\n",
      "[Global] ca-file: has a backslash outside quotes",
    ],
    [
      "a pending-deadline under a second",
      "[LoadBalancer]\npending-deadline=500ms\n",
      "[LoadBalancer] pending-deadline: must be a Go duration from 1s to 1h",
    ],
    [
      "a pending-deadline over an hour",
      "[LoadBalancer]\npending-deadline=2h\n",
      "[LoadBalancer] pending-deadline: must be a Go duration from 1s to 1h",
    ],
    ["a key outside any section", "region=x\n[Global]\n", "region: is outside any section"],
    ["OS_CCM_REGIONAL not a boolean", "", "OS_CCM_REGIONAL: must be true or false"],
  ])("%s is an error naming the key", async (_, conf, expected) => {
    expect(await problems(conf, _ === "OS_CCM_REGIONAL not a boolean" ? { OS_CCM_REGIONAL: "yes" } : {})).toContain(
      expected,
    );
  });

  test("no --cloud-config is an error saying to give one", async () => {
    expect(await problems(undefined)).toContain("--cloud-config: is required");
  });

  test("use-clouds reads the named cloud of clouds.yaml; [Global]'s own keys win", async () => {
    const { config } = await read(`[Global]
use-clouds = true
cloud = ovh
region = SBG5
`);
    expect(config.auth).toMatchObject({
      authUrl: "https://auth.cloud.ovh.net/v3",
      method: { kind: "password", user: { name: "user-abc", domain: { name: "Default" } }, password: "yaml-password" },
      project: { id: "0123456789abcdef" },
      region: "SBG5",
      interface: "public",
    });
  });

  test("use-clouds takes OS_CLOUD, and clouds-file or OS_CLIENT_CONFIG_FILE for the file", async () => {
    files["/srv/clouds.yaml"] = files["/etc/openstack/clouds.yaml"] ?? "";
    const viaEnv = await read("[Global]\nuse-clouds = true\n", {
      OS_CLOUD: "other",
      OS_CLIENT_CONFIG_FILE: "/srv/clouds.yaml",
    });
    expect(viaEnv.config.auth.method).toEqual({
      kind: "application_credential",
      credential: { id: "ac-1" },
      secret: "ac-secret",
    });
    expect(viaEnv.config.auth.authUrl).toBe("https://other.example.com:5000/v3");
    const viaKey = await read("[Global]\nuse-clouds = true\nclouds-file = /srv/clouds.yaml\ncloud = other\n");
    expect(viaKey.config.auth.method.kind).toBe("application_credential");
  });

  test("use-clouds with an unknown cloud, or no file, names what to set", async () => {
    expect(await problems("[Global]\nuse-clouds=true\ncloud=gone\n")).toContain(
      '[Global] cloud: "gone" is not among /etc/openstack/clouds.yaml\'s clouds: ovh, other',
    );
    expect(await problems("[Global]\nuse-clouds=true\n")).toContain("[Global] cloud: set [Global] cloud to one of");
    expect(await problems("[Global]\nuse-clouds=true\nclouds-file=/nope.yaml\n")).toContain(
      "[Global] clouds-file: no clouds.yaml could be read (tried /nope.yaml)",
    );
  });
});
