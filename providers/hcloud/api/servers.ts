/**
 * The Cloud servers the provider reads: a listing in pages of 50 with `name` and `label_selector` filters, and one
 * server by ID. The schema is written from the public API documentation and asks only for what the provider uses:
 * unknown fields are ignored, and `datacenter` (deprecated, dropped by the API in 2026) may be missing — the
 * location is read from `location`, else from `datacenter.location` for an API that still sends only that.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { type HcloudTransport, listAll } from "./client.ts";

const named = v.object({ name: v.string() });
const locationSchema = v.object({ name: v.string(), network_zone: v.optional(v.string()) });

export const serverSchema = v.pipe(
  v.object({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    name: v.string(),
    status: v.string(),
    server_type: named,
    location: v.optional(v.nullable(locationSchema)),
    datacenter: v.optional(v.nullable(v.object({ name: v.string(), location: v.optional(locationSchema) }))),
    public_net: v.optional(
      v.object({
        ipv4: v.optional(v.nullable(v.object({ ip: v.string() }))),
        ipv6: v.optional(v.nullable(v.object({ ip: v.string() }))),
      }),
    ),
    private_net: v.optional(v.nullable(v.array(v.object({ network: v.number(), ip: v.string() }))), []),
    labels: v.optional(v.nullable(v.record(v.string(), v.string())), {}),
  }),
  v.transform(cloudServer),
);

/** A Cloud server as the provider uses it. */
export interface CloudServer {
  readonly id: number;
  readonly name: string;
  /** `running`, `off`, `initializing`, `starting`, `stopping`, … */
  readonly status: string;
  /** The server type's name: `cx22`. */
  readonly type: string;
  /** Location name (`fsn1`); empty when the API sent neither `location` nor `datacenter`. */
  readonly location: string;
  readonly networkZone: string;
  /** Public IPv4, when the server has one. */
  readonly ipv4?: string;
  /** Public IPv6 network, `2001:db8:1::/64`, when the server has one. */
  readonly ipv6Net?: string;
  readonly privateNets: readonly { readonly network: number; readonly ip: string }[];
  readonly labels: Readonly<Record<string, string>>;
}

function cloudServer(s: {
  id: number;
  name: string;
  status: string;
  server_type: { name: string };
  location?: { name: string; network_zone?: string | undefined } | null | undefined;
  datacenter?:
    | { name: string; location?: { name: string; network_zone?: string | undefined } | undefined }
    | null
    | undefined;
  public_net?: { ipv4?: { ip: string } | null | undefined; ipv6?: { ip: string } | null | undefined } | undefined;
  private_net: { network: number; ip: string }[] | null;
  labels: Record<string, string> | null;
}): CloudServer {
  const location = s.location ?? s.datacenter?.location;
  const ipv4 = s.public_net?.ipv4?.ip;
  const ipv6 = s.public_net?.ipv6?.ip;
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    type: s.server_type.name,
    location: location?.name ?? "",
    networkZone: location?.network_zone ?? "",
    ...(ipv4 && { ipv4 }),
    ...(ipv6 && { ipv6Net: ipv6 }),
    privateNets: s.private_net ?? [],
    labels: s.labels ?? {},
  };
}

export interface ServerFilter {
  /** Exact name. */
  readonly name?: string;
  /** Hetzner's label selector: `role=worker,!ignored`. */
  readonly labelSelector?: string;
}

export interface HcloudServersApi {
  /** Every server that matches, in pages of 50 (one call per page). */
  listServers(ctx: CallContext, filter?: ServerFilter): Promise<CloudServer[]>;
  /** One server, or `undefined` when the project has none with that ID. */
  getServer(ctx: CallContext, id: number): Promise<CloudServer | undefined>;
}

export class HcloudServers implements HcloudServersApi {
  readonly #t: HcloudTransport;

  constructor(transport: HcloudTransport) {
    this.#t = transport;
  }

  listServers(ctx: CallContext, filter: ServerFilter = {}): Promise<CloudServer[]> {
    return listAll(this.#t, ctx, {
      operation: "listServers",
      path: "/servers",
      key: "servers",
      item: serverSchema,
      query: { name: filter.name, label_selector: filter.labelSelector },
    });
  }

  async getServer(ctx: CallContext, id: number): Promise<CloudServer | undefined> {
    const answer = await this.#t.client.request(ctx, {
      operation: "getServer",
      method: "GET",
      path: `/servers/${id}`,
      answer: v.object({ server: serverSchema }),
      notFound: true,
    });
    return answer?.server;
  }
}
