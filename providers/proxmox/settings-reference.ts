/**
 * The proxmox provider's cloud-config reference, generated into docs/providers/proxmox.md. A test keeps it equal to
 * the keys config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

export const proxmoxSettingDocs: readonly SettingDoc[] = [
  {
    names: ["features.provider"],
    default: "`default`",
    meaning: "`default` (provider IDs `proxmox://<region>/<vmid>`) or `capmox` (`proxmox://<system UUID>`)",
  },
  {
    names: ["features.ha_group"],
    default: "`false`",
    meaning:
      "`true` or `false`; with `true`, a VM whose Proxmox node is in no HA group is an error (the node stays uninitialised), and so is Proxmox VE 9, which replaced HA groups by rules",
  },
  { names: ["features.force_update_labels"], default: "`false`", meaning: '`true` or `false`; see "Migration" below' },
  {
    names: ["features.network.mode"],
    default: "`default`",
    meaning: "`default` (the kubelet's addresses), `qemu` or `auto` (also the guest agent's)",
  },
  {
    names: ["features.network.ipv6_support_disabled"],
    default: "`false`",
    meaning: "`true` or `false`; `true` drops the guest agent's IPv6 addresses",
  },
  {
    names: ["features.network.external_ip_cidrs"],
    default: "none",
    meaning:
      "IPv4 or IPv6 CIDRs, each maybe prefixed by `!` to exclude, as comma- or space-separated text or a YAML list: `192.168.0.0/16,!192.168.5.0/24`",
  },
  { names: ["features.network.ip_sort_order"], default: "none", meaning: "the same form: `10.0.0.0/8,!172.16.0.0/12`" },
  { names: ["clusters"], default: "required", meaning: "a list of at least one cluster" },
  {
    names: ["clusters[].url"],
    default: "required",
    meaning:
      "an `https://` (or `http://`) URL whose path ends in `/api2/json`, such as `https://pve-1.example.com:8006/api2/json`; a trailing `/` is dropped",
  },
  {
    names: ["clusters[].insecure", "clusters[].ca_file"],
    default: "`false` / none",
    meaning:
      "not both: `true` trusts any certificate; `ca_file` is a file of one or more PEM certificates (`-----BEGIN CERTIFICATE-----`) of the CA that signed the cluster's certificate (default: the system's CAs)",
  },
  {
    names: ["clusters[].token_id", "clusters[].token_id_file"],
    default: "required",
    meaning:
      "exactly one; `user@realm!tokenname`, the token name starting with a letter, then letters, digits, `.`, `_`, `-`; the file's text is trimmed",
  },
  {
    names: ["clusters[].token_secret", "clusters[].token_secret_file"],
    default: "required",
    meaning: "exactly one; not empty; the file's text is trimmed",
  },
  {
    names: ["clusters[].region"],
    default: "required",
    meaning: "unique; 1-63 letters, digits, `.`, `_` or `-`, starting and ending with a letter or digit",
  },
  {
    names: ["clusters[].username", "clusters[].password"],
    default: "refused",
    meaning: "the peer's password login: create an API token and set `token_id` and `token_secret` instead",
  },
];
