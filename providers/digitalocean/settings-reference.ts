/**
 * The digitalocean provider's settings reference: DO CCM's environment variables, with their defaults and
 * meanings, generated into docs/providers/digitalocean.md. A test keeps it equal to what config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

export const digitalOceanSettingDocs: readonly SettingDoc[] = [
  {
    names: ["DO_ACCESS_TOKEN"],
    default: "required",
    meaning:
      "an API token with read and write scope. `DO_ACCESS_TOKEN_FILE` names a file that holds it instead. A refused token fails `doctor` and the start, naming this variable.",
  },
  {
    names: ["DO_OVERRIDE_URL"],
    default: "`https://api.digitalocean.com`",
    meaning: "the API's root URL, without `/v2` (an emulator's, in tests)",
  },
  {
    names: ["REGION"],
    default: "not set",
    meaning:
      "the region slug (`nyc3`) of the cluster, where new load balancers are made. Unset, the Droplet metadata service is asked at start, as DO CCM asks it; a manager outside DigitalOcean must set it. Either way it must be one of the account's regions (`GET /v2/regions`), or the start and `doctor` fail naming this variable.",
  },
  {
    names: ["DO_METADATA_URL"],
    default: "`http://169.254.169.254`",
    meaning:
      "ours, not DO CCM's: the Droplet metadata service's root, asked for `/metadata/v1/region` when `REGION` is not set (an emulator's, in tests)",
  },
  {
    names: ["DO_CLUSTER_ID"],
    default: "not set",
    meaning:
      "load balancers: the cluster's ID. Load balancers made for this cluster carry the tag `k8s:<DO_CLUSTER_ID>` (else `k8s:<--cluster-name>`); only a load balancer with this tag, or the one a Service's `kubernetes.digitalocean.com/load-balancer-id` names, is ever changed or deleted.",
  },
  {
    names: ["DO_CLUSTER_VPC_ID"],
    default: "not set",
    meaning: "load balancers: the VPC new ones are placed in; unset, the region's default",
  },
  {
    names: ["DO_API_RATE_LIMIT_QPS"],
    default: "`1.25`",
    meaning:
      "the pace of API requests a second (0.01–1000; the burst is the pace rounded up). The default, with a burst of 20, keeps a busy manager under 4500 requests an hour and 250 a minute, inside a token's budget of 5000 an hour.",
  },
  {
    names: ["DEFAULT_LB_TYPE"],
    default: "`REGIONAL_NETWORK`",
    meaning: "load balancers: the type of new ones, `REGIONAL` or `REGIONAL_NETWORK`",
  },
  {
    names: ["PUBLIC_ACCESS_FIREWALL_NAME", "PUBLIC_ACCESS_FIREWALL_TAGS"],
    default: "not set",
    meaning:
      "both or neither: the name of the firewall the provider keeps open for every NodePort (and network load balancer) Service's ports, and the comma-separated tags of the Droplets it applies to. Created when missing, put back when changed by hand, never deleted; no other firewall is touched. See [the firewall](#the-public-access-firewall).",
  },
  {
    names: ["DEBUG_ADDR", "METRICS_ADDR"],
    default: "not set",
    meaning: "accepted, with a warning at start: the manager serves health and metrics on `--secure-port`",
  },
];
