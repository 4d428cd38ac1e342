/**
 * Delegated authentication and authorisation for the serving endpoints, as upstream's controller managers do it:
 *
 * - Paths in `alwaysAllowPaths` (exact, or a prefix with a trailing `*`; default `/healthz,/readyz,/livez`) skip both.
 * - Authentication: `Authorization: Bearer <token>` → a TokenReview through the KubeClient. Results (either way)
 *   are cached for `tokenCacheTtlMs` (`--authentication-token-webhook-cache-ttl`, 10s), keyed by a hash of the
 *   token. No token, a rejected token or a failed review → 401.
 * - Authorisation: group `system:masters` is always allowed; otherwise a SubjectAccessReview for the non-resource
 *   path and the lower-cased HTTP method as verb (`get` for `/metrics`), cached 10s when allowed and 10s when
 *   denied. Denied → 403; a failed review → 500.
 * - Both caches hold at most `maxCacheEntries` (default 4096) entries, least recently used out first, so random
 *   tokens cannot grow memory without bound.
 * - Without a client there is nobody to ask: everything outside the always-allowed paths is forbidden, unless
 *   `allowAllWithoutClient` is set (tests, local runs).
 *
 * Differs from upstream on purpose: a request without a token is 401 here; upstream treats it as
 * `system:anonymous` and usually answers 403.
 */
import { createHash } from "node:crypto";
import type { ConsolaInstance } from "consola";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Now } from "../kube/clock.ts";
import type { KubeObject } from "../kube/objects.ts";
import { ExpiringCache } from "./expiring-cache.ts";

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface DelegatedAuthOptions {
  readonly client?: KubeClient | undefined;
  readonly allowAllWithoutClient?: boolean;
  readonly alwaysAllowPaths: readonly string[];
  readonly tokenCacheTtlMs?: number;
  readonly authorizedTtlMs?: number;
  readonly unauthorizedTtlMs?: number;
  /** Per cache; default `DEFAULT_AUTH_CACHE_ENTRIES`. */
  readonly maxCacheEntries?: number;
  readonly now: Now;
  readonly logger: ConsolaInstance;
}

export const DEFAULT_AUTH_CACHE_ENTRIES = 4096;

export const DEFAULT_ALWAYS_ALLOW_PATHS: readonly string[] = ["/healthz", "/readyz", "/livez"];

/** Returns a Response to send instead of serving the request, or `undefined` when the request may proceed. */
export type Guard = (request: Request, path: string) => Promise<Response | undefined>;

const status = (code: number, reason: string, message: string) =>
  Response.json(
    { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code },
    { status: code, headers: { "cache-control": "no-cache, private" } },
  );

export const alwaysAllowed = (patterns: readonly string[], path: string): boolean =>
  patterns.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : path === p));

export const createDelegatedAuth = (options: DelegatedAuthOptions): Guard => {
  const { client, now, logger } = options;
  const tokenTtl = options.tokenCacheTtlMs ?? 10_000;
  const allowedTtl = options.authorizedTtlMs ?? 10_000;
  const deniedTtl = options.unauthorizedTtlMs ?? 10_000;
  const max = options.maxCacheEntries ?? DEFAULT_AUTH_CACHE_ENTRIES;
  const tokens = new ExpiringCache<UserInfo | undefined>(max, now);
  const decisions = new ExpiringCache<{ allowed: boolean; reason: string }>(max, now);

  const authenticate = async (token: string): Promise<UserInfo | undefined> => {
    const key = createHash("sha256").update(token).digest("hex");
    const hit = tokens.get(key);
    if (hit) return hit.value;
    const review = { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } } as KubeObject;
    const answer = (await client?.create(Resources.tokenReviews, review)) as {
      status?: { authenticated?: boolean; user?: UserInfo };
    };
    const user = answer?.status?.authenticated ? answer.status.user : undefined;
    tokens.set(key, user, tokenTtl);
    return user;
  };

  const authorize = async (user: UserInfo, path: string, verb: string) => {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, path, verb]);
    const hit = decisions.get(key);
    if (hit) return hit.value;
    const spec = {
      user: user.username,
      uid: user.uid,
      groups: user.groups,
      extra: user.extra,
      nonResourceAttributes: { path, verb },
    };
    const review = { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec } as KubeObject;
    const answer = (await client?.create(Resources.subjectAccessReviews, review)) as {
      status?: { allowed?: boolean; reason?: string };
    };
    const decision = { allowed: answer?.status?.allowed === true, reason: answer?.status?.reason ?? "" };
    decisions.set(key, decision, decision.allowed ? allowedTtl : deniedTtl);
    return decision;
  };

  return async (request, path) => {
    if (alwaysAllowed(options.alwaysAllowPaths, path)) return undefined;
    if (!client) {
      if (options.allowAllWithoutClient) return undefined;
      return status(403, "Forbidden", `forbidden: no authorization configured for path "${path}"`);
    }
    const header = request.headers.get("authorization") ?? "";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token) return status(401, "Unauthorized", "Unauthorized");
    let user: UserInfo | undefined;
    try {
      user = await authenticate(token);
    } catch (err) {
      logger.error(`Unable to authenticate the request: ${(err as Error).message}`);
    }
    if (!user) return status(401, "Unauthorized", "Unauthorized");
    if (user.groups?.includes("system:masters")) return undefined;
    const verb = request.method.toLowerCase();
    try {
      const { allowed, reason } = await authorize(user, path, verb);
      if (allowed) return undefined;
      const detail = reason ? `: ${reason}` : "";
      return status(403, "Forbidden", `forbidden: User "${user.username}" cannot ${verb} path "${path}"${detail}`);
    } catch (err) {
      logger.error(
        `Authorization error (user=${user.username}, verb=${verb}, path=${path}): ${(err as Error).message}`,
      );
      return status(500, "InternalError", "Internal Server Error: authorization failed");
    }
  };
};
