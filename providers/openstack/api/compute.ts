/**
 * What the provider reads from Nova (Compute API v2.1) and Neutron (Networking API v2.0): servers, a flavor's name,
 * and the ports of servers. Schemas ask only for what the provider uses; unknown fields are ignored.
 *
 * Nova is asked at microversion 2.47, where a server's `flavor` carries the flavor's `original_name`, so the
 * instance type costs no call per server (OCCM, at 2.1, reads `GET /flavors/{id}` for each). A Nova older than
 * 2.47 (before OpenStack Pike) answers 406: the call is made again without a microversion, as OCCM makes them all,
 * and so are the later ones.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudRequest } from "../../kit/http/client.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { OpenStackService } from "./client.ts";

/** `OpenStack-API-Version` for every Nova call. */
export const NOVA_MICROVERSION = "compute 2.47";

/** Servers per page: Nova's default `max_limit` is 1000. */
export const SERVER_PAGE = 1000;

const address = v.object({
  addr: v.string(),
  version: v.optional(v.number()),
  "OS-EXT-IPS:type": v.optional(v.string()),
});

export const serverSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    status: v.string(),
    addresses: v.optional(v.nullable(v.record(v.string(), v.array(address))), {}),
    accessIPv4: v.optional(v.nullable(v.string()), ""),
    accessIPv6: v.optional(v.nullable(v.string()), ""),
    metadata: v.optional(v.nullable(v.record(v.string(), v.string())), {}),
    flavor: v.optional(v.object({ id: v.optional(v.string()), original_name: v.optional(v.string()) }), {}),
    "OS-EXT-AZ:availability_zone": v.optional(v.nullable(v.string()), ""),
  }),
  v.transform(
    (s): Server => ({
      id: s.id,
      name: s.name,
      status: s.status,
      addresses: Object.fromEntries(
        Object.entries(s.addresses ?? {}).map(([net, list]) => [
          net,
          list.map((a) => ({ addr: a.addr, type: a["OS-EXT-IPS:type"] ?? "" })),
        ]),
      ),
      accessIPv4: s.accessIPv4 ?? "",
      accessIPv6: s.accessIPv6 ?? "",
      hostname: s.metadata?.hostname ?? "",
      flavorName: s.flavor.original_name,
      flavorID: s.flavor.id,
      availabilityZone: s["OS-EXT-AZ:availability_zone"] ?? "",
    }),
  ),
);

/** A server as the provider uses it; what it lacks is `""`. */
export interface Server {
  readonly id: string;
  readonly name: string;
  /** `ACTIVE`, `SHUTOFF`, `ERROR`, `BUILD`, … */
  readonly status: string;
  /** Network name → its addresses, `type` `fixed` or `floating` (`OS-EXT-IPS:type`). */
  readonly addresses: Readonly<Record<string, readonly { readonly addr: string; readonly type: string }[]>>;
  readonly accessIPv4: string;
  readonly accessIPv6: string;
  /** The server's `metadata.hostname`. */
  readonly hostname: string;
  /** Microversion 2.47 and later: the flavor's name at boot. */
  readonly flavorName: string | undefined;
  /** Before 2.47: the flavor's ID. */
  readonly flavorID: string | undefined;
  readonly availabilityZone: string;
}

const portSchema = v.pipe(
  v.object({
    id: v.string(),
    status: v.string(),
    device_id: v.optional(v.string(), ""),
    network_id: v.optional(v.string(), ""),
    fixed_ips: v.optional(v.array(v.object({ ip_address: v.string() })), []),
    trunk_details: v.optional(
      v.nullable(v.object({ sub_ports: v.optional(v.array(v.object({ port_id: v.string() })), []) })),
    ),
  }),
  v.transform(
    (p): Port => ({
      id: p.id,
      status: p.status,
      deviceID: p.device_id,
      networkID: p.network_id,
      fixedIPs: p.fixed_ips.map((f) => f.ip_address),
      subPortIDs: (p.trunk_details?.sub_ports ?? []).map((sp) => sp.port_id),
    }),
  ),
);

export interface Port {
  readonly id: string;
  /** `ACTIVE`, `DOWN`, `BUILD`. */
  readonly status: string;
  readonly deviceID: string;
  readonly networkID: string;
  readonly fixedIPs: readonly string[];
  /** A trunk's parent port: its sub-ports (`trunk_details.sub_ports`). */
  readonly subPortIDs: readonly string[];
}

const links = v.optional(v.array(v.object({ rel: v.string(), href: v.string() })), []);

export interface ComputeApi {
  /** One server, or `undefined` when Nova answers 404: only then is it gone. */
  getServer(ctx: CallContext, id: string): Promise<Server | undefined>;
  /** The servers named exactly `name` (Nova's `name` filter is a regular expression: anchored and escaped). */
  serversNamed(ctx: CallContext, name: string): Promise<Server[]>;
  /** Every server of the project, in pages of 1000 (`limit`, `marker`, `servers_links`). */
  listServers(ctx: CallContext): Promise<Server[]>;
  /** A flavor's ID and name, or `undefined` when there is none of that ID. */
  getFlavor(ctx: CallContext, id: string): Promise<{ id: string; name: string } | undefined>;
  /** Every flavor (for the ID of a flavor known only by a name no label may carry). */
  listFlavors(ctx: CallContext): Promise<{ id: string; name: string }[]>;
  /** The ports of one server (`device_id`), or of every server when `deviceID` is undefined. */
  listPorts(ctx: CallContext, deviceID?: string): Promise<Port[]>;
  /** One port (a trunk's sub-port), or `undefined` when Neutron has none of that ID. */
  getPort(ctx: CallContext, id: string): Promise<Port | undefined>;
  /** A network's name, or `undefined` when Neutron has none of that ID. */
  networkName(ctx: CallContext, id: string): Promise<string | undefined>;
}

export class HttpComputeApi implements ComputeApi {
  readonly #nova: OpenStackService;
  readonly #neutron: OpenStackService;
  #microversion = true;

  constructor(nova: OpenStackService, neutron: OpenStackService) {
    this.#nova = nova;
    this.#neutron = neutron;
    nova.setHeaders({ "openstack-api-version": NOVA_MICROVERSION });
  }

  /** A Nova call; a 406 for the microversion drops it for this call and every later one. */
  async #compute<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S> & { notFound?: boolean }) {
    try {
      return await this.#nova.request(ctx, req);
    } catch (err) {
      if (!(err instanceof CloudApiError) || err.status !== 406 || !this.#microversion) throw err;
      this.#microversion = false;
      this.#nova.setHeaders({});
      return await this.#nova.request(ctx, req);
    }
  }

  async getServer(ctx: CallContext, id: string): Promise<Server | undefined> {
    const answer = await this.#compute(ctx, {
      operation: "getServer",
      method: "GET",
      path: `/servers/${encodeURIComponent(id)}`,
      answer: v.object({ server: serverSchema }),
      notFound: true,
    });
    return answer?.server;
  }

  serversNamed(ctx: CallContext, name: string): Promise<Server[]> {
    return this.#servers(ctx, "listServersByName", { name: `^${escapeRegExp(name)}$` });
  }

  listServers(ctx: CallContext): Promise<Server[]> {
    return this.#servers(ctx, "listServers", {});
  }

  async #servers(ctx: CallContext, operation: string, query: Record<string, string>): Promise<Server[]> {
    const out: Server[] = [];
    let marker: string | undefined;
    for (;;) {
      const answer = await this.#compute(ctx, {
        operation,
        method: "GET",
        path: "/servers/detail",
        query: { ...query, limit: SERVER_PAGE, marker },
        answer: v.object({ servers: v.array(serverSchema), servers_links: links }),
      });
      out.push(...answer.servers);
      const next = markerOf(answer.servers_links);
      if (next === undefined || answer.servers.length === 0) return out;
      if (next === marker) throw new Error(`openstack/nova.${operation}: the next page's marker repeats ${marker}`);
      marker = next;
    }
  }

  async getFlavor(ctx: CallContext, id: string): Promise<{ id: string; name: string } | undefined> {
    const answer = await this.#compute(ctx, {
      operation: "getFlavor",
      method: "GET",
      path: `/flavors/${encodeURIComponent(id)}`,
      answer: v.object({ flavor: v.object({ id: v.string(), name: v.string() }) }),
      notFound: true,
    });
    return answer?.flavor;
  }

  async listFlavors(ctx: CallContext): Promise<{ id: string; name: string }[]> {
    const answer = await this.#compute(ctx, {
      operation: "listFlavors",
      method: "GET",
      path: "/flavors",
      answer: v.object({ flavors: v.array(v.object({ id: v.string(), name: v.string() })) }),
    });
    return answer.flavors;
  }

  async listPorts(ctx: CallContext, deviceID?: string): Promise<Port[]> {
    const out: Port[] = [];
    let marker: string | undefined;
    for (;;) {
      const answer = await this.#neutron.request(ctx, {
        operation: deviceID === undefined ? "listPorts" : "listServerPorts",
        method: "GET",
        path: "/ports",
        query: { device_id: deviceID, marker },
        answer: v.object({ ports: v.array(portSchema), ports_links: links }),
      });
      out.push(...answer.ports);
      const next = markerOf(answer.ports_links);
      if (next === undefined || answer.ports.length === 0 || next === marker) return out;
      marker = next;
    }
  }

  async getPort(ctx: CallContext, id: string): Promise<Port | undefined> {
    const answer = await this.#neutron.request(ctx, {
      operation: "getPort",
      method: "GET",
      path: `/ports/${encodeURIComponent(id)}`,
      answer: v.object({ port: portSchema }),
      notFound: true,
    });
    return answer?.port;
  }

  async networkName(ctx: CallContext, id: string): Promise<string | undefined> {
    const answer = await this.#neutron.request(ctx, {
      operation: "getNetwork",
      method: "GET",
      path: `/networks/${encodeURIComponent(id)}`,
      answer: v.object({ network: v.object({ name: v.string() }) }),
      notFound: true,
    });
    return answer?.network.name;
  }
}

function markerOf(list: readonly { rel: string; href: string }[]): string | undefined {
  const next = list.find((l) => l.rel === "next")?.href;
  if (!next || !URL.canParse(next)) return undefined;
  return new URL(next).searchParams.get("marker") ?? undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
