/**
 * The Scaleway resources the provider reads: Instance servers, Elastic Metal servers, the IPAM addresses of
 * Instances' private NICs, and the project (the one cheap read that proves the keys). Wire names as the official
 * SDK's generated types give them (scaleway-sdk-js `packages_generated/{instance,baremetal,ipam}/src/v1`); schemas
 * ask only for what the provider uses, so unknown fields are ignored and optional ones may be missing or null.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";

const text = v.optional(v.nullable(v.string()), "");
const list = <S extends v.GenericSchema>(item: S) => v.optional(v.nullable(v.array(item)), []);

export const instanceServerSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    hostname: text,
    zone: v.string(),
    project: text,
    commercial_type: text,
    state: v.string(),
    public_ips: list(v.object({ address: v.string(), family: text, provisioning_mode: text })),
    private_ip: v.optional(v.nullable(v.string())),
    private_nics: list(v.object({ id: v.string(), private_network_id: text })),
  }),
  v.transform(
    (s): InstanceServer => ({
      id: s.id,
      name: s.name,
      hostname: s.hostname ?? "",
      zone: s.zone,
      project: s.project ?? "",
      commercialType: s.commercial_type ?? "",
      state: s.state,
      publicIps: (s.public_ips ?? []).map((ip) => ({
        address: ip.address,
        family: ip.family ?? "",
        provisioningMode: ip.provisioning_mode ?? "",
      })),
      privateIp: s.private_ip ?? "",
      privateNics: (s.private_nics ?? []).map((nic) => ({
        id: nic.id,
        privateNetworkId: nic.private_network_id ?? "",
      })),
    }),
  ),
);

/** An Instance as the provider uses it; what it lacks is `""`. */
export interface InstanceServer {
  readonly id: string;
  readonly name: string;
  readonly hostname: string;
  readonly zone: string;
  readonly project: string;
  readonly commercialType: string;
  /** `running`, `stopped`, `stopped in place`, `starting`, `stopping`, `locked`. */
  readonly state: string;
  readonly publicIps: readonly { address: string; family: string; provisioningMode: string }[];
  /** The legacy `private_ip`. */
  readonly privateIp: string;
  readonly privateNics: readonly { id: string; privateNetworkId: string }[];
}

export const baremetalServerSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    zone: v.string(),
    status: v.string(),
    offer_name: text,
    domain: text,
    ips: list(v.object({ address: v.string(), version: text })),
  }),
  v.transform(
    (s): BaremetalServer => ({
      id: s.id,
      name: s.name,
      zone: s.zone,
      status: s.status,
      offerName: s.offer_name ?? "",
      domain: s.domain ?? "",
      ips: (s.ips ?? []).map((ip) => ({ address: ip.address, version: ip.version ?? "" })),
    }),
  ),
);

/** An Elastic Metal server as the provider uses it. */
export interface BaremetalServer {
  readonly id: string;
  readonly name: string;
  readonly zone: string;
  /** `ready`, `stopped`, `starting`, `delivering`, … */
  readonly status: string;
  readonly offerName: string;
  readonly domain: string;
  readonly ips: readonly { address: string; version: string }[];
}

/** IPAM's `address` carries its prefix length (`172.16.0.2/22`); the Node wants the address alone. */
const ipamAddress = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F.:]+(\/\d{1,3})?$/, "must be an IP address"),
  v.transform((address) => address.replace(/\/\d+$/, "")),
);
const ipamIpSchema = v.pipe(
  v.object({ address: ipamAddress }),
  v.transform((ip) => ip.address),
);
const nicIpSchema = v.pipe(
  v.object({ address: ipamAddress, resource: v.optional(v.nullable(v.object({ id: v.string() }))) }),
  v.transform((ip) => ({ nicId: ip.resource?.id ?? "", address: ip.address })),
);

/** The IPv4 query for Instances' private NICs, as scw CCM asks IPAM (`getIPsForPrivateNIC`). */
const nicQuery = (project: string) => ({
  project_id: project === "" ? undefined : project,
  resource_type: "instance_private_nic",
  is_ipv6: "false",
});

export interface ServersApi {
  /** Instances in `zone` whose name contains `name` (the API matches part of it), every page. */
  listInstanceServers(ctx: CallContext, zone: string, filter?: { readonly name?: string }): Promise<InstanceServer[]>;
  /** How many Instances `zone` has: one call of one item, the cheap read that proves the keys without a project. */
  countInstanceServers(ctx: CallContext, zone: string): Promise<number>;
  /** One Instance, or `undefined` when the API answers 404: only then is it gone. */
  getInstanceServer(ctx: CallContext, zone: string, id: string): Promise<InstanceServer | undefined>;
  listBaremetalServers(ctx: CallContext, zone: string, filter?: { readonly name?: string }): Promise<BaremetalServer[]>;
  getBaremetalServer(ctx: CallContext, zone: string, id: string): Promise<BaremetalServer | undefined>;
  /** The IPv4 addresses IPAM books to an Instance's private NIC. */
  listNicIPv4s(ctx: CallContext, region: string, project: string, nicId: string): Promise<string[]>;
  /** Every IPv4 IPAM books to an Instance's private NIC in the region and project, by NIC. */
  listNicIPv4sOfRegion(
    ctx: CallContext,
    region: string,
    project: string,
  ): Promise<{ readonly nicId: string; readonly address: string }[]>;
  /** `GET /account/v3/projects/{id}`: proves the endpoint, the keys and the project. */
  getProject(ctx: CallContext, id: string): Promise<{ readonly id: string; readonly name: string }>;
}

export class HttpServersApi implements ServersApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  listInstanceServers(ctx: CallContext, zone: string, filter: { readonly name?: string } = {}) {
    return listAll(this.#client, ctx, {
      operation: "listInstanceServers",
      path: `/instance/v1/zones/${zone}/servers`,
      key: "servers",
      item: instanceServerSchema,
      sizeParam: "per_page",
      query: { name: filter.name },
    });
  }

  async countInstanceServers(ctx: CallContext, zone: string) {
    const answer = await this.#client.request(ctx, {
      operation: "listInstanceServers",
      method: "GET",
      path: `/instance/v1/zones/${zone}/servers`,
      query: { page: 1, per_page: 1 },
      answer: v.object({ total_count: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
    });
    return answer.total_count;
  }

  async getInstanceServer(ctx: CallContext, zone: string, id: string) {
    const answer = await this.#client.request(ctx, {
      operation: "getInstanceServer",
      method: "GET",
      path: `/instance/v1/zones/${zone}/servers/${id}`,
      answer: v.object({ server: instanceServerSchema }),
      notFound: true,
    });
    return answer?.server;
  }

  listBaremetalServers(ctx: CallContext, zone: string, filter: { readonly name?: string } = {}) {
    return listAll(this.#client, ctx, {
      operation: "listBaremetalServers",
      path: `/baremetal/v1/zones/${zone}/servers`,
      key: "servers",
      item: baremetalServerSchema,
      sizeParam: "page_size",
      query: { name: filter.name },
    });
  }

  getBaremetalServer(ctx: CallContext, zone: string, id: string) {
    return this.#client.request(ctx, {
      operation: "getBaremetalServer",
      method: "GET",
      path: `/baremetal/v1/zones/${zone}/servers/${id}`,
      answer: baremetalServerSchema,
      notFound: true,
    });
  }

  listNicIPv4s(ctx: CallContext, region: string, project: string, nicId: string) {
    return listAll(this.#client, ctx, {
      operation: "listIPs",
      path: `/ipam/v1/regions/${region}/ips`,
      key: "ips",
      item: ipamIpSchema,
      sizeParam: "page_size",
      query: { ...nicQuery(project), resource_id: nicId },
    });
  }

  listNicIPv4sOfRegion(ctx: CallContext, region: string, project: string) {
    return listAll(this.#client, ctx, {
      operation: "listIPs",
      path: `/ipam/v1/regions/${region}/ips`,
      key: "ips",
      item: nicIpSchema,
      sizeParam: "page_size",
      query: nicQuery(project),
    });
  }

  getProject(ctx: CallContext, id: string) {
    return this.#client.request(ctx, {
      operation: "getProject",
      method: "GET",
      path: `/account/v3/projects/${id}`,
      answer: v.object({ id: v.string(), name: v.optional(v.string(), "") }),
    });
  }
}
