/**
 * Authentication (static bearer tokens), authorization (a pluggable rule, allow-all by default) and the two
 * review APIs built on them: TokenReview (which tokens does the server know?) and SubjectAccessReview (would the
 * server allow this?). Both are answered, never stored, like the real ones.
 *
 * With no tokens configured every request is anonymous and allowed. With tokens, a request without one, or with
 * an unknown one, gets 401 — except the health and version endpoints, which stay open to anonymous callers.
 */
import { invalid, invalidError } from "./field-errors.ts";
import { isObject, type JsonObject, type Obj, str } from "./json.ts";
import { unauthorized } from "./status-errors.ts";

export interface TokenUser {
  readonly user: string;
  readonly groups?: readonly string[];
}

export interface UserInfo {
  readonly user: string;
  readonly groups: readonly string[];
}

/** What an authorizer decides on; `resource` is empty for non-resource requests (then `path` is set). */
export interface AuthzAttributes {
  readonly user: string;
  readonly groups: readonly string[];
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
}

export interface AuthzDecision {
  readonly allowed: boolean;
  readonly reason?: string;
}

export type Authorizer = (attrs: AuthzAttributes) => AuthzDecision;

const ANONYMOUS: UserInfo = { user: "system:anonymous", groups: ["system:unauthenticated"] };

export class Auth {
  readonly #tokens: ReadonlyMap<string, UserInfo>;
  readonly #authorizer: Authorizer;

  constructor(tokens: Readonly<Record<string, TokenUser>> | undefined, authorizer: Authorizer | undefined) {
    this.#tokens = new Map(
      Object.entries(tokens ?? {}).map(([token, u]) => [
        token,
        { user: u.user, groups: [...new Set([...(u.groups ?? []), "system:authenticated"])] },
      ]),
    );
    const known = new Set([...this.#tokens.values()].map((u) => u.user));
    // Default rule: any user the server issued a token to may do anything; with no tokens, anybody may.
    this.#authorizer =
      authorizer ??
      ((a) =>
        this.#tokens.size === 0 || known.has(a.user)
          ? { allowed: true, reason: "the sandbox allows every known user" }
          : { allowed: false, reason: `unknown user ${JSON.stringify(a.user)}` });
  }

  /** The caller of a request, or a 401 error. `open` paths admit anonymous callers even when tokens are set. */
  authenticate(authorization: string | null, open: boolean): UserInfo {
    const m = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (m) {
      const u = this.#tokens.get(m[1]!);
      if (u) return u;
      throw unauthorized();
    }
    if (authorization) throw unauthorized();
    if (this.#tokens.size === 0 || open) return ANONYMOUS;
    throw unauthorized();
  }

  authorize(attrs: AuthzAttributes): AuthzDecision {
    return this.#authorizer(attrs);
  }

  /** A token and user for a kubeconfig: `user`'s token, or the first one; undefined without tokens. */
  credentials(user?: string): { user: string; token: string } | undefined {
    for (const [token, u] of this.#tokens) if (user === undefined || u.user === user) return { user: u.user, token };
    if (user !== undefined) throw new Error(`sandbox apiserver: no token is configured for user ${user}`);
    return undefined;
  }

  tokenReview(body: Obj): Obj {
    const spec = isObject(body.spec) ? body.spec : {};
    const token = str(spec.token) ?? "";
    const u = this.#tokens.get(token);
    const status = u
      ? { authenticated: true, user: { username: u.user, groups: u.groups }, audiences: spec.audiences ?? [] }
      : { authenticated: false, user: {}, error: "invalid bearer token" };
    return review("authentication.k8s.io/v1", "TokenReview", body, spec, status);
  }

  /** Who the caller is (what `kubectl auth whoami` asks). */
  selfSubjectReview(body: Obj, caller: UserInfo): Obj {
    return {
      kind: "SelfSubjectReview",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { ...(isObject(body.metadata) ? body.metadata : {}), creationTimestamp: null },
      status: { userInfo: { username: caller.user, groups: [...caller.groups] } },
    };
  }

  /** A SubjectAccessReview for the caller itself (what `kubectl auth can-i` and `doctor` ask). */
  selfSubjectAccessReview(body: Obj, caller: UserInfo): Obj {
    const spec = isObject(body.spec) ? body.spec : {};
    const asked = this.subjectAccessReview({
      ...body,
      spec: { ...spec, user: caller.user, groups: [...caller.groups] },
    });
    return { ...asked, kind: "SelfSubjectAccessReview", spec };
  }

  subjectAccessReview(body: Obj): Obj {
    const spec = isObject(body.spec) ? body.spec : {};
    const user = str(spec.user) ?? "";
    const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === "string") : [];
    const ra = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
    const nra = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
    const name = str(body.metadata?.name) ?? "";
    if (!user && groups.length === 0) {
      throw invalidError("authorization.k8s.io", "SubjectAccessReview", name, [
        invalid("spec.user", "", "at least one of user or group must be specified"),
      ]);
    }
    if (!ra === !nra) {
      throw invalidError("authorization.k8s.io", "SubjectAccessReview", name, [
        invalid(
          "spec.resourceAttributes",
          null,
          "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ),
      ]);
    }
    const attr = (o: JsonObject | undefined, k: string): string => str(o?.[k]) ?? "";
    const decision = this.authorize({
      user,
      groups,
      verb: attr(ra ?? nra, "verb"),
      group: attr(ra, "group"),
      resource: attr(ra, "resource"),
      subresource: attr(ra, "subresource"),
      namespace: attr(ra, "namespace"),
      name: attr(ra, "name"),
      path: attr(nra, "path"),
    });
    const status = { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
    return review("authorization.k8s.io/v1", "SubjectAccessReview", body, spec, status);
  }
}

const review = (apiVersion: string, kind: string, body: Obj, spec: JsonObject, status: JsonObject): Obj => ({
  kind,
  apiVersion,
  metadata: { ...(isObject(body.metadata) ? body.metadata : {}), creationTimestamp: null },
  spec,
  status,
});
