/**
 * The proxmox provider's cloud-config reference, generated into docs/providers/proxmox.md. A test keeps it equal to
 * the keys config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

export const proxmoxSettingDocs: readonly SettingDoc[] = [
  { names: ["features.provider"], default: "`default`", meaning: "`default` or `capmox`" },
  {
    names: ["features.ha_group"],
    default: "`false`",
    meaning:
      "with `true`, a VM whose Proxmox node is in no HA group is an error (the node stays uninitialised), and so is Proxmox VE 9, which replaced HA groups by rules",
  },
  { names: ["features.force_update_labels"], default: "`false`", meaning: 'see "Migration" below' },
  { names: ["features.network.mode"], default: "`default`", meaning: "`default`, `qemu` or `auto`" },
  {
    names: ["features.network.ipv6_support_disabled"],
    default: "`false`",
    meaning: "`true` drops the guest agent's IPv6 addresses",
  },
  {
    names: ["features.network.external_ip_cidrs"],
    default: "none",
    meaning: "comma- or space-separated text, or a YAML list; `!` excludes",
  },
  { names: ["features.network.ip_sort_order"], default: "none", meaning: "same form" },
  { names: ["clusters"], default: "required", meaning: "at least one" },
  { names: ["clusters[].url"], default: "required", meaning: "`http(s)://…/api2/json`" },
  { names: ["clusters[].insecure", "clusters[].ca_file"], default: "`false` / none", meaning: "not both" },
  {
    names: ["clusters[].token_id", "clusters[].token_id_file"],
    default: "required",
    meaning: "exactly one; `user@realm!tokenname`",
  },
  { names: ["clusters[].token_secret", "clusters[].token_secret_file"], default: "required", meaning: "exactly one" },
  {
    names: ["clusters[].region"],
    default: "required",
    meaning: "unique; a label value (letters, digits, `.`, `_`, `-`)",
  },
  {
    names: ["clusters[].username", "clusters[].password"],
    default: "refused",
    meaning: "the peer's password login: create an API token and set `token_id` and `token_secret` instead",
  },
];
