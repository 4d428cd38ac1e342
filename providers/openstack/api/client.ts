/**
 * The transport of the provider's OpenStack calls: the cloud-API kit's client under each service's catalog URL,
 * with the Keystone token as `X-Auth-Token`, and the error envelopes of each service read for the message:
 *
 * - Keystone: `{"error": {"code": 401, "title": "Unauthorized", "message": …}}`;
 * - Nova: `{"itemNotFound": {"code": 404, "message": …}}`, the fault's name as the key;
 * - Neutron: `{"NeutronError": {"type": "PortNotFound", "message": …, "detail": ""}}`;
 * - Octavia: `{"faultcode": "Client", "faultstring": …, "debuginfo": null}`.
 *
 * A 401 from a service means the token was revoked or expired early: it is dropped and the call made once more with
 * a new one, as gophercloud's reauthentication does.
 */
import type * as v from "valibot";
import type { CallContext, RateLimit } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning, type CloudRequest, tuningOf } from "../../kit/http/client.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { endpointURL, type KeystoneSession } from "./keystone.ts";

/** OpenStack has no API-wide rate limit; this keeps a busy manager from flooding a small control plane. */
export const openStackRateLimit: RateLimit = { qps: 10, burst: 20 };

/** The error code and message of any OpenStack service's envelope. */
export function openStackErrorOf(body: unknown): { code: string; message: string } | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const wsme = body as Record<string, unknown>;
  if (typeof wsme.faultstring === "string") {
    return { code: typeof wsme.faultcode === "string" ? wsme.faultcode : "fault", message: wsme.faultstring };
  }
  const entries = Object.entries(body as Record<string, unknown>);
  if (entries.length !== 1) return undefined;
  const [key, inner] = entries[0] as [string, unknown];
  if (inner === null || typeof inner !== "object") return undefined;
  const f = inner as Record<string, unknown>;
  const message = typeof f.message === "string" ? f.message : "";
  if (key === "error") return { code: typeof f.title === "string" ? f.title : String(f.code ?? "error"), message };
  if (key === "NeutronError") return { code: typeof f.type === "string" ? f.type : key, message };
  return { code: key, message };
}

export interface TransportOptions extends CloudApiClientTuning {
  readonly timeoutMs: number;
}

/** The client Keystone's token requests go through (no token of its own). */
export function createKeystoneClient(authUrl: string, o: TransportOptions): CloudApiClient {
  return new CloudApiClient({ ...clientOptions(o), name: "openstack/keystone", baseUrl: authUrl });
}

function clientOptions(o: TransportOptions) {
  return {
    provider: "openstack",
    timeoutMs: o.timeoutMs,
    rateLimit: o.rateLimit,
    errorOf: openStackErrorOf,
    userAgent: "ccm-ts openstack",
    ...tuningOf(o),
  };
}

export interface ServiceOptions extends TransportOptions {
  readonly session: KeystoneSession;
  /** The catalog's type: `compute`, `network`. */
  readonly type: string;
  /** `nova`, `neutron`: the client's name in messages (`openstack/nova.getServer`). */
  readonly name: string;
  readonly interface: "public" | "internal" | "admin";
  readonly region: string | undefined;
  /** Appended to the catalog's URL: Neutron's catalog URL has no version, its API is under `/v2.0`. */
  readonly suffix?: string;
  /** Sent with every call: Nova's `OpenStack-API-Version`; `setHeaders` replaces them. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One OpenStack service, found in the token's catalog on the first call. */
export class OpenStackService {
  readonly #o: ServiceOptions;
  #client: { readonly base: string; readonly client: CloudApiClient } | undefined;
  #headers: Readonly<Record<string, string>>;

  constructor(o: ServiceOptions) {
    this.#o = o;
    this.#headers = o.headers ?? {};
  }

  /** The headers sent with every later call (a microversion the service refused, dropped). */
  setHeaders(headers: Readonly<Record<string, string>>): void {
    this.#headers = headers;
  }

  /** The service's URL as the catalog has it (and the suffix); asks Keystone for a token when there is none. */
  async baseUrl(ctx: CallContext): Promise<string> {
    return (await this.#clientFor(ctx)).base;
  }

  request<S extends v.GenericSchema>(
    ctx: CallContext,
    req: CloudRequest<S> & { readonly notFound: true },
  ): Promise<v.InferOutput<S> | undefined>;
  request<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>): Promise<v.InferOutput<S>>;
  async request<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>) {
    const { client } = await this.#clientFor(ctx);
    const sent = this.#o.session.current;
    try {
      return await client.request(ctx, req);
    } catch (err) {
      if (!(err instanceof CloudApiError) || err.status !== 401 || sent === undefined) throw err;
      this.#o.session.invalidate(sent);
      await this.#o.session.token(ctx);
      return await client.request(ctx, req);
    }
  }

  async #clientFor(ctx: CallContext) {
    const token = await this.#o.session.token(ctx);
    const base = `${endpointURL(token.catalog, this.#o)}${this.#o.suffix ?? ""}`;
    if (this.#client?.base === base) return this.#client;
    const session = this.#o.session;
    const client = new CloudApiClient({
      ...clientOptions(this.#o),
      name: `openstack/${this.#o.name}`,
      baseUrl: base,
      auth: () => ({ ...this.#headers, "x-auth-token": session.current ?? "" }),
    });
    this.#client = { base, client };
    return this.#client;
  }
}
