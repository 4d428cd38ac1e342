import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { configProblems } from "../../config/testing.ts";
import { selfSignedTls } from "../../sandbox/apiserver/tls.ts";
import { rejection } from "../testing.ts";
import { parseProxmoxConfig } from "./config.ts";
import { proxmoxSettings } from "./provider.ts";

const cluster = `{ url: "https://pve:8006/api2/json/", token_id: "kubernetes@pve!ccm", token_secret: s3cr3t, region: east }`;

describe("proxmox cloud-config", () => {
  test("fills the peer's defaults and trims the URL", () => {
    const c = parseProxmoxConfig(`clusters: [${cluster}]`, "c.yaml");
    expect(c.features).toMatchObject({ provider: "default", ha_group: false, force_update_labels: false });
    expect(c.features.network.mode).toBe("default");
    expect(c.features.network.external_ip_cidrs).toEqual({ include: [], exclude: [] });
    expect(c.clusters[0]).toMatchObject({ url: "https://pve:8006/api2/json", insecure: false, region: "east" });
  });

  test("reads CIDR lists as the peer's comma text or as YAML lists, with ! exclusions", () => {
    const c = parseProxmoxConfig(
      `features: { network: { mode: qemu, external_ip_cidrs: "192.168.0.0/16, !192.168.5.0/24", ip_sort_order: [10.0.0.0/8] } }\nclusters: [${cluster}]`,
      "c.yaml",
    );
    expect(c.features.network.external_ip_cidrs.include).toHaveLength(1);
    expect(c.features.network.external_ip_cidrs.exclude).toHaveLength(1);
    expect(c.features.network.ip_sort_order.include).toHaveLength(1);
  });

  test("reports every problem at once, naming each field", () => {
    const text = `
features: { provider: cluster-api, network: { mode: dhcp, external_ip_cidrs: "10.0.0.0/8,!nope" }, colour: blue }
clusters:
  - { url: "ftp://pve", token_id: root, token_secret: x, region: east, insecure: true, ca_file: /ca.pem, password: hunter2 }
  - { url: "https://b/api2/json", token_id_file: /id, region: east }
  - { token_id: "a@pve!t", token_secret: x }
`;
    expect(configProblems(() => parseProxmoxConfig(text, "c.yaml"))).toEqual({
      "features.provider": "must be default (proxmox://<region>/<vmid>) or capmox (proxmox://<UUID>)",
      "features.network.mode": "must be default (kubelet addresses), qemu or auto (guest agent)",
      "features.network.external_ip_cidrs": '"!nope" is not a CIDR (or !CIDR) such as "192.168.0.0/16,!192.168.5.0/24"',
      "features.colour": "is not a features field; the fields are provider, ha_group, force_update_labels, network",
      "clusters[0].url": "must be an https:// (or http://) URL such as https://pve-1.example.com:8006/api2/json",
      "clusters[0].token_id": "must be an API token ID of the form user@realm!tokenname, such as kubernetes@pve!ccm",
      "clusters[0].password": "is not supported: create an API token and set token_id and token_secret",
      "clusters[0].ca_file": "set either insecure: true or ca_file, not both",
      "clusters[1].token_secret": "set exactly one of token_secret and token_secret_file",
      "clusters[2].url": "is required: the cluster's API URL, ending in /api2/json",
      "clusters[2].region": "is required: the name of this Proxmox cluster (the Kubernetes region)",
    });
  });

  test.each([
    ["no file at all", undefined, "clusters", "is required"],
    ["an empty cluster list", "clusters: []", "clusters", "must list at least one Proxmox cluster"],
    [
      "a region given twice",
      `clusters: [${cluster}, ${cluster}]`,
      "clusters[1].region",
      `region "east" is also clusters[0]'s`,
    ],
    ["an unknown top-level key", `clusters: [${cluster}]\nregion: x`, "region", "is not a known key"],
    [
      "a URL without the API's path",
      `clusters: [${cluster.replace("/api2/json/", "/")}]`,
      "clusters[0].url",
      "must end in the API's path /api2/json, such as https://pve-1.example.com:8006/api2/json",
    ],
    [
      "a URL of the web interface",
      `clusters: [${cluster.replace("/api2/json/", "/#v1:0:18:4")}]`,
      "clusters[0].url",
      "must end in the API's path /api2/json",
    ],
  ])("refuses %s", (_, text, path, problem) => {
    expect(configProblems(() => parseProxmoxConfig(text, "c.yaml"))[path]).toContain(problem);
  });
});

describe("proxmox settings: the files the cloud-config names", () => {
  const read = async (files: Record<string, string>) =>
    proxmoxSettings.read({
      name: "proxmox",
      config: `clusters: [${cluster.replace("region: east", "region: east, ca_file: /ca.pem")}]`,
      configSource: "c.yaml",
      env: {},
      readFile: async (path) => {
        const text = files[path];
        if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
        return text;
      },
    });

  test("keeps a PEM CA bundle as written", async () => {
    const { cert } = await selfSignedTls(Date.now);
    const { value } = await read({ "/ca.pem": `# the cluster's CA\n${cert}` });
    expect(value.clusters[0]?.ca).toBe(`# the cluster's CA\n${cert}`);
  });

  test.each([
    ["a DER file", "0\x82\x03\x1a0\x82\x02", "/ca.pem holds no PEM certificate"],
    ["a private key", "-----BEGIN PRIVATE KEY-----\nMC4CAQA=\n-----END PRIVATE KEY-----\n", "holds no PEM certificate"],
    [
      "a damaged certificate",
      "-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0B\n-----END CERTIFICATE-----\n",
      "certificate 1 of 1 is not an X.509 certificate",
    ],
  ])("refuses %s as ca_file, naming the key", async (_, text, problem) => {
    const err = await rejection(() => read({ "/ca.pem": text }));
    expect(err).toBeInstanceOf(ConfigError);
    const issues = Object.fromEntries((err as ConfigError).issues.map((i) => [i.path, i.message]));
    expect(Object.keys(issues)).toEqual(["clusters[0].ca_file"]);
    expect(issues["clusters[0].ca_file"]).toContain(problem);
    expect(issues["clusters[0].ca_file"]).toContain("PEM certificate (-----BEGIN CERTIFICATE-----) of the CA");
  });
});
