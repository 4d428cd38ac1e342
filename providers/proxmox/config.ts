/**
 * The proxmox provider's cloud-config (`--cloud-config`, YAML or JSON), documented in docs/providers/proxmox.md. The
 * keys are those of proxmox-cloud-controller-manager, so its files work unchanged (password login aside):
 *
 * ```yaml
 * features:
 *   provider: default            # default: proxmox://<region>/<vmid>; capmox: proxmox://<system UUID>
 *   ha_group: false              # zone = the HA group of the VM's Proxmox node instead of the node
 *   force_update_labels: false   # also keep topology.kubernetes.io/zone and region in step after a migration
 *   network:
 *     mode: default              # default: addresses from the kubelet; qemu or auto: also from the guest agent
 *     ipv6_support_disabled: false
 *     external_ip_cidrs: "192.168.0.0/16,!192.168.5.0/24"   # guest-agent addresses inside are ExternalIP
 *     ip_sort_order: "10.0.0.0/8,!172.16.0.0/12"           # sort keys; `!` drops matching addresses
 * clusters:
 *   - url: https://pve-1.example.com:8006/api2/json
 *     insecure: false            # or ca_file: /etc/proxmox/ca.pem
 *     token_id: kubernetes@pve!ccm
 *     token_secret: 00000000-0000-0000-0000-000000000000   # or token_id_file / token_secret_file
 *     region: cluster-1
 * ```
 */
import * as v from "valibot";
import { type Cidr, tryParseCIDR } from "../../net/cidr.ts";
import { parseCloudConfig } from "../config.ts";

const defaultSource = "the proxmox cloud-config";

export const clusterKeys = [
  "url",
  "insecure",
  "ca_file",
  "token_id",
  "token_secret",
  "token_id_file",
  "token_secret_file",
  "region",
] as const;

/** `user@realm!tokenname`, as Proxmox VE prints it when the token is created. */
const TOKEN_ID = /^[^\s@!]+@[^\s@!]+![A-Za-z][A-Za-z0-9._-]*$/;
/** A region is a provider-ID segment and a label value. */
const REGION = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

const bool = (example: string) => v.boolean(`must be true or false (${example})`);
const nonBlank = (what: string) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    v.check((s) => s.trim() !== "", "must not be empty or only whitespace"),
  );

/** A list of CIDRs, each maybe prefixed by `!`: `a,b` or `a b` text as the peer takes it, or a YAML list. */
export interface CidrRules {
  readonly include: readonly Cidr[];
  readonly exclude: readonly Cidr[];
}

const cidrRules = (example: string) =>
  v.pipe(
    v.union(
      [v.string(), v.array(v.string())],
      `must be a comma-separated string or a list of CIDRs, such as ${example}`,
    ),
    v.transform((value) => (typeof value === "string" ? value.split(/[\s,]+/) : value).filter((s) => s !== "")),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const include: Cidr[] = [];
      const exclude: Cidr[] = [];
      for (const entry of dataset.value) {
        const negated = entry.startsWith("!");
        const cidr = tryParseCIDR(negated ? entry.slice(1) : entry);
        if (!cidr) addIssue({ message: `${JSON.stringify(entry)} is not a CIDR (or !CIDR) such as ${example}` });
        else (negated ? exclude : include).push(cidr);
      }
      return include.length + exclude.length === dataset.value.length ? { include, exclude } : NEVER;
    }),
  );

const network = v.objectWithRest(
  {
    mode: v.optional(
      v.picklist(["default", "qemu", "auto"], "must be default (kubelet addresses), qemu or auto (guest agent)"),
      "default",
    ),
    ipv6_support_disabled: v.optional(bool("true drops the guest agent's IPv6 addresses"), false),
    external_ip_cidrs: v.optional(cidrRules('"192.168.0.0/16,!192.168.5.0/24"'), ""),
    ip_sort_order: v.optional(cidrRules('"10.0.0.0/8,!172.16.0.0/12"'), ""),
  },
  v.never("is not a network field; the fields are mode, ipv6_support_disabled, external_ip_cidrs, ip_sort_order"),
  "must be a mapping such as { mode: qemu }",
);

const features = v.objectWithRest(
  {
    provider: v.optional(
      v.picklist(["default", "capmox"], "must be default (proxmox://<region>/<vmid>) or capmox (proxmox://<UUID>)"),
      "default",
    ),
    ha_group: v.optional(bool("true makes the VM's HA group its zone"), false),
    force_update_labels: v.optional(bool("true keeps the topology labels in step after a migration"), false),
    network: v.optional(network, {}),
  },
  v.never("is not a features field; the fields are provider, ha_group, force_update_labels, network"),
  "must be a mapping such as { network: { mode: qemu } }",
);

const cluster = v.pipe(
  v.objectWithRest(
    {
      url: v.pipe(
        v.string("must be a string such as https://pve-1.example.com:8006/api2/json"),
        v.check(isHttpUrl, "must be an https:// (or http://) URL such as https://pve-1.example.com:8006/api2/json"),
        v.transform((url) => url.replace(/\/+$/, "")),
        // The client joins each path to the URL as it is, as the peer's does.
        v.check(
          (url) => new URL(url).pathname.endsWith("/api2/json"),
          "must end in the API's path /api2/json, such as https://pve-1.example.com:8006/api2/json",
        ),
      ),
      insecure: v.optional(bool("true skips TLS verification"), false),
      ca_file: v.exactOptional(nonBlank("a PEM file of the CA that signed the cluster's certificate")),
      token_id: v.exactOptional(
        v.pipe(
          v.string("must be a string such as kubernetes@pve!ccm"),
          v.regex(TOKEN_ID, "must be an API token ID of the form user@realm!tokenname, such as kubernetes@pve!ccm"),
        ),
      ),
      token_secret: v.exactOptional(nonBlank("the API token's secret")),
      token_id_file: v.exactOptional(nonBlank("a file holding the token ID")),
      token_secret_file: v.exactOptional(nonBlank("a file holding the token secret")),
      region: v.pipe(
        v.string("must be a string such as cluster-1"),
        v.regex(REGION, "must be 1-63 letters, digits, '.', '_' or '-', starting and ending with a letter or digit"),
      ),
      username: v.exactOptional(v.never("is not supported: create an API token and set token_id and token_secret")),
      password: v.exactOptional(v.never("is not supported: create an API token and set token_id and token_secret")),
    },
    v.never(`is not a cluster field; the fields are ${clusterKeys.join(", ")}`),
    (issue) =>
      issue.expected === '"url"' || issue.expected === '"region"'
        ? `is required: ${issue.expected === '"url"' ? "the cluster's API URL, ending in /api2/json" : "the name of this Proxmox cluster (the Kubernetes region)"}`
        : "must be a mapping such as { url: …, token_id: …, token_secret: …, region: … }",
  ),
  v.forward(
    v.partialCheck(
      [["insecure"], ["ca_file"]],
      (c) => !(c.insecure && c.ca_file !== undefined),
      "set either insecure: true or ca_file, not both",
    ),
    ["ca_file"],
  ),
  v.forward(
    v.partialCheck(
      [["token_id"], ["token_id_file"]],
      (c) => (c.token_id === undefined) !== (c.token_id_file === undefined),
      "set exactly one of token_id and token_id_file",
    ),
    ["token_id"],
  ),
  v.forward(
    v.partialCheck(
      [["token_secret"], ["token_secret_file"]],
      (c) => (c.token_secret === undefined) !== (c.token_secret_file === undefined),
      "set exactly one of token_secret and token_secret_file",
    ),
    ["token_secret"],
  ),
);

export const proxmoxConfigSchema = v.pipe(
  v.objectWithRest(
    {
      features: v.optional(features, {}),
      clusters: v.pipe(
        v.array(cluster, "must be a list of clusters, each { url, token_id, token_secret, region }"),
        v.minLength(1, "must list at least one Proxmox cluster"),
      ),
    },
    v.never("is not a known key; the keys are features and clusters"),
    (issue) =>
      issue.expected === '"clusters"'
        ? "is required: the list of Proxmox clusters, each { url, token_id, token_secret, region }"
        : "must be a mapping with the keys features and clusters",
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { clusters } = dataset.value;
    const seen = new Map<string, number>();
    for (const [i, c] of clusters.entries()) {
      const first = seen.get(c.region);
      if (first === undefined) {
        seen.set(c.region, i);
        continue;
      }
      addIssue({
        message: `region ${JSON.stringify(c.region)} is also clusters[${first}]'s; each cluster needs its own region`,
        path: [
          { type: "object", origin: "value", input: dataset.value, key: "clusters", value: clusters },
          { type: "array", origin: "value", input: clusters, key: i, value: c },
          { type: "object", origin: "value", input: c, key: "region", value: c.region },
        ],
      });
    }
  }),
);

export type ProxmoxConfig = v.InferOutput<typeof proxmoxConfigSchema>;
export type ClusterConfig = ProxmoxConfig["clusters"][number];
export type NetworkConfig = ProxmoxConfig["features"]["network"];

/** Parse and validate; throws a `ConfigError` listing every problem. `undefined` text means no file was given. */
export function parseProxmoxConfig(text: string | undefined, source: string | undefined): ProxmoxConfig {
  return parseCloudConfig(proxmoxConfigSchema, text, source ?? defaultSource);
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
