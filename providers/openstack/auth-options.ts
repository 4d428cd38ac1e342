/**
 * `[Global]` (and, with `use-clouds = true`, the `clouds.yaml` entry it names) → how to ask Keystone v3 for a token,
 * as OCCM decides it (`pkg/client/client.go` `ReadClouds`, `ToAuthOptions`, `NewOpenStackClient`, through
 * gophercloud's `clientconfig.v3auth`):
 *
 * - `clouds.yaml` fills only what `[Global]` leaves empty.
 * - An application credential (any of its keys set) wins; then a trust (`trust-id`: the trustee's password auth,
 *   scoped to the trust); then a `token`; else the password.
 * - A user is named by `user-id`, or `username` with its domain (`user-domain-*`, else `domain-*`); a project by
 *   `tenant-id`, or `tenant-name` with its domain (`tenant-domain-*`, else `domain-*`). Application credentials and
 *   trusts carry their own scope, so a project set beside them is not sent.
 *
 * Stricter than OCCM, which fails at Keystone's answer: a missing credential, user domain or project is a
 * `ConfigError` naming the key to set.
 */
import * as v from "valibot";
import type { ConfigIssue } from "../../config/errors.ts";
import { issuesOf } from "../../config/validate.ts";
import type { ReadFile } from "../kit/secret-file.ts";
import { keyPath } from "./cloud-conf.ts";

export type DomainRef = { readonly id: string } | { readonly name: string };
export type UserRef = { readonly id: string } | { readonly name: string; readonly domain: DomainRef };

export type AuthMethod =
  | { readonly kind: "password"; readonly user: UserRef; readonly password: string }
  | {
      readonly kind: "application_credential";
      readonly credential: { readonly id: string } | { readonly name: string; readonly user: UserRef };
      readonly secret: string;
    }
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "trust"; readonly trustID: string; readonly user: UserRef; readonly password: string };

export type ProjectRef = { readonly id: string } | { readonly name: string; readonly domain: DomainRef };

export interface AuthOptions {
  /** Keystone's v3 root, ending in `/v3`, without a trailing slash. */
  readonly authUrl: string;
  readonly method: AuthMethod;
  /** The project the token is for; `undefined` for application credentials and trusts (their own scope). */
  readonly project: ProjectRef | undefined;
  /** The catalog's region; `undefined` matches every region (then one endpoint per service must be listed). */
  readonly region: string | undefined;
  readonly interface: "public" | "internal" | "admin";
  readonly caFile: string | undefined;
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  readonly tlsInsecure: boolean;
}

/** `[Global]` as the schema read it: text values, absent when not set. */
export type GlobalSection = Readonly<Record<string, string | boolean | undefined>>;

const cloudEntry = v.looseObject({
  auth: v.optional(v.looseObject({}), {}),
  region_name: v.optional(v.string()),
  interface: v.optional(v.string()),
  endpoint_type: v.optional(v.string()),
  cacert: v.optional(v.string()),
  cert: v.optional(v.string()),
  key: v.optional(v.string()),
  profile: v.optional(v.string()),
});
const cloudsFile = v.object({ clouds: v.record(v.string(), cloudEntry) });

/** clouds.yaml's `auth` keys → `[Global]`'s, as OCCM's `ReadClouds` maps them. */
const FROM_CLOUDS: Readonly<Record<string, string>> = {
  auth_url: "auth-url",
  user_id: "user-id",
  username: "username",
  password: "password",
  project_id: "tenant-id",
  project_name: "tenant-name",
  domain_id: "domain-id",
  domain_name: "domain-name",
  project_domain_id: "tenant-domain-id",
  project_domain_name: "tenant-domain-name",
  user_domain_id: "user-domain-id",
  user_domain_name: "user-domain-name",
  application_credential_id: "application-credential-id",
  application_credential_name: "application-credential-name",
  application_credential_secret: "application-credential-secret",
  token: "token",
};

export interface ResolveInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: ReadFile;
}

export type Resolved = { readonly auth: AuthOptions } | { readonly issues: ConfigIssue[]; readonly cause?: unknown };

export async function resolveAuth(global: GlobalSection, input: ResolveInput): Promise<Resolved> {
  const g: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(global)) if (typeof value === "string") g[key] = value;
  if (global["use-clouds"] === true) {
    const merged = await mergeClouds(g, input);
    if ("issues" in merged) return merged;
  }
  const issues: ConfigIssue[] = [];
  const at = (key: string) => keyPath("Global", key);
  const need = (key: string, message: string) => issues.push({ path: at(key), message });

  const authUrl = g["auth-url"];
  if (authUrl === undefined) need("auth-url", "is required: Keystone's URL, e.g. https://keystone.example.com:5000/v3");
  const userDomain = domainOf(g["user-domain-id"] ?? g["domain-id"], g["user-domain-name"] ?? g["domain-name"]);
  const user = (idKey: string): UserRef | undefined => {
    const id = g[idKey] ?? g["user-id"];
    if (id !== undefined) return { id };
    const name = g.username;
    if (name === undefined) return undefined;
    if (!userDomain) {
      need("user-domain-name", "is required with username (or user-domain-id, domain-name or domain-id)");
      return undefined;
    }
    return { name, domain: userDomain };
  };

  let method: AuthMethod | undefined;
  let scoped = true;
  const appID = g["application-credential-id"];
  const appName = g["application-credential-name"];
  const appSecret = g["application-credential-secret"];
  if (appID !== undefined || appName !== undefined || appSecret !== undefined) {
    scoped = false;
    if (appSecret === undefined) need("application-credential-secret", "is required with an application credential");
    if (appID === undefined && appName === undefined) {
      need("application-credential-id", "is required with application-credential-secret (or the credential's name)");
    }
    if (appID !== undefined && appSecret !== undefined) {
      method = { kind: "application_credential", credential: { id: appID }, secret: appSecret };
    } else if (appName !== undefined && appSecret !== undefined) {
      const owner = user("user-id");
      if (!owner) need("username", "is required with application-credential-name (or user-id)");
      else method = { kind: "application_credential", credential: { name: appName, user: owner }, secret: appSecret };
    }
  } else if (g["trust-id"] !== undefined) {
    scoped = false;
    const trustee = user("trustee-id");
    const password = g["trustee-password"] ?? g.password;
    if (!trustee) need("trustee-id", "is required with trust-id (or user-id, or username)");
    if (password === undefined) need("trustee-password", "is required with trust-id (or password)");
    if (trustee && password !== undefined) {
      method = { kind: "trust", trustID: g["trust-id"], user: trustee, password };
    }
  } else if (g.token !== undefined) {
    method = { kind: "token", token: g.token };
  } else {
    const password = g.password;
    const who = user("user-id");
    if (password === undefined) {
      need("password", "is required: set password, or application-credential-id and application-credential-secret");
    }
    if (!who && g.username === undefined) need("username", "is required with password (or user-id)");
    if (who && password !== undefined) method = { kind: "password", user: who, password };
  }

  let project: ProjectRef | undefined;
  if (scoped) {
    const projectDomain = domainOf(
      g["tenant-domain-id"] ?? g["domain-id"],
      g["tenant-domain-name"] ?? g["domain-name"],
    );
    if (g["tenant-id"] !== undefined) project = { id: g["tenant-id"] };
    else if (g["tenant-name"] !== undefined) {
      if (projectDomain) project = { name: g["tenant-name"], domain: projectDomain };
      else need("tenant-domain-name", "is required with tenant-name (or tenant-domain-id, domain-name or domain-id)");
    } else {
      need("tenant-id", "is required: the project whose servers the cluster runs on (or tenant-name)");
    }
  }
  const iface = g["os-endpoint-type"];
  if (iface !== undefined && !["public", "internal", "admin"].includes(iface)) {
    need("os-endpoint-type", `is "${iface}" (from clouds.yaml); it must be public, internal or admin`);
  }
  if ((g["cert-file"] === undefined) !== (g["key-file"] === undefined)) {
    need(
      g["cert-file"] === undefined ? "cert-file" : "key-file",
      "is required with the other of cert-file and key-file",
    );
  }
  if (issues.length > 0 || !method || authUrl === undefined) return { issues };
  return {
    auth: {
      authUrl: v3Root(authUrl),
      method,
      project,
      region: g.region,
      interface: (g["os-endpoint-type"] as AuthOptions["interface"] | undefined) ?? "public",
      caFile: g["ca-file"],
      certFile: g["cert-file"],
      keyFile: g["key-file"],
      tlsInsecure: g["tls-insecure"] === "true",
    },
  };
}

/** `https://k:5000` and `https://k:5000/v3/` → `https://k:5000/v3`. */
export function v3Root(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

function domainOf(id: string | undefined, name: string | undefined): DomainRef | undefined {
  if (id !== undefined) return { id };
  if (name !== undefined) return { name };
  return undefined;
}

/** Fills `g`'s empty keys from the clouds.yaml entry; the issues when it cannot be read. */
async function mergeClouds(
  g: Record<string, string | undefined>,
  input: ResolveInput,
): Promise<{ ok: true } | { issues: ConfigIssue[]; cause?: unknown }> {
  const at = keyPath("Global", g["clouds-file"] ? "clouds-file" : "use-clouds");
  const home = input.env.HOME;
  const candidates = g["clouds-file"]
    ? [g["clouds-file"]]
    : [
        input.env.OS_CLIENT_CONFIG_FILE,
        ...(home ? [`${home}/.config/openstack/clouds.yaml`] : []),
        "/etc/openstack/clouds.yaml",
      ].filter((p): p is string => p !== undefined && p !== "");
  let text: string | undefined;
  let path = "";
  let cause: unknown;
  for (const candidate of candidates) {
    try {
      text = await input.readFile(candidate);
      path = candidate;
      break;
    } catch (err) {
      cause ??= err;
    }
  }
  if (text === undefined) {
    const tried = candidates.join(", ");
    return { issues: [{ path: at, message: `no clouds.yaml could be read (tried ${tried})` }], cause };
  }
  let raw: unknown;
  try {
    raw = Bun.YAML.parse(text);
  } catch (err) {
    return { issues: [{ path: at, message: `${path} is not valid YAML: ${(err as Error).message}` }], cause: err };
  }
  const parsed = v.safeParse(cloudsFile, raw, { abortEarly: false });
  if (!parsed.success) {
    return { issues: issuesOf(parsed.issues).map((i) => ({ path: `${path}: ${i.path}`, message: i.message })) };
  }
  const clouds = parsed.output.clouds;
  const name = g.cloud ?? input.env.OS_CLOUD ?? (Object.keys(clouds).length === 1 ? Object.keys(clouds)[0] : undefined);
  const entry = name === undefined ? undefined : clouds[name];
  if (name === undefined || !entry) {
    const which = name === undefined ? "set [Global] cloud to one of" : `"${name}" is not among`;
    return {
      issues: [
        { path: keyPath("Global", "cloud"), message: `${which} ${path}'s clouds: ${Object.keys(clouds).join(", ")}` },
      ],
    };
  }
  if (entry.profile !== undefined) {
    return {
      issues: [
        {
          path: `${path}: clouds.${name}.profile`,
          message:
            "clouds-public.yaml profiles are not read here; write the cloud's auth_url and region_name into the entry",
        },
      ],
    };
  }
  const fill = (key: string, value: unknown) => {
    if (g[key] === undefined && typeof value === "string" && value !== "") g[key] = value;
  };
  for (const [from, to] of Object.entries(FROM_CLOUDS)) fill(to, (entry.auth as Record<string, unknown>)[from]);
  fill("region", entry.region_name);
  fill("os-endpoint-type", (entry.interface ?? entry.endpoint_type)?.toLowerCase().replace(/url$/, ""));
  fill("ca-file", entry.cacert);
  fill("cert-file", entry.cert);
  fill("key-file", entry.key);
  return { ok: true };
}
