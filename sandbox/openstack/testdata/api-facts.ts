/**
 * Facts from the published OpenStack API reference, restated by hand: the Identity API v3 ("Authentication and
 * token management": password authentication with scoped authorization, authenticating with an application
 * credential), the Compute API v2.1 ("Servers", "List Servers Detailed", "Show Server Details", "Flavors", and the
 * microversion history for 2.47), the Networking API v2.0 ("Ports", "Floating IPs", and the trunk details
 * extension) and the Load Balancer API v2 ("Load Balancers", "Listeners", "Pools", "Members", "Health Monitors",
 * "Provisioning Status Codes"). For each answer: the fields the reference
 * lists as always present with their types, enums, and the shape of errors and of pagination links. No file of
 * the reference is copied; the emulator's tests check its answers against these facts.
 */

export type FieldType = "string" | "integer" | "boolean" | "array" | "object" | "null" | "string|null" | "object|null";

export interface Facts {
  /** Fields always present in the answer, with their documented types. */
  readonly required: Readonly<Record<string, FieldType>>;
  readonly enums?: Readonly<Record<string, readonly string[]>>;
}

/** `POST /v3/auth/tokens`: 201 Created, the token in `X-Subject-Token`; the body's `token`. */
export const token: Facts = {
  required: {
    methods: "array",
    user: "object",
    audit_ids: "array",
    expires_at: "string",
    issued_at: "string",
  },
};

/** The fields a project-scoped token adds. */
export const scopedToken: Facts = {
  required: { project: "object", roles: "array", catalog: "array", is_domain: "boolean" },
};

/** `token.catalog[]` and `token.catalog[].endpoints[]`. */
export const catalogEntry: Facts = { required: { endpoints: "array", id: "string", type: "string", name: "string" } };
export const catalogEndpoint: Facts = {
  required: { id: "string", interface: "string", region: "string", region_id: "string", url: "string" },
  enums: { interface: ["public", "internal", "admin"] },
};

/** Keystone's times: ISO 8601 with microseconds, UTC: `2015-11-09T01:42:57.527363Z`. */
export const keystoneTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** "Show Server Details" / "List Servers Detailed", at microversion 2.47 (`flavor` embedded). */
export const server: Facts = {
  required: {
    id: "string",
    name: "string",
    status: "string",
    tenant_id: "string",
    user_id: "string",
    metadata: "object",
    hostId: "string",
    image: "object",
    flavor: "object",
    created: "string",
    updated: "string",
    addresses: "object",
    accessIPv4: "string",
    accessIPv6: "string",
    links: "array",
    "OS-DCF:diskConfig": "string",
    "OS-EXT-AZ:availability_zone": "string",
    config_drive: "string",
    key_name: "string|null",
    "OS-SRV-USG:launched_at": "string|null",
    "OS-SRV-USG:terminated_at": "string|null",
    "OS-EXT-STS:task_state": "string|null",
    "OS-EXT-STS:vm_state": "string",
    "OS-EXT-STS:power_state": "integer",
    "os-extended-volumes:volumes_attached": "array",
    security_groups: "array",
    locked: "boolean",
    description: "string|null",
    tags: "array",
  },
  enums: {
    status: [
      "ACTIVE",
      "BUILD",
      "DELETED",
      "ERROR",
      "HARD_REBOOT",
      "MIGRATING",
      "PASSWORD",
      "PAUSED",
      "REBOOT",
      "REBUILD",
      "RESCUE",
      "RESIZE",
      "REVERT_RESIZE",
      "SHELVED",
      "SHELVED_OFFLOADED",
      "SHUTOFF",
      "SOFT_DELETED",
      "SUSPENDED",
      "UNKNOWN",
      "VERIFY_RESIZE",
    ],
  },
};

/** `server.flavor` from 2.47: the flavor as it was at boot; `id` and `links` are gone. */
export const embeddedFlavor: Facts = {
  required: {
    vcpus: "integer",
    ram: "integer",
    disk: "integer",
    ephemeral: "integer",
    swap: "integer",
    original_name: "string",
    extra_specs: "object",
  },
};

/** `server.flavor` before 2.47. */
export const flavorLink: Facts = { required: { id: "string", links: "array" } };

/** `server.addresses.<network>[]`. */
export const serverAddress: Facts = {
  required: { addr: "string", version: "integer", "OS-EXT-IPS:type": "string", "OS-EXT-IPS-MAC:mac_addr": "string" },
  enums: { "OS-EXT-IPS:type": ["fixed", "floating"] },
};

/** "Show Flavor Details". */
export const flavor: Facts = {
  required: {
    id: "string",
    name: "string",
    ram: "integer",
    vcpus: "integer",
    disk: "integer",
    "OS-FLV-EXT-DATA:ephemeral": "integer",
    swap: "integer",
    "os-flavor-access:is_public": "boolean",
    "OS-FLV-DISABLED:disabled": "boolean",
    links: "array",
  },
};

/** "List ports" / "Show port details". */
export const port: Facts = {
  required: {
    id: "string",
    name: "string",
    network_id: "string",
    tenant_id: "string",
    project_id: "string",
    mac_address: "string",
    admin_state_up: "boolean",
    status: "string",
    device_id: "string",
    device_owner: "string",
    fixed_ips: "array",
    allowed_address_pairs: "array",
    security_groups: "array",
    description: "string",
    created_at: "string",
    updated_at: "string",
    revision_number: "integer",
  },
  enums: { status: ["ACTIVE", "DOWN", "BUILD", "ERROR", "N/A"] },
};

/** `port.trunk_details` (the `trunk-details` extension) on a trunk's parent port, and its `sub_ports[]`. */
export const trunkDetails: Facts = { required: { trunk_id: "string", sub_ports: "array" } };
export const subPort: Facts = {
  required: { port_id: "string", segmentation_type: "string", segmentation_id: "integer", mac_address: "string" },
  enums: { segmentation_type: ["vlan", "inherit"] },
};

/** `port.fixed_ips[]`. */
export const fixedIP: Facts = { required: { subnet_id: "string", ip_address: "string" } };

/** Keystone's error body, and keystonemiddleware's 401 in front of every service. */
export const keystoneError: Facts = { required: { code: "integer", title: "string", message: "string" } };

/** Nova's fault body, under the fault's name: `{"itemNotFound": {"code": 404, "message": …}}`. */
export const novaFault: Facts = { required: { code: "integer", message: "string" } };
export const novaFaultNames: Readonly<Record<number, string>> = {
  400: "badRequest",
  404: "itemNotFound",
  406: "notAcceptable",
  409: "conflictingRequest",
  500: "computeFault",
};

/** Neutron's error body, under `NeutronError`. */
export const neutronError: Facts = { required: { type: "string", message: "string", detail: "string" } };

/** Nova's largest page when no `limit` is given (`[api] max_limit`). */
export const novaMaxLimit = 1000;

/** The microversions of the Compute API: 2.1 up to the emulator's highest, and the headers that carry them. */
export const novaMicroversion = {
  header: "OpenStack-API-Version",
  legacyHeader: "X-OpenStack-Nova-API-Version",
  min: "2.1",
  flavorEmbedded: "2.47",
};

/** The Load Balancer API v2's provisioning and operating statuses ("Provisioning Status Codes"). */
export const provisioningStatuses = [
  "ACTIVE",
  "DELETED",
  "ERROR",
  "PENDING_CREATE",
  "PENDING_UPDATE",
  "PENDING_DELETE",
];
export const operatingStatuses = ["ONLINE", "DRAINING", "OFFLINE", "DEGRADED", "ERROR", "NO_MONITOR"];

/** "Show Load Balancer details" / "List Load Balancers". */
export const octaviaLoadBalancer: Facts = {
  required: {
    id: "string",
    name: "string",
    description: "string",
    admin_state_up: "boolean",
    project_id: "string",
    provisioning_status: "string",
    operating_status: "string",
    provider: "string",
    vip_address: "string",
    vip_port_id: "string",
    vip_subnet_id: "string",
    vip_network_id: "string",
    vip_qos_policy_id: "string|null",
    flavor_id: "string",
    availability_zone: "string|null",
    listeners: "array",
    pools: "array",
    tags: "array",
    created_at: "string",
    updated_at: "string",
  },
  enums: { provisioning_status: provisioningStatuses, operating_status: operatingStatuses },
};

/** "Show Listener details". */
export const octaviaListener: Facts = {
  required: {
    id: "string",
    name: "string",
    description: "string",
    admin_state_up: "boolean",
    protocol: "string",
    protocol_port: "integer",
    connection_limit: "integer",
    default_pool_id: "string|null",
    default_tls_container_ref: "string|null",
    loadbalancers: "array",
    insert_headers: "object",
    timeout_client_data: "integer",
    timeout_member_connect: "integer",
    timeout_member_data: "integer",
    timeout_tcp_inspect: "integer",
    provisioning_status: "string",
    operating_status: "string",
    tags: "array",
  },
  enums: {
    protocol: ["HTTP", "HTTPS", "SCTP", "TCP", "TERMINATED_HTTPS", "UDP", "PROMETHEUS"],
    provisioning_status: provisioningStatuses,
  },
};

/** "Show Pool details". */
export const octaviaPool: Facts = {
  required: {
    id: "string",
    name: "string",
    description: "string",
    admin_state_up: "boolean",
    protocol: "string",
    lb_algorithm: "string",
    session_persistence: "object|null",
    listeners: "array",
    loadbalancers: "array",
    members: "array",
    healthmonitor_id: "string|null",
    provisioning_status: "string",
    operating_status: "string",
    tags: "array",
  },
  enums: {
    protocol: ["HTTP", "HTTPS", "PROXY", "PROXYV2", "SCTP", "TCP", "UDP"],
    lb_algorithm: ["LEAST_CONNECTIONS", "ROUND_ROBIN", "SOURCE_IP", "SOURCE_IP_PORT"],
    provisioning_status: provisioningStatuses,
  },
};

/** "List Members". */
export const octaviaMember: Facts = {
  required: {
    id: "string",
    name: "string",
    address: "string",
    protocol_port: "integer",
    subnet_id: "string",
    weight: "integer",
    backup: "boolean",
    admin_state_up: "boolean",
    provisioning_status: "string",
    operating_status: "string",
    tags: "array",
  },
  enums: { provisioning_status: provisioningStatuses, operating_status: operatingStatuses },
};

/** "Show Health Monitor details". */
export const octaviaMonitor: Facts = {
  required: {
    id: "string",
    name: "string",
    type: "string",
    delay: "integer",
    timeout: "integer",
    max_retries: "integer",
    max_retries_down: "integer",
    pools: "array",
    admin_state_up: "boolean",
    provisioning_status: "string",
    operating_status: "string",
    tags: "array",
  },
  enums: { type: ["HTTP", "HTTPS", "PING", "SCTP", "TCP", "TLS-HELLO", "UDP-CONNECT"] },
};

/** Octavia's error body (WSME): `{"faultcode": "Client", "faultstring": …, "debuginfo": null}`. */
export const octaviaFault: Facts = {
  required: { faultcode: "string", faultstring: "string", debuginfo: "string|null" },
  enums: { faultcode: ["Client", "Server"] },
};

/** Networking API v2.0 "Floating IPs": "Show floating IP details". */
export const floatingIP: Facts = {
  required: {
    id: "string",
    floating_ip_address: "string",
    floating_network_id: "string",
    port_id: "string|null",
    fixed_ip_address: "string|null",
    router_id: "string|null",
    status: "string",
    description: "string",
    tenant_id: "string",
    project_id: "string",
    tags: "array",
    created_at: "string",
    updated_at: "string",
    revision_number: "integer",
  },
  enums: { status: ["ACTIVE", "DOWN", "ERROR"] },
};

/** Networking API v2.0 "Subnets": "List subnets". */
export const subnet: Facts = {
  required: {
    id: "string",
    name: "string",
    network_id: "string",
    ip_version: "integer",
    cidr: "string",
    gateway_ip: "string|null",
    enable_dhcp: "boolean",
    allocation_pools: "array",
    tenant_id: "string",
    project_id: "string",
    description: "string",
    tags: "array",
  },
};
