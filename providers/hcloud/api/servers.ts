/**
 * The Cloud servers the provider reads: a listing in pages of 50 with `name` and `label_selector` filters, and one
 * server by ID. The schema is written from the public API documentation and asks only for what the provider uses:
 * unknown fields are ignored, and `datacenter` (deprecated, dropped by the API in 2026) may be missing — the
 * location is read from `location`, else from `datacenter.location` for an API that still sends only that.
 *
 * One odd entry never costs the listing: a `private_net` entry the provider cannot read (the API document does not
 * require its `ip`) is left out of that server, with a warning naming the server and the entry, instead of failing
 * the page and with it every Node's lookup.
 */

import type { ConsolaInstance } from "consola";
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { type HcloudTransport, listAll } from "./client.ts";

const named = v.object({ name: v.string() });
const locationSchema = v.object({ name: v.string(), network_zone: v.optional(v.string()) });
const privateNetSchema = v.object({ network: v.number(), ip: v.string() });

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
    // Read entry by entry in `cloudServer`: one that does not parse is left out, not the whole answer.
    private_net: v.optional(v.nullable(v.array(v.unknown())), []),
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

/** A server as read, with what of it could not be read and was left out (`private_net[1]: ip: …`). */
type ReadServer = CloudServer & { readonly unreadable?: readonly string[] };

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
  private_net: unknown[] | null;
  labels: Record<string, string> | null;
}): ReadServer {
  const location = s.location ?? s.datacenter?.location;
  const privateNets: { network: number; ip: string }[] = [];
  const unreadable: string[] = [];
  for (const [i, entry] of (s.private_net ?? []).entries()) {
    const read = v.safeParse(privateNetSchema, entry);
    if (read.success) privateNets.push(read.output);
    else {
      const why = read.issues.map((issue) => `${v.getDotPath(issue) ?? ""}: ${issue.message}`.replace(/^: /, ""));
      unreadable.push(`private_net[${i}]: ${why.join("; ")}`);
    }
  }
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
    privateNets,
    labels: s.labels ?? {},
    ...(unreadable.length > 0 && { unreadable }),
  };
}

/** The servers without their `unreadable` notes, each note a warning on `logger`. */
function reported(op: string, servers: readonly ReadServer[], logger: ConsolaInstance | undefined): CloudServer[] {
  return servers.map(({ unreadable, ...server }) => {
    for (const note of unreadable ?? []) {
      logger?.warn(`hcloud/api.${op}: server ${server.id} (${server.name}): left out ${note}`);
    }
    return server;
  });
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

  async listServers(ctx: CallContext, filter: ServerFilter = {}): Promise<CloudServer[]> {
    const servers = await listAll(this.#t, ctx, {
      operation: "listServers",
      path: "/servers",
      key: "servers",
      item: serverSchema,
      query: { name: filter.name, label_selector: filter.labelSelector },
    });
    return reported("listServers", servers, this.#t.logger);
  }

  async getServer(ctx: CallContext, id: number): Promise<CloudServer | undefined> {
    const answer = await this.#t.client.request(ctx, {
      operation: "getServer",
      method: "GET",
      path: `/servers/${id}`,
      answer: v.object({ server: serverSchema }),
      notFound: true,
    });
    return answer && reported("getServer", [answer.server], this.#t.logger)[0];
  }
}
