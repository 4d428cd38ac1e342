/**
 * Keystone v3 tokens (Identity API v3, "Password authentication with scoped authorization", "Authenticating with
 * an Application Credential", OS-TRUST): `POST /v3/auth/tokens` answers 201 with the token in `X-Subject-Token` and
 * the token's body — `expires_at` and the service catalog.
 *
 * - One token at a time, renewed before it expires: once less than a quarter of its life (at most five minutes)
 *   is left, the next caller asks for a new one; concurrent callers share one request.
 * - `invalidate` drops a token a service refused (401), so the next call authenticates again, as gophercloud's
 *   `AllowReauth` does once per refused call.
 * - The password, application credential secret and token never appear in a message: the request body is never
 *   logged, and what Keystone answers is scrubbed of them.
 */
import * as v from "valibot";
import type { Now } from "../../../kube/clock.ts";
import { redactUrlCredentials } from "../../../net/url-credentials.ts";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { redact } from "../../kit/http/errors.ts";
import type { AuthMethod, AuthOptions, DomainRef, ProjectRef, UserRef } from "../auth-options.ts";

const endpointSchema = v.object({
  id: v.optional(v.string(), ""),
  interface: v.string(),
  region: v.optional(v.nullable(v.string()), null),
  region_id: v.optional(v.nullable(v.string()), null),
  url: v.string(),
});
const catalogEntrySchema = v.object({
  type: v.string(),
  name: v.optional(v.string(), ""),
  endpoints: v.array(endpointSchema),
});
export type CatalogEntry = v.InferOutput<typeof catalogEntrySchema>;

const tokenAnswer = v.object({
  token: v.object({
    expires_at: v.string(),
    issued_at: v.optional(v.string()),
    project: v.optional(v.object({ id: v.string(), name: v.optional(v.string()) })),
    catalog: v.optional(v.array(catalogEntrySchema), []),
  }),
});

export interface Token {
  /** The `X-Subject-Token`: a secret. */
  readonly value: string;
  readonly expiresAt: number;
  readonly issuedAt: number;
  readonly projectID: string | undefined;
  readonly catalog: readonly CatalogEntry[];
}

/** The longest a token is renewed ahead of its expiry. */
const RENEW_AHEAD_MS = 5 * 60_000;

/** The body of `POST /v3/auth/tokens` for the configured method and scope. */
export function tokenRequestBody(auth: Pick<AuthOptions, "method" | "project">): unknown {
  const m = auth.method;
  const identity = identityOf(m);
  let scope: unknown;
  if (m.kind === "trust") scope = { "OS-TRUST:trust": { id: m.trustID } };
  else if (m.kind !== "application_credential" && auth.project) scope = { project: projectOf(auth.project) };
  return { auth: { identity, ...(scope === undefined ? {} : { scope }) } };
}

function identityOf(m: AuthMethod): unknown {
  switch (m.kind) {
    case "password":
    case "trust":
      return { methods: ["password"], password: { user: { ...userOf(m.user), password: m.password } } };
    case "application_credential": {
      const c = m.credential;
      const credential = "id" in c ? { id: c.id } : { name: c.name, user: userOf(c.user) };
      return { methods: ["application_credential"], application_credential: { ...credential, secret: m.secret } };
    }
    case "token":
      return { methods: ["token"], token: { id: m.token } };
  }
}

const domainOf = (d: DomainRef) => ("id" in d ? { id: d.id } : { name: d.name });
const userOf = (u: UserRef) => ("id" in u ? { id: u.id } : { name: u.name, domain: domainOf(u.domain) });
const projectOf = (p: ProjectRef) => ("id" in p ? { id: p.id } : { name: p.name, domain: domainOf(p.domain) });

/** The secrets of a method, scrubbed from every message about a token request. */
function secretsOf(m: AuthMethod): string[] {
  switch (m.kind) {
    case "password":
    case "trust":
      return [m.password];
    case "application_credential":
      return [m.secret];
    case "token":
      return [m.token];
  }
}

export interface KeystoneSessionOptions {
  /** The kit client under Keystone's v3 root (`AuthOptions.authUrl`). */
  readonly client: CloudApiClient;
  readonly auth: AuthOptions;
  readonly now: Now;
}

export class KeystoneSession {
  readonly #o: KeystoneSessionOptions;
  #token: Token | undefined;
  #pending: Promise<Token> | undefined;
  /** How many tokens were issued to this session; for tests and the log. */
  issued = 0;

  constructor(o: KeystoneSessionOptions) {
    this.#o = o;
  }

  /** The current token's value when there is one (for a request's header); `undefined` before the first. */
  get current(): string | undefined {
    return this.#token?.value;
  }

  /** A token that is not about to expire: the current one, or a new one. */
  async token(ctx: CallContext): Promise<Token> {
    const t = this.#token;
    if (t && !this.#dueForRenewal(t)) return t;
    this.#pending ??= this.#issue(ctx).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Forgets `value` if it is still the current token (a service answered 401 for it). */
  invalidate(value: string): void {
    if (this.#token?.value === value) this.#token = undefined;
  }

  #dueForRenewal(t: Token): boolean {
    const ahead = Math.min(RENEW_AHEAD_MS, Math.max(0, t.expiresAt - t.issuedAt) / 4);
    return this.#o.now() >= t.expiresAt - ahead;
  }

  async #issue(ctx: CallContext): Promise<Token> {
    const secrets = secretsOf(this.#o.auth.method);
    try {
      const { answer, headers } = await this.#o.client.exchange(ctx, {
        operation: "issueToken",
        method: "POST",
        path: "/auth/tokens",
        body: tokenRequestBody(this.#o.auth),
        // Asking again for a token is harmless: an unused token just expires.
        idempotent: true,
        answer: tokenAnswer,
      });
      const value = headers.get("x-subject-token");
      if (!value) throw new Error("keystone answered without an X-Subject-Token header");
      const now = this.#o.now();
      const expiresAt = Date.parse(answer.token.expires_at);
      if (!Number.isFinite(expiresAt)) throw new Error(`keystone's expires_at "${answer.token.expires_at}" is no time`);
      const issued = answer.token.issued_at === undefined ? Number.NaN : Date.parse(answer.token.issued_at);
      const token: Token = {
        value,
        expiresAt,
        issuedAt: Number.isFinite(issued) ? issued : now,
        projectID: answer.token.project?.id,
        catalog: answer.token.catalog,
      };
      this.#token = token;
      this.issued++;
      return token;
    } catch (err) {
      const message = redact((err as Error).message, secrets);
      const from = redactUrlCredentials(this.#o.auth.authUrl);
      throw new Error(`openstack/keystone: no token from ${from}: ${message}`, { cause: err });
    }
  }
}

export interface EndpointQuery {
  /** The catalog's service type: `compute`, `network`. */
  readonly type: string;
  readonly interface: "public" | "internal" | "admin";
  /** Matches an endpoint's `region` or `region_id`; `undefined` matches any. */
  readonly region: string | undefined;
}

/**
 * The one endpoint of `type` with the interface and region asked for (gophercloud's `openstack.V3EndpointURL`):
 * none, or several of different URLs, is an error saying what the catalog has.
 */
export function endpointURL(catalog: readonly CatalogEntry[], q: EndpointQuery): string {
  const urls = new Set<string>();
  const offered: string[] = [];
  for (const entry of catalog) {
    if (entry.type !== q.type) continue;
    for (const e of entry.endpoints) {
      offered.push(`${e.interface}@${e.region ?? e.region_id ?? "(no region)"}`);
      const inRegion = q.region === undefined || e.region === q.region || e.region_id === q.region;
      if (e.interface === q.interface && inRegion) urls.add(e.url.replace(/\/+$/, ""));
    }
  }
  const where = `a ${q.interface} endpoint of type ${q.type}${q.region ? ` in region ${q.region}` : ""}`;
  if (urls.size === 0) {
    const has = offered.length > 0 ? `it has ${offered.join(", ")}` : "it lists no such service";
    throw new Error(`the service catalog has no ${where} ([Global] region, os-endpoint-type); ${has}`);
  }
  if (urls.size > 1) {
    throw new Error(`the service catalog has ${urls.size} URLs for ${where}; set [Global] region to pick one`);
  }
  return [...urls][0] as string;
}
