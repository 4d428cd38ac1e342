/**
 * The Load Balancer API v1 calls the provider makes (`/lb/v1/zones/{zone}/…`, as `@scaleway/sdk-lb`'s `ZonedAPI`
 * makes them), over the kit's client: every answer is checked by lb-schemas.ts. Creates are POSTs, which the
 * client never repeats after an ambiguous failure, so a lost answer leaves one load balancer, found by its name on
 * the next sync.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";
import {
  type AclSpec,
  aclBody,
  aclSchema,
  type BackendSpec,
  backendBody,
  backendSchema,
  type FrontendSpec,
  frontendBody,
  frontendSchema,
  type HealthCheckSpec,
  healthCheckBody,
  lbIpSchema,
  loadBalancerSchema,
  privateNetworkSchema,
} from "./lb-schemas.ts";

export interface CreateLoadBalancerBody {
  readonly name: string;
  readonly description: string;
  readonly type: string;
  readonly tags: readonly string[];
  readonly ip_ids?: readonly string[];
  readonly assign_flexible_ip: boolean;
  readonly assign_flexible_ipv6: boolean;
  readonly ssl_compatibility_level: string;
  readonly project_id?: string;
}

const z = (zone: string) => `/lb/v1/zones/${zone}`;
const empty = v.unknown();

export class ScwLoadBalancers {
  readonly #c: CloudApiClient;
  constructor(client: CloudApiClient) {
    this.#c = client;
  }

  /** Load balancers whose name contains `name` (the API matches part of it): compare names exactly after. */
  listLoadBalancers(ctx: CallContext, zone: string, name?: string) {
    return listAll(this.#c, ctx, {
      operation: "listLBs",
      path: `${z(zone)}/lbs`,
      key: "lbs",
      item: loadBalancerSchema,
      sizeParam: "page_size",
      query: { name },
    });
  }

  getLoadBalancer(ctx: CallContext, zone: string, id: string) {
    return this.#c.request(ctx, {
      operation: "getLB",
      method: "GET",
      path: `${z(zone)}/lbs/${id}`,
      answer: loadBalancerSchema,
      notFound: true,
    });
  }

  createLoadBalancer(ctx: CallContext, zone: string, body: CreateLoadBalancerBody) {
    return this.#c.request(ctx, {
      operation: "createLB",
      method: "POST",
      path: `${z(zone)}/lbs`,
      body,
      answer: loadBalancerSchema,
    });
  }

  updateLoadBalancer(
    ctx: CallContext,
    zone: string,
    id: string,
    body: { name: string; description: string; tags: readonly string[]; ssl_compatibility_level: string },
  ) {
    return this.#c.request(ctx, {
      operation: "updateLB",
      method: "PUT",
      path: `${z(zone)}/lbs/${id}`,
      body,
      answer: loadBalancerSchema,
    });
  }

  migrateLoadBalancer(ctx: CallContext, zone: string, id: string, type: string) {
    return this.#c.request(ctx, {
      operation: "migrateLB",
      method: "POST",
      path: `${z(zone)}/lbs/${id}/migrate`,
      body: { type },
      answer: loadBalancerSchema,
      // Asking twice for the same type is harmless.
      idempotent: true,
    });
  }

  async deleteLoadBalancer(ctx: CallContext, zone: string, id: string, releaseIp: boolean): Promise<void> {
    await this.#c.request(ctx, {
      operation: "deleteLB",
      method: "DELETE",
      path: `${z(zone)}/lbs/${id}`,
      query: { release_ip: releaseIp },
      answer: empty,
      notFound: true,
    });
  }

  /** The flexible IPs with this address (at most one). */
  listIpsByAddress(ctx: CallContext, zone: string, address: string) {
    return listAll(this.#c, ctx, {
      operation: "listIPs",
      path: `${z(zone)}/ips`,
      key: "ips",
      item: lbIpSchema,
      sizeParam: "page_size",
      query: { ip_address: address },
    });
  }

  listBackends(ctx: CallContext, zone: string, lbId: string) {
    return listAll(this.#c, ctx, {
      operation: "listBackends",
      path: `${z(zone)}/lbs/${lbId}/backends`,
      key: "backends",
      item: backendSchema,
      sizeParam: "page_size",
    });
  }

  createBackend(ctx: CallContext, zone: string, lbId: string, spec: BackendSpec, pool: readonly string[]) {
    return this.#c.request(ctx, {
      operation: "createBackend",
      method: "POST",
      path: `${z(zone)}/lbs/${lbId}/backends`,
      body: { ...backendBody(spec), health_check: healthCheckBody(spec.healthCheck), server_ip: pool },
      answer: backendSchema,
    });
  }

  updateBackend(ctx: CallContext, zone: string, id: string, spec: BackendSpec) {
    return this.#c.request(ctx, {
      operation: "updateBackend",
      method: "PUT",
      path: `${z(zone)}/backends/${id}`,
      body: backendBody(spec),
      answer: backendSchema,
    });
  }

  async updateHealthCheck(ctx: CallContext, zone: string, backendId: string, hc: HealthCheckSpec): Promise<void> {
    await this.#c.request(ctx, {
      operation: "updateHealthCheck",
      method: "PUT",
      path: `${z(zone)}/backends/${backendId}/healthcheck`,
      body: healthCheckBody(hc),
      answer: empty,
    });
  }

  setBackendServers(ctx: CallContext, zone: string, backendId: string, ips: readonly string[]) {
    return this.#c.request(ctx, {
      operation: "setBackendServers",
      method: "PUT",
      path: `${z(zone)}/backends/${backendId}/servers`,
      body: { server_ip: ips },
      answer: backendSchema,
    });
  }

  async deleteBackend(ctx: CallContext, zone: string, id: string): Promise<void> {
    await this.#c.request(ctx, {
      operation: "deleteBackend",
      method: "DELETE",
      path: `${z(zone)}/backends/${id}`,
      answer: empty,
      notFound: true,
    });
  }

  listFrontends(ctx: CallContext, zone: string, lbId: string) {
    return listAll(this.#c, ctx, {
      operation: "listFrontends",
      path: `${z(zone)}/lbs/${lbId}/frontends`,
      key: "frontends",
      item: frontendSchema,
      sizeParam: "page_size",
    });
  }

  createFrontend(ctx: CallContext, zone: string, lbId: string, backendId: string, spec: FrontendSpec) {
    return this.#c.request(ctx, {
      operation: "createFrontend",
      method: "POST",
      path: `${z(zone)}/lbs/${lbId}/frontends`,
      body: frontendBody(spec, backendId),
      answer: frontendSchema,
    });
  }

  updateFrontend(ctx: CallContext, zone: string, id: string, backendId: string, spec: FrontendSpec) {
    return this.#c.request(ctx, {
      operation: "updateFrontend",
      method: "PUT",
      path: `${z(zone)}/frontends/${id}`,
      body: frontendBody(spec, backendId),
      answer: frontendSchema,
    });
  }

  async deleteFrontend(ctx: CallContext, zone: string, id: string): Promise<void> {
    await this.#c.request(ctx, {
      operation: "deleteFrontend",
      method: "DELETE",
      path: `${z(zone)}/frontends/${id}`,
      answer: empty,
      notFound: true,
    });
  }

  /** The frontend's access-list rules whose name contains `name`. */
  listAcls(ctx: CallContext, zone: string, frontendId: string, name: string) {
    return listAll(this.#c, ctx, {
      operation: "listACLs",
      path: `${z(zone)}/frontends/${frontendId}/acls`,
      key: "acls",
      item: aclSchema,
      sizeParam: "page_size",
      query: { name },
    });
  }

  /** Replaces the frontend's access list as a whole (`SetACLs`), so repeating it is harmless. */
  async setAcls(ctx: CallContext, zone: string, frontendId: string, acls: readonly AclSpec[]): Promise<void> {
    await this.#c.request(ctx, {
      operation: "setACLs",
      method: "PUT",
      path: `${z(zone)}/frontends/${frontendId}/acls`,
      body: { acls: acls.map(aclBody) },
      answer: v.unknown(),
    });
  }

  listPrivateNetworks(ctx: CallContext, zone: string, lbId: string) {
    return listAll(this.#c, ctx, {
      operation: "listLBPrivateNetworks",
      path: `${z(zone)}/lbs/${lbId}/private-networks`,
      key: "private_network",
      item: privateNetworkSchema,
      sizeParam: "page_size",
    });
  }

  async attachPrivateNetwork(
    ctx: CallContext,
    zone: string,
    lbId: string,
    privateNetworkId: string,
    ipamIds: readonly string[] = [],
  ) {
    await this.#c.request(ctx, {
      operation: "attachPrivateNetwork",
      method: "POST",
      path: `${z(zone)}/lbs/${lbId}/attach-private-network`,
      body: {
        private_network_id: privateNetworkId,
        ipam_config: {},
        ...(ipamIds.length > 0 ? { ipam_ids: ipamIds } : {}),
      },
      answer: privateNetworkSchema,
    });
  }

  /** The load balancer's IPv4 addresses on private networks, as IPAM books them (resource `lb_server`). */
  listPrivateIPv4s(ctx: CallContext, region: string, lbId: string) {
    return listAll(this.#c, ctx, {
      operation: "listIPs",
      path: `/ipam/v1/regions/${region}/ips`,
      key: "ips",
      item: v.pipe(
        v.object({ address: v.string() }),
        v.transform((ip) => ip.address.replace(/\/\d+$/, "")),
      ),
      sizeParam: "page_size",
      query: { resource_type: "lb_server", resource_id: lbId, is_ipv6: "false" },
    });
  }

  async detachPrivateNetwork(ctx: CallContext, zone: string, lbId: string, privateNetworkId: string) {
    await this.#c.request(ctx, {
      operation: "detachPrivateNetwork",
      method: "POST",
      path: `${z(zone)}/lbs/${lbId}/detach-private-network`,
      body: { private_network_id: privateNetworkId },
      answer: empty,
    });
  }
}

/** The calls the load-balancer capability makes (`ScwLoadBalancers` has them; tests may fake them). */
export type LoadBalancersApi = Pick<ScwLoadBalancers, keyof ScwLoadBalancers>;
