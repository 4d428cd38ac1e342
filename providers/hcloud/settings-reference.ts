/**
 * The hcloud provider's settings reference: hccm's environment variables (and the few of ours), with their
 * defaults and meanings, generated into docs/providers/hcloud.md. A test keeps it equal to what config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

export const hcloudSettingDocs: readonly SettingDoc[] = [
  {
    names: ["HCLOUD_TOKEN"],
    default: "required",
    meaning:
      "the project's API token (Read & Write). `HCLOUD_TOKEN_FILE` names a file that holds it instead. A length other than Hetzner's 64 characters is a warning.",
  },
  {
    names: ["HCLOUD_ENDPOINT"],
    default: "`https://api.hetzner.cloud/v1`",
    meaning: "the Cloud API's URL (an emulator's, in tests)",
  },
  {
    names: ["HCLOUD_DEBUG"],
    default: "`false`",
    meaning: "`true`: every Cloud API request is an info line (method, path, status, duration; never the token)",
  },
  {
    names: ["HCLOUD_RATE_LIMIT_QPS", "HCLOUD_RATE_LIMIT_BURST"],
    default: "`0.9`, `10`",
    meaning:
      "ours, not hccm's: the pace of Cloud API requests (0.01–1000 a second; a burst of 1–1000). The default keeps a busy manager under 3250 requests an hour, inside a project's 3600; raise it only for a project whose limit Hetzner raised, or against an emulator (the end-to-end tests run at 20).",
  },
  {
    names: ["HCLOUD_NETWORK"],
    default: "not set",
    meaning:
      "the name or ID of the cluster's private network: nodes get their private IP in it as InternalIP, routes go in it, load balancers attach to it. One that does not exist stops the manager.",
  },
  {
    names: ["HCLOUD_NETWORK_ROUTES_ENABLED"],
    default: "`true` with a network",
    meaning: "pod-CIDR routes in `HCLOUD_NETWORK`; must be `false` with `ROBOT_ENABLED` (as in hccm)",
  },
  {
    names: ["HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK"],
    default: "`false`",
    meaning: 'accepted; the check it turns off is not made (see "What differs")',
  },
  {
    names: ["HCLOUD_INSTANCES_ADDRESS_FAMILY"],
    default: "`ipv4`",
    meaning: "`ipv4`, `ipv6` or `dualstack`: which public addresses nodes get (IPv6: the `::1` of the server's /64)",
  },
  {
    names: ["HCLOUD_INSTANCES_ZONE_LABEL_ENABLED"],
    default: "`true`",
    meaning: "`false` leaves the zone labels off",
  },
  {
    names: ["HCLOUD_SERVER_CACHE_MODE"],
    default: "`all`",
    meaning:
      "one-by-one lookups: `all` keeps one listing of every server for the max age, `one` keeps each server asked for, `off` asks every time (hccm: experimental). A server missing from what is kept is asked for before it counts as gone. Unlike hccm, a stale listing of more than 50 servers is not read again for one lookup (it would cost a call per 50 servers): a lookup never costs more than one call.",
  },
  {
    names: ["HCLOUD_SERVER_CACHE_MAX_AGE"],
    default: "`10s`",
    meaning: "how long the server cache keeps an answer (a Go duration)",
  },
  {
    names: ["HCLOUD_METRICS_ENABLED", "HCLOUD_METRICS_ADDRESS"],
    default: "`true`, `:8233`",
    meaning:
      'accepted (a warning at start when changed); metrics are served by the manager on `/metrics` (see "What differs")',
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_ENABLED"],
    default: "`true`",
    meaning: "`false`: no load balancers (the service controller does not run)",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_LOCATION"],
    default: "not set",
    meaning:
      "location of new load balancers (`fsn1`, `nbg1`, `hel1`, `ash`, `hil`, `sin`); not with `…_NETWORK_ZONE`. Checked against the API's list of locations at start and by `doctor`: one it does not hold stops the manager.",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_NETWORK_ZONE"],
    default: "not set",
    meaning:
      "network zone of new load balancers (`eu-central`, `us-east`, …). Checked against the zones of the API's locations at start and by `doctor`: one it does not hold stops the manager.",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_TYPE"],
    default: "not set",
    meaning:
      "the type of new load balancers (`lb11`, `lb21`, `lb31`); unset, the API's smallest (`lb11`) at creation, and an existing one's type is left as it is. Checked against the API's load balancer types at start and by `doctor`: one it does not offer stops the manager before any load balancer is changed.",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE"],
    default: "the API's",
    meaning: "`round_robin` or `least_connections`",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP"],
    default: "`false`",
    meaning: "targets over the private network",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS"],
    default: "`false`",
    meaning: "leave the private address out of the Service's ingress",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"],
    default: "not set",
    meaning: "turn the public interface off",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_DISABLE_IPV6"],
    default: "`false`",
    meaning: "leave the IPv6 address out of the Service's ingress",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL"],
    default: "not set",
    meaning: "PROXY protocol to the nodes",
  },
  {
    names: ["HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE"],
    default: "not set",
    meaning: "the subnet of `HCLOUD_NETWORK` to attach in",
  },
  {
    names: [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL",
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT",
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES",
    ],
    default: "the API's (`15s`, `10s`, `3`)",
    meaning:
      "health-check defaults, taking exactly what the `health-check-interval`, `-timeout` and `-retries` annotations take: interval and timeout in whole seconds from 1s to 3600s (`15s`, `1m` or `15`), retries from 1 to 5 (the API refuses others). A value outside stops the manager at start.",
  },
  {
    names: ["ROBOT_ENABLED"],
    default: "`false`",
    meaning: "Robot dedicated servers (hybrid clusters)",
  },
  {
    names: ["ROBOT_USER", "ROBOT_PASSWORD"],
    default: "not set",
    meaning:
      "a Robot webservice user; also `ROBOT_USER_FILE`, `ROBOT_PASSWORD_FILE`. Without them, Robot is used for load-balancer targets only and Robot nodes are not initialised (as hccm). Checked with one read of Robot's server list at start and by `doctor`: refused, the manager stops after that one failed login (Robot locks an address out for 10 minutes after 3). Refused later, Robot is not asked again for an hour.",
  },
  {
    names: ["ROBOT_CACHE_TIMEOUT"],
    default: "`5m`",
    meaning:
      "how long Robot's server list is kept (Robot allows about 200 listings an hour); a server missing from it is asked for on its own",
  },
  {
    names: ["ROBOT_RATE_LIMIT_WAIT_TIME"],
    default: "`0`",
    meaning:
      "after Robot's rate-limit answer, how long to stop asking it (at least one request's share of Robot's budget)",
  },
  {
    names: ["ROBOT_FORWARD_INTERNAL_IPS"],
    default: "`true`",
    meaning: "keep the kubelet's InternalIPs on Robot nodes",
  },
  {
    names: ["ROBOT_ENDPOINT"],
    default: "`https://robot-ws.your-server.de`",
    meaning: "ours, not hccm's: the Robot webservice's URL (an emulator's, in tests)",
  },
];
