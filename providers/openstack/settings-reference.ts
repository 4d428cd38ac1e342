/**
 * The openstack provider's settings reference: OCCM's `cloud.conf` keys, with their defaults and meanings, generated
 * into docs/providers/openstack.md. A test keeps it equal to what config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

const lbs = "load balancers:";
/** Keys OCCM reads that this version validates but does not act on. */
const lbUnused = "load balancers (read and validated; not acted on in this version):";

const g = (key: string) => `[Global] ${key}`;
const lb = (key: string) => `[LoadBalancer] ${key}`;
const cls = (key: string) => `[LoadBalancerClass "<name>"] ${key}`;

export const openStackSettingDocs: readonly SettingDoc[] = [
  {
    names: [g("auth-url")],
    default: "required",
    meaning:
      "Keystone's URL. `/v3` is added unless it ends in it (`https://keystone.example.com:5000` and `…:5000/v3` are the same). With `use-clouds`, may come from clouds.yaml.",
  },
  {
    names: [g("application-credential-id"), g("application-credential-name"), g("application-credential-secret")],
    default: "not set",
    meaning:
      "an application credential, by ID, or by name with its user (`user-id`, or `username` and its domain); the secret is required. Set, it wins over every other method, and the credential's own project is used.",
  },
  {
    names: [g("username"), g("user-id"), g("password")],
    default: "not set",
    meaning:
      "password authentication: the user by ID, or by name with `user-domain-id`/`user-domain-name` (else `domain-id`/`domain-name`). The password is never logged nor shown in an error.",
  },
  {
    names: [g("tenant-id"), g("tenant-name")],
    default: "required for password and token authentication",
    meaning:
      "the project (Keystone v3's name for a tenant) the token is scoped to, by ID, or by name with `tenant-domain-id`/`tenant-domain-name` (else `domain-id`/`domain-name`). Not sent with an application credential or a trust.",
  },
  {
    names: [g("domain-id"), g("domain-name")],
    default: "not set",
    meaning: "the domain of both the user and the project, where `user-domain-*` or `tenant-domain-*` are not set",
  },
  {
    names: [g("user-domain-id"), g("user-domain-name"), g("tenant-domain-id"), g("tenant-domain-name")],
    default: "not set",
    meaning: "the user's and the project's domain, by ID or name",
  },
  {
    names: [g("trust-id"), g("trustee-id"), g("trustee-password")],
    default: "not set",
    meaning:
      "trust authentication: the trustee (`trustee-id`, else `user-id` or `username`) signs in with its password (`trustee-password`, else `password`) and the token is scoped to the trust",
  },
  {
    names: [g("token")],
    default: "not set",
    meaning: "an existing Keystone token to exchange for a project-scoped one; it expires, so only for short runs",
  },
  {
    names: [g("region")],
    default: "not set",
    meaning:
      "the region of the catalog's endpoints, the Nodes' region label, and the region in regional provider IDs. Unset, every region matches, and a service listed in several is an error naming them.",
  },
  {
    names: [g("os-endpoint-type")],
    default: "`public`",
    meaning:
      "which endpoints of the catalog to use: `public`, `internal` or `admin` (`publicURL` and the like are read too)",
  },
  {
    names: [g("ca-file"), g("cert-file"), g("key-file")],
    default: "not set",
    meaning:
      "a PEM CA bundle to trust for every OpenStack endpoint, and a client certificate with its key for TLS client authentication (both or neither); read once at start",
  },
  {
    names: [g("tls-insecure")],
    default: "`false`",
    meaning: "`true` skips verifying the endpoints' certificates (`true` or `false` only, as OCCM)",
  },
  {
    names: [g("use-clouds"), g("clouds-file"), g("cloud")],
    default: "`false`, not set, not set",
    meaning:
      "`use-clouds = true` reads the credentials from the `cloud` entry (else `OS_CLOUD`, else the only one) of a clouds.yaml: `clouds-file`, else `OS_CLIENT_CONFIG_FILE`, `~/.config/openstack/clouds.yaml`, `/etc/openstack/clouds.yaml`. Keys set in `[Global]` win. `profile` entries (clouds-public.yaml) and secure.yaml are not read.",
  },
  {
    names: ["OS_CCM_REGIONAL"],
    default: "`false`",
    meaning:
      "environment variable: `true` writes region-qualified provider IDs, `openstack://<region>/<server id>`, as OCCM's multi-region support; both forms are read either way",
  },
  {
    names: ["[Networking] public-network-name", "[Networking] internal-network-name"],
    default: "not set",
    meaning:
      "may be given several times. Addresses on a public network are ExternalIP; with internal networks named, addresses on other networks (not floating, not public) are left out",
  },
  {
    names: ["[Networking] ipv6-support-disabled"],
    default: "`false`",
    meaning: "`true` leaves every IPv6 address out of the Nodes' addresses",
  },
  {
    names: ["[Networking] address-sort-order"],
    default: "not set",
    meaning:
      "CIDRs separated by commas: addresses inside them come first, the first CIDR's first; an invalid CIDR is an error (OCCM skips it with a warning)",
  },
  {
    names: ["[Metadata] search-order"],
    default: "`configDrive,metadataService`",
    meaning:
      "accepted and validated (`configDrive`, `metadataService` or both); the manager never reads a server's metadata service or config drive, so it changes nothing",
  },
  {
    names: ["[Metadata] request-timeout"],
    default: "`60s`",
    meaning: "a Go duration: the timeout of each OpenStack API request, as OCCM uses it",
  },
  { names: ["[Route] router-id"], default: "not set", meaning: "routes (not in this version yet): the Neutron router" },
  { names: [lb("enabled")], default: "`true`", meaning: `${lbs} \`false\` turns the load-balancer controller off` },
  { names: [lb("lb-version")], default: "not set", meaning: `${lbs} only \`v2\`` },
  {
    names: [
      lb("floating-network-id"),
      lb("floating-subnet-id"),
      lb("floating-subnet"),
      lb("floating-subnet-tags"),
      lb("network-id"),
      lb("subnet-id"),
      lb("member-subnet-id"),
    ],
    default: "not set",
    meaning: `${lbs} where the VIP, its floating IP and the members are placed, as OCCM's keys of the same names`,
  },
  {
    names: [cls("floating-network-id"), cls("floating-subnet-id"), cls("floating-subnet"), cls("floating-subnet-tags")],
    default: "not set",
    meaning: `${lbs} a named class of placements, chosen by a Service's \`loadbalancer.openstack.org/class\``,
  },
  {
    names: [cls("network-id"), cls("subnet-id"), cls("member-subnet-id")],
    default: "not set",
    meaning: `${lbs} the class's networks, as the \`[LoadBalancer]\` keys`,
  },
  {
    names: [lb("lb-method")],
    default: "`ROUND_ROBIN`",
    meaning: `${lbs} \`ROUND_ROBIN\`, \`LEAST_CONNECTIONS\`, \`SOURCE_IP\`, or \`SOURCE_IP_PORT\` for ovn`,
  },
  {
    names: [lb("lb-provider")],
    default: "`amphora`",
    meaning: `${lbs} the Octavia provider; other than amphora, octavia, ovn, f5 or amphorav2 is a warning`,
  },
  {
    names: [lb("create-monitor"), lb("monitor-delay"), lb("monitor-timeout")],
    default: "`false`, `5s`, `3s`",
    meaning: `${lbs} health monitors, their interval and timeout (Go durations)`,
  },
  {
    names: [lb("monitor-max-retries"), lb("monitor-max-retries-down")],
    default: "`1`, `3`",
    meaning: `${lbs} checks before a member is up, or down (1–10)`,
  },
  {
    names: [lb("internal-lb"), lb("cascade-delete")],
    default: "`false`, `true`",
    meaning: `${lbs} every load balancer internal (no floating IP); cascade deletion, else children deleted first`,
  },
  {
    names: [lb("manage-security-groups")],
    default: "`false`",
    meaning: `${lbUnused} security groups for the members' ports`,
  },
  { names: [lb("node-selector")], default: "not set", meaning: `${lbs} \`key=value\` pairs members must match` },
  {
    names: [lb("flavor-id"), lb("availability-zone")],
    default: "not set",
    meaning: `${lbs} the Octavia flavor and availability zone`,
  },
  {
    names: [lb("enable-ingress-hostname"), lb("ingress-hostname-suffix")],
    default: "`false`, `nip.io`",
    meaning: `${lbs} a hostname instead of the IP in the status, for the PROXY protocol`,
  },
  {
    names: [lb("max-shared-lb")],
    default: "`2`",
    meaning: `${lbUnused} Services that may share one load balancer (sharing is not offered)`,
  },
  {
    names: [lb("container-store"), lb("default-tls-container-ref")],
    default: "`barbican`, not set",
    meaning: `${lbs} where TLS containers live (not checked here; Octavia checks the reference), and the default one for TERMINATED_HTTPS listeners`,
  },
  {
    names: [lb("provider-requires-serial-api-calls")],
    default: "`false`",
    meaning: `${lbs} \`true\` creates load balancers step by step instead of one fully populated create`,
  },
  {
    names: [lb("pending-deadline")],
    default: "`5m`",
    meaning: `${lbs} ours, not OCCM's (OCCM waits without end): how long a load balancer \`PENDING_*\` is waited on before a Warning event naming it and its status, and the sync is retried; a Go duration from 1s to 1h`,
  },
];
