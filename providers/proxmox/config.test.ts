import { describe, expect, test } from "bun:test";
import { configProblems } from "../../config/testing.ts";
import { parseProxmoxConfig } from "./config.ts";

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
  ])("refuses %s", (_, text, path, problem) => {
    expect(configProblems(() => parseProxmoxConfig(text, "c.yaml"))[path]).toContain(problem);
  });
});
