/**
 * Facts from DigitalOcean's published API description (the `digitalocean/openapi` repository: the models under
 * `specification/resources/{droplets,load_balancers,certificates,tags,firewalls,account}/models` and
 * `specification/shared`), restated by hand: for each schema the fields it lists as `required` with their
 * documented types, other documented fields the emulator sends, the enums, and one example, shortened and
 * partly with our own values. No file of the repository is copied; the emulator's tests check its answers and refusals
 * against these facts.
 */

export type FieldType = "string" | "integer" | "boolean" | "array" | "object" | "object|null" | "integer|null";

export interface SchemaFacts {
  /** The schema's `required` list, each with its documented type. */
  readonly required: Readonly<Record<string, FieldType>>;
  /** Documented fields outside `required`, checked when an answer carries them. */
  readonly optional: Readonly<Record<string, FieldType>>;
  readonly enums: Readonly<Record<string, readonly string[]>>;
  readonly example: Readonly<Record<string, unknown>>;
}

/** `droplet.yml`; `networks.v4[]` is `network_v4.yml`, `networks.v6[]` `network_v6.yml`. */
export const droplet: SchemaFacts = {
  required: {
    id: "integer",
    name: "string",
    memory: "integer",
    vcpus: "integer",
    disk: "integer",
    locked: "boolean",
    status: "string",
    created_at: "string",
    features: "array",
    backup_ids: "array",
    // `droplet_next_backup_window.yml` is `nullable: true`: null when backups are off.
    next_backup_window: "object|null",
    snapshot_ids: "array",
    image: "object",
    volume_ids: "array",
    size: "object",
    size_slug: "string",
    networks: "object",
    region: "object",
    tags: "array",
  },
  optional: { vpc_uuid: "string", disk_info: "array" },
  enums: { status: ["new", "active", "off", "archive"] },
  example: {
    id: 3164444,
    name: "example.com",
    memory: 1024,
    vcpus: 1,
    disk: 25,
    locked: false,
    status: "active",
    created_at: "2020-07-21T18:37:44Z",
    features: ["backups", "private_networking", "ipv6"],
    backup_ids: [53893572],
    next_backup_window: null,
    snapshot_ids: [67512819],
    image: { slug: "ubuntu-20-04-x64" },
    volume_ids: [],
    size: { slug: "s-1vcpu-1gb" },
    size_slug: "s-1vcpu-1gb",
    networks: {
      v4: [
        { ip_address: "10.128.192.124", netmask: "255.255.0.0", type: "private" },
        { ip_address: "192.241.165.154", netmask: "255.255.255.0", gateway: "192.241.165.1", type: "public" },
      ],
      v6: [{ ip_address: "2604:a880:0:1010::18a:a001", netmask: 64, gateway: "2604:a880:0:1010::1", type: "public" }],
    },
    region: { slug: "nyc3", name: "New York 3" },
    tags: ["web", "env:prod"],
    vpc_uuid: "760e09ef-dc84-11e8-981e-3cfdfeaae000",
  },
};

/** `network_v4.yml` and `network_v6.yml`: no `required` list; the types and the `type` enum. */
export const networkV4 = { ip_address: "string", netmask: "string", gateway: "string", type: "string" } as const;
export const networkV4Types = ["public", "private"] as const;
export const networkV6 = { ip_address: "string", netmask: "integer", gateway: "string", type: "string" } as const;
export const networkV6Types = ["public"] as const;

/** `forwarding_rule.yml`. */
export const forwardingRule: SchemaFacts = {
  required: { entry_protocol: "string", entry_port: "integer", target_protocol: "string", target_port: "integer" },
  optional: { certificate_id: "string", tls_passthrough: "boolean" },
  enums: {
    entry_protocol: ["http", "https", "http2", "http3", "tcp", "udp"],
    target_protocol: ["http", "https", "http2", "tcp", "udp"],
  },
  example: { entry_protocol: "https", entry_port: 443, target_protocol: "http", target_port: 80 },
};

/** `health_check.yml`: nothing required; the defaults are facts too. */
export const healthCheck: SchemaFacts & { defaults: Record<string, unknown> } = {
  required: {},
  optional: {
    protocol: "string",
    port: "integer",
    path: "string",
    check_interval_seconds: "integer",
    response_timeout_seconds: "integer",
    unhealthy_threshold: "integer",
    healthy_threshold: "integer",
  },
  enums: { protocol: ["http", "https", "tcp"] },
  defaults: {
    protocol: "http",
    port: 80,
    path: "/",
    check_interval_seconds: 10,
    response_timeout_seconds: 5,
    unhealthy_threshold: 5,
    healthy_threshold: 3,
  },
  example: { protocol: "http", port: 8080, path: "/health", check_interval_seconds: 10, healthy_threshold: 5 },
};

/** `sticky_sessions.yml`: nothing required, `type` defaults to `none`. */
export const stickySessions: SchemaFacts & { defaults: Record<string, unknown> } = {
  required: {},
  optional: { type: "string", cookie_name: "string", cookie_ttl_seconds: "integer" },
  enums: { type: ["cookies", "none"] },
  defaults: { type: "none" },
  example: { type: "cookies", cookie_name: "LB_COOKIE", cookie_ttl_seconds: 300 },
};

/** `load_balancer.yml` (`load_balancer_base.yml` plus `region`, `droplet_ids`, `tag`) as answered. */
export const loadBalancer: SchemaFacts = {
  required: { forwarding_rules: "array" },
  optional: {
    id: "string",
    name: "string",
    project_id: "string",
    ip: "string",
    size_unit: "integer",
    size: "string",
    algorithm: "string",
    status: "string",
    created_at: "string",
    health_check: "object",
    sticky_sessions: "object",
    redirect_http_to_https: "boolean",
    enable_proxy_protocol: "boolean",
    enable_backend_keepalive: "boolean",
    http_idle_timeout_seconds: "integer",
    vpc_uuid: "string",
    disable_lets_encrypt_dns_records: "boolean",
    firewall: "object",
    network: "string",
    network_stack: "string",
    type: "string",
    region: "object",
    droplet_ids: "array",
    tag: "string",
  },
  enums: {
    status: ["new", "active", "errored"],
    algorithm: ["round_robin", "least_connections"],
    size: ["lb-small", "lb-medium", "lb-large"],
    network: ["EXTERNAL", "INTERNAL"],
    network_stack: ["IPV4", "DUALSTACK"],
    type: ["REGIONAL", "REGIONAL_NETWORK", "GLOBAL"],
  },
  example: {
    id: "4de7ac8b-495b-4884-9a69-1050c6793cd6",
    name: "example-lb-01",
    ip: "104.131.186.241",
    algorithm: "round_robin",
    status: "new",
    created_at: "2017-02-01T22:22:58Z",
    forwarding_rules: [{ entry_protocol: "http", entry_port: 80, target_protocol: "http", target_port: 80 }],
    health_check: { protocol: "http", port: 80, path: "/" },
    sticky_sessions: { type: "none" },
    region: { slug: "nyc3", name: "New York 3" },
    tag: "",
    droplet_ids: [3164444, 3164445],
  },
};

/** `ip` is empty or a dotted IPv4 address (the schema's pattern). */
export const loadBalancerIpPattern = /^$|^((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)$/;
/** `size_unit` 1–100, `http_idle_timeout_seconds` 30–600. */
export const loadBalancerBounds = { size_unit: [1, 100], http_idle_timeout_seconds: [30, 600] } as const;

/** `load_balancer_create.yml`: `region` and `forwarding_rules` (from the base) and one of `droplet_ids` or `tag`. */
export const loadBalancerCreate = {
  required: ["region", "forwarding_rules"],
  oneOf: ["droplet_ids", "tag"],
  /** The "using a Droplet tag" example request, with our own names; its certificate is made by the test. */
  example: {
    name: "example-lb-01",
    region: "nyc3",
    forwarding_rules: [{ entry_protocol: "https", entry_port: 443, target_protocol: "http", target_port: 8080 }],
    health_check: { protocol: "http", port: 8080, path: "/health", check_interval_seconds: 10 },
    sticky_sessions: { type: "cookies", cookie_name: "LB_COOKIE", cookie_ttl_seconds: 300 },
    tag: "prod:web",
  },
} as const;

/** `firewall.yml` with `firewall_rule.yml`'s rules. */
export const firewall: SchemaFacts = {
  required: {},
  optional: {
    id: "string",
    status: "string",
    created_at: "string",
    pending_changes: "array",
    name: "string",
    droplet_ids: "array",
    tags: "array",
    inbound_rules: "array",
    outbound_rules: "array",
  },
  enums: { status: ["waiting", "succeeded", "failed"] },
  example: {
    id: "bb4b2611-3d72-467b-8602-280330ecd65c",
    name: "firewall",
    status: "succeeded",
    inbound_rules: [{ protocol: "tcp", ports: "80", sources: { load_balancer_uids: ["lb-uid"] } }],
    outbound_rules: [{ protocol: "tcp", ports: "80", destinations: { addresses: ["0.0.0.0/0", "::/0"] } }],
    created_at: "2017-05-23T21:24:00Z",
    droplet_ids: [8043964],
    tags: [],
    pending_changes: [],
  },
};

/** `firewalls_create.yml`: `name`, and `inbound_rules` or `outbound_rules`; a rule `protocol` and `ports`, inbound
 * `sources`, outbound `destinations`; `name` matches the pattern below. */
export const firewallCreate = {
  required: ["name"],
  anyOf: ["inbound_rules", "outbound_rules"],
  rule: { required: ["protocol", "ports"], protocols: ["tcp", "udp", "icmp"] },
  namePattern: /^[a-zA-Z0-9][a-zA-Z0-9.-]+$/,
  example: {
    name: "firewall",
    inbound_rules: [
      { protocol: "tcp", ports: "80", sources: { load_balancer_uids: ["4de7ac8b-495b-4884-9a69-1050c6793cd6"] } },
      { protocol: "tcp", ports: "22", sources: { tags: ["gateway"], addresses: ["18.0.0.0/8"] } },
    ],
    outbound_rules: [{ protocol: "tcp", ports: "80", destinations: { addresses: ["0.0.0.0/0", "::/0"] } }],
  },
} as const;

/** `certificate.yml`: nothing required in the answer. */
export const certificate: SchemaFacts = {
  required: {},
  optional: {
    id: "string",
    name: "string",
    not_after: "string",
    sha1_fingerprint: "string",
    created_at: "string",
    dns_names: "array",
    state: "string",
    type: "string",
  },
  enums: { state: ["pending", "verified", "error"], type: ["custom", "lets_encrypt"] },
  example: {
    id: "892071a0-bb95-49bc-8021-3afd67a210bf",
    name: "web-cert-01",
    not_after: "2017-02-22T00:23:00Z",
    sha1_fingerprint: "dfcc9f57d86bf58e321c2c6c31c7a971be244ac7",
    created_at: "2017-02-08T16:02:37Z",
    dns_names: ["www.example.com", "example.com"],
    state: "verified",
    type: "lets_encrypt",
  },
};

/** `certificate_create.yml`: `name` always; custom also the key and leaf certificate, Let's Encrypt `dns_names`. */
export const certificateCreate = {
  custom: {
    required: ["name", "private_key", "leaf_certificate"],
    example: {
      name: "web-cert-01",
      type: "custom",
      private_key: "-----BEGIN PRIVATE KEY-----\n…",
      leaf_certificate: "-----BEGIN CERTIFICATE-----\n…",
    },
  },
  lets_encrypt: {
    required: ["name", "dns_names"],
    example: { name: "web-cert-02", type: "lets_encrypt", dns_names: ["www.example.com", "example.com"] },
  },
} as const;

/** `tags.yml` (no `required` list; the name's pattern) and `tags_resource.yml` (`resources` required). */
export const tag = {
  namePattern: /^[a-zA-Z0-9_\-:]+$/,
  answer: { name: "string", resources: "object" } as Readonly<Record<string, FieldType>>,
  example: { name: "extra-awesome", resources: { count: 0, droplets: { count: 0 } } },
  resources: {
    required: ["resources"],
    itemTypes: ["droplet", "image", "volume", "volume_snapshot"],
    example: { resources: [{ resource_id: "9569411", resource_type: "droplet" }] },
  },
} as const;

/** `shared/models/error.yml`: `id` and `message` required, `request_id` optional; and the 422 example's `id`. */
export const error: SchemaFacts = {
  required: { id: "string", message: "string" },
  optional: { request_id: "string" },
  enums: {},
  example: {
    id: "unprocessable_entity",
    message: "request payload validation failed",
    request_id: "4851a473-1621-42ea-b2f9-5071c0ea8414",
  },
};

/** `shared/meta.yml` and `shared/pages.yml`: `meta.total` required; `links.pages` any of first/prev, last/next. */
export const pagination = {
  metaRequired: { total: "integer" } as Readonly<Record<string, FieldType>>,
  pageLinks: ["first", "prev", "next", "last"],
  example: {
    links: {
      pages: {
        last: "https://api.digitalocean.com/v2/images?page=2",
        next: "https://api.digitalocean.com/v2/images?page=2",
      },
    },
    meta: { total: 2 },
  },
} as const;

/** `shared/headers.yml`: every answer's rate-limit headers, integers; 5000 requests an hour. */
export const rateLimitHeaders = {
  names: ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"],
  hourly: 5000,
} as const;

/** `regions/models/region.yml`: every field required. */
export const region: SchemaFacts = {
  required: { name: "string", slug: "string", features: "array", available: "boolean", sizes: "array" },
  optional: {},
  enums: {},
  example: {
    name: "New York 3",
    slug: "nyc3",
    features: ["backups", "ipv6", "metadata"],
    available: true,
    sizes: ["s-1vcpu-1gb", "s-2vcpu-2gb"],
  },
};

/** `account.yml`. */
export const account: SchemaFacts = {
  required: {
    droplet_limit: "integer",
    floating_ip_limit: "integer",
    email: "string",
    uuid: "string",
    email_verified: "boolean",
    status: "string",
    status_message: "string",
  },
  optional: { name: "string", team: "object" },
  enums: { status: ["active", "warning", "locked"] },
  example: {
    droplet_limit: 25,
    floating_ip_limit: 5,
    email: "sammy@example.com",
    uuid: "b6fr89dbf6d9156cace5f3c78dc9851d957381ef",
    email_verified: true,
    status: "active",
    status_message: " ",
  },
};
