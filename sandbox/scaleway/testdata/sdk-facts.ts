/**
 * Facts from Scaleway's published API description as its official SDK restates it: the generated TypeScript
 * packages `@scaleway/sdk-instance`, `-baremetal`, `-ipam` and `@scaleway/sdk-client` (scaleway-sdk-js
 * `packages_generated/<product>/src/v1/{types,marshalling,api}.gen.ts`, `packages/client/src/scw/errors`), restated
 * by hand: for each answer type the wire fields its unmarshaler reads, which its type marks required (no `?`) and
 * with what JSON type, the enums, the list endpoints' paths and page parameters, and which fields each error type
 * needs to be read as that type. No file of the SDK is copied; the emulator's tests check its answers against these
 * facts.
 */

export type FieldType =
  | "string"
  | "integer"
  | "boolean"
  | "array"
  | "object"
  | "string|null"
  | "boolean|null"
  | "integer|null"
  | "object|null";

export interface TypeFacts {
  /** Fields without `?` in the generated type, by wire name, with their JSON type. */
  readonly required: Readonly<Record<string, FieldType>>;
  /** Fields with `?`: absent, null or of this type. */
  readonly optional: Readonly<Record<string, FieldType>>;
  readonly enums: Readonly<Record<string, readonly string[]>>;
}

/** Instance `Server` (`unmarshalServer`). */
export const instanceServer: TypeFacts = {
  required: {
    id: "string",
    name: "string",
    organization: "string",
    project: "string",
    allowed_actions: "array",
    tags: "array",
    commercial_type: "string",
    dynamic_ip_required: "boolean",
    hostname: "string",
    protected: "boolean",
    public_ips: "array",
    mac_address: "string",
    state: "string",
    boot_type: "string",
    volumes: "object",
    maintenances: "array",
    state_detail: "string",
    arch: "string",
    private_nics: "array",
    zone: "string",
    filesystems: "array",
    end_of_service: "boolean",
  },
  optional: {
    creation_date: "string|null",
    modification_date: "string|null",
    routed_ip_enabled: "boolean|null",
    enable_ipv6: "boolean|null",
    image: "object|null",
    private_ip: "string|null",
    public_ip: "object|null",
    location: "object|null",
    ipv6: "object|null",
    security_group: "object|null",
    placement_group: "object|null",
  },
  enums: {
    state: ["running", "stopped", "stopped in place", "starting", "stopping", "locked"],
    boot_type: ["local", "bootscript", "rescue"],
    arch: ["unknown_arch", "x86_64", "arm", "arm64"],
    allowed_actions: ["poweron", "backup", "stop_in_place", "poweroff", "terminate", "reboot", "enable_routed_ip"],
  },
};

/** Instance `ServerIp` (`unmarshalServerIp`), the items of `public_ips`. */
export const instanceServerIp: TypeFacts = {
  required: {
    id: "string",
    address: "string",
    gateway: "string",
    netmask: "string",
    family: "string",
    dynamic: "boolean",
    provisioning_mode: "string",
    tags: "array",
    ipam_id: "string",
    state: "string",
  },
  optional: {},
  enums: {
    family: ["inet", "inet6"],
    provisioning_mode: ["manual", "dhcp", "slaac"],
    state: ["unknown_state", "detached", "attached", "pending", "error"],
  },
};

/** Instance `PrivateNIC` (`unmarshalPrivateNIC`), the items of `private_nics`. */
export const instancePrivateNic: TypeFacts = {
  required: {
    id: "string",
    server_id: "string",
    private_network_id: "string",
    mac_address: "string",
    state: "string",
    tags: "array",
    zone: "string",
  },
  optional: { creation_date: "string|null" },
  enums: { state: ["available", "syncing", "syncing_error"] },
};

/** Elastic Metal `Server` (`unmarshalServer` of baremetal v1); `GET …/servers/{id}` answers it unwrapped. */
export const baremetalServer: TypeFacts = {
  required: {
    id: "string",
    organization_id: "string",
    project_id: "string",
    name: "string",
    description: "string",
    status: "string",
    offer_id: "string",
    offer_name: "string",
    tags: "array",
    ips: "array",
    domain: "string",
    boot_type: "string",
    zone: "string",
    ping_status: "string",
    options: "array",
    protected: "boolean",
  },
  optional: {
    updated_at: "string|null",
    created_at: "string|null",
    install: "object|null",
    rescue_server: "object|null",
    user_data: "string|null",
  },
  enums: {
    status: [
      "unknown",
      "delivering",
      "ready",
      "stopping",
      "stopped",
      "starting",
      "error",
      "deleting",
      "locked",
      "out_of_stock",
      "ordered",
      "resetting",
      "migrating",
    ],
    boot_type: ["unknown_boot_type", "normal", "rescue"],
    ping_status: ["ping_status_unknown", "ping_status_up", "ping_status_down"],
  },
};

/** Elastic Metal `IP` (`unmarshalIP`), the items of `ips`. */
export const baremetalIp: TypeFacts = {
  required: {
    id: "string",
    address: "string",
    reverse: "string",
    version: "string",
    reverse_status: "string",
    reverse_status_message: "string",
  },
  optional: {},
  enums: { version: ["IPv4", "IPv6"], reverse_status: ["unknown", "pending", "active", "error"] },
};

/**
 * IPAM `IP` (`unmarshalIP` of ipam v1). Its `address` is an address with its prefix length: the Go SDK reads it as
 * `scw.IPNet` (scaleway-sdk-go `api/ipam/v1/ipam_sdk.go`).
 */
export const ipamIp: TypeFacts = {
  required: {
    id: "string",
    address: "string",
    project_id: "string",
    is_ipv6: "boolean",
    tags: "array",
    reverses: "array",
    region: "string",
  },
  optional: {
    created_at: "string|null",
    updated_at: "string|null",
    source: "object|null",
    resource: "object|null",
    zone: "string|null",
  },
  enums: {},
};

/** IPAM `Resource` (`unmarshalResource`); `type` is `ResourceType`, of which a CCM meets these. */
export const ipamResource: TypeFacts = {
  required: { type: "string", id: "string" },
  optional: { mac_address: "string|null", name: "string|null" },
  enums: { type: ["instance_server", "instance_private_nic", "baremetal_server", "baremetal_private_nic", "custom"] },
};

/** The list endpoints a CCM calls (`pageOf…` in `api.gen.ts`): path, page-size parameter, answer key. */
export const listEndpoints = [
  { path: "/instance/v1/zones/fr-par-1/servers", sizeParam: "per_page", key: "servers" },
  { path: "/baremetal/v1/zones/fr-par-2/servers", sizeParam: "page_size", key: "servers" },
  { path: "/ipam/v1/regions/fr-par/ips", sizeParam: "page_size", key: "ips" },
] as const;

/** The zones and regions each product's `LOCALITY` lists. */
export const localities = {
  instance: [
    "fr-par-1",
    "fr-par-2",
    "fr-par-3",
    "nl-ams-1",
    "nl-ams-2",
    "nl-ams-3",
    "pl-waw-1",
    "pl-waw-2",
    "pl-waw-3",
  ],
  baremetal: ["fr-par-1", "fr-par-2", "nl-ams-1", "nl-ams-2", "pl-waw-2", "pl-waw-3"],
  ipam: ["fr-par", "nl-ams", "pl-waw"],
} as const;

/**
 * The fields `parseScalewayError` needs to read a body as its error class (`scw/errors/standard/*.ts`
 * `fromJSON`): without them the SDK falls back to a bare `ScalewayError`.
 */
export const errorFields: Readonly<Record<string, readonly string[]>> = {
  not_found: ["resource", "resource_id"],
  invalid_arguments: ["details"],
  denied_authentication: ["method", "reason"],
  too_many_requests: ["help_message"],
  transient_state: ["resource", "resource_id", "current_state"],
};

/** The items of `invalid_arguments`' `details`: `argument_name` and `reason` strings, `help_message` optional. */
export const invalidArgumentDetail: TypeFacts = {
  required: { argument_name: "string", reason: "string" },
  optional: { help_message: "string|null" },
  enums: {},
};
