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
      "load balancers: the region slug (`nyc3`) new ones are made in. Unlike DO CCM, which asks the Droplet metadata service when it is not set, the region of the Service's first node's Droplet is used.",
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
    meaning: "accepted, with a warning at start: the firewall controller is not part of this provider yet",
  },
  {
    names: ["DEBUG_ADDR", "METRICS_ADDR"],
    default: "not set",
    meaning: "accepted, with a warning at start: the manager serves health and metrics on `--secure-port`",
  },
];
