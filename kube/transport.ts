/**
 * From a kubeconfig to what each request needs: the server URL, auth headers and Bun `fetch` TLS options.
 *
 * Why not client-node's request path: under Bun it silently drops every TLS setting of the kubeconfig
 * (shared/reference/bun-client-node-probe.md §1). Everything here is read from the kubeconfig model of
 * `kubeconfig.ts` and handed to Bun's `fetch({ tls })`, which verifies correctly.
 *
 * Credentials that rotate are re-read: token files and certificate files every `fileRefreshMs` (default one
 * minute, like client-go), exec plugins when their credential expires or after a 401 (`unauthorized()`).
 */
import { ConfigError, type ConfigIssue } from "../config/errors.ts";
import { redactUrlCredentials } from "../net/url-credentials.ts";
import type { Now } from "./clock.ts";
import { type ExecConfig, ExecCredentialSource, RefreshingFile } from "./credentials.ts";
import { type KubeCluster, type KubeUser, type LoadKubeConfigOptions, loadKubeConfig } from "./kubeconfig.ts";

/** The subset of Bun's `fetch` `tls` option the kubeconfig can set; PEM text. */
export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
  serverName?: string;
}

export interface RequestSettings {
  readonly headers: Record<string, string>;
  /** Absent for `http://` servers. */
  readonly tls: TlsSettings | undefined;
  /** kubeconfig `proxy-url` (HTTP(S) proxies only). */
  readonly proxy: string | undefined;
}

export interface Transport {
  /** API server base URL without a trailing slash (may carry a path prefix). */
  readonly server: string;
  /** Where the settings came from, for messages: kubeconfig path(s), `in-cluster (…)`, or `--master`. */
  readonly source: string;
  /** The context's namespace (in-cluster: the pod's), if any. */
  readonly namespace: string | undefined;
  /** Who the requests authenticate as, for a 401 or 403: `user "ccm" (bearer token)`; never a secret. */
  readonly identity: string;
  /**
   * Settings for the next request. May run an exec plugin or re-read files; cheap when nothing is due. `signal`
   * stops waiting (rejecting with its reason).
   */
  settings(signal?: AbortSignal): Promise<RequestSettings>;
  /** The server answered 401: drop cached credentials so the next request fetches fresh ones. */
  unauthorized(): void;
}

export interface TransportOptions extends LoadKubeConfigOptions {
  readonly now?: Now;
  /** How often token and certificate files are re-read. */
  readonly fileRefreshMs?: number;
  /** The owner's lifetime: aborting kills a running exec plugin (and anything it forked). */
  readonly signal?: AbortSignal;
  /** Default `EXEC_PLUGIN_TIMEOUT_MS`. */
  readonly execTimeoutMs?: number;
}

/** Loads the kubeconfig by the rules of `loadKubeConfig` and builds a transport; `master` overrides its server. */
export function loadTransport(opts: TransportOptions = {}): Transport {
  const { config, source } = loadKubeConfig(opts);
  const now = opts.now ?? Date.now;
  const refreshMs = opts.fileRefreshMs ?? 60_000;
  const where = `kubeconfig ${source}`;
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });

  const ctxName = config.currentContext;
  const ctx = ctxName ? config.contexts.get(ctxName) : undefined;
  if (!ctx) {
    const known = [...config.contexts.keys()];
    throw new ConfigError(where, [
      {
        path: "current-context",
        message: ctxName ? `context ${ctxName} does not exist (have: ${known.join(", ") || "none"})` : "is not set",
      },
    ]);
  }
  const cluster = config.clusters.get(ctx.cluster);
  if (!cluster) {
    const message = ctx.cluster ? `cluster ${ctx.cluster} does not exist` : "names no cluster";
    throw new ConfigError(where, [{ path: `contexts[${ctx.name}]`, message }]);
  }
  const user = ctx.user ? (config.users.get(ctx.user) ?? null) : null;
  if (ctx.user && !user) problem(`contexts[${ctx.name}]`, `user ${ctx.user} does not exist`);
  const serverAt = opts.master ? "--master" : `clusters[${cluster.name}].server`;
  const server = parseServer(opts.master || cluster.server, serverAt, problem);
  const secure = server.startsWith("https:");
  const c = `clusters[${cluster.name}]`;
  const u = `users[${user?.name ?? ""}]`;
  const ca = pem(cluster.caFile, cluster.caData, `${c}.certificate-authority`, refreshMs, now, problem);
  if (ca && cluster.skipTLSVerify) {
    problem(c, "certificate-authority and insecure-skip-tls-verify together are not allowed; remove one");
  }
  const cert = user ? pem(user.certFile, user.certData, `${u}.client-certificate`, refreshMs, now, problem) : undefined;
  const key = user ? pem(user.keyFile, user.keyData, `${u}.client-key`, refreshMs, now, problem) : undefined;
  if (Boolean(cert) !== Boolean(key)) problem(u, "client-certificate and client-key must be given together");
  const auth = user
    ? authFor(user, cluster, server, {
        now,
        refreshMs,
        problem,
        at: u,
        ...(opts.signal && { signal: opts.signal }),
        ...(opts.execTimeoutMs !== undefined && { execTimeoutMs: opts.execTimeoutMs }),
      })
    : undefined;
  if (cluster.proxyUrl && !/^https?:\/\//.test(cluster.proxyUrl)) {
    problem(
      `${c}.proxy-url`,
      `${redactUrlCredentials(cluster.proxyUrl)}: only http:// and https:// proxies are supported`,
    );
  }
  if (issues.length > 0) throw new ConfigError(where, issues);

  return {
    server,
    source,
    namespace: ctx.namespace || undefined,
    identity: identityOf(user, Boolean(cert && key)),
    async settings(signal) {
      const headers: Record<string, string> = {};
      const tls: TlsSettings = {};
      if (ca) tls.ca = ca();
      if (cert && key) {
        tls.cert = cert();
        tls.key = key();
      }
      if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
      if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;
      await auth?.apply(headers, tls, signal);
      if (user?.impersonateUser) headers["Impersonate-User"] = user.impersonateUser;
      return { headers, tls: secure ? tls : undefined, proxy: cluster.proxyUrl || undefined };
    },
    unauthorized() {
      auth?.invalidate();
    },
  };
}

type Problem = (path: string, message: string) => void;

function identityOf(user: KubeUser | null, clientCert: boolean): string {
  if (!user) return "no user (anonymous)";
  const exec = user.exec ?? (user.authProvider?.config.exec as ExecConfig | null | undefined);
  const tokenFile = user.tokenFile ?? user.authProvider?.config.tokenFile;
  const how = exec?.command
    ? `exec plugin ${exec.command}`
    : tokenFile
      ? `token file ${String(tokenFile)}`
      : user.token
        ? "bearer token"
        : user.username
          ? `basic auth as ${user.username}`
          : clientCert
            ? "client certificate"
            : "no credentials";
  const as = user.impersonateUser ? `, impersonating ${user.impersonateUser}` : "";
  return `user "${user.name}" (${how}${as})`;
}

function parseServer(raw: string, at: string, problem: Problem): string {
  if (raw === "") {
    problem(at, "is missing; set the API server's URL");
    return raw;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problem(at, `${raw} is not a URL`);
    return raw;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") problem(at, `${raw}: the scheme must be https or http`);
  return raw.replace(/\/+$/, "");
}

/** PEM from a file (re-read on the refresh interval) or inline base64 data; validated once now. */
function pem(
  file: string | undefined,
  data: string | undefined,
  at: string,
  refreshMs: number,
  now: Now,
  problem: Problem,
): (() => string) | undefined {
  let read: () => string;
  let label: string;
  if (file) {
    const f = new RefreshingFile(file, refreshMs, now);
    read = () => f.read();
    label = `${at} ${file}`;
  } else if (data) {
    const text = Buffer.from(data, "base64").toString("utf8");
    read = () => text;
    label = `${at}-data`;
  } else {
    return undefined;
  }
  try {
    if (!read().includes("-----BEGIN")) problem(label, "is not PEM");
  } catch (err) {
    problem(label, `cannot be read: ${(err as Error).message}`);
  }
  return read;
}

interface Auth {
  apply(headers: Record<string, string>, tls: TlsSettings, signal: AbortSignal | undefined): Promise<void>;
  invalidate(): void;
}

function authFor(
  user: KubeUser,
  cluster: KubeCluster,
  server: string,
  o: { now: Now; refreshMs: number; problem: Problem; at: string; signal?: AbortSignal; execTimeoutMs?: number },
): Auth | undefined {
  const provider = user.authProvider;
  const exec = user.exec ?? (provider?.config.exec as ExecConfig | null | undefined);
  if (exec) {
    if (typeof exec.command !== "string" || exec.command === "") {
      o.problem(`${o.at}.exec.command`, "is missing");
      return undefined;
    }
    const src = new ExecCredentialSource(exec, {
      baseDir: user.dir,
      now: o.now,
      ...(o.signal && { signal: o.signal }),
      ...(o.execTimeoutMs !== undefined && { timeoutMs: o.execTimeoutMs }),
      cluster: {
        server,
        ...(cluster.caData && { caData: cluster.caData }),
        insecureSkipTlsVerify: cluster.skipTLSVerify,
        ...(cluster.tlsServerName && { tlsServerName: cluster.tlsServerName }),
      },
    });
    return {
      async apply(headers, tls, signal) {
        const cred = await src.get(signal);
        if (cred.token) headers.Authorization = `Bearer ${cred.token}`;
        if (cred.clientCertificateData && cred.clientKeyData) {
          tls.cert = cred.clientCertificateData;
          tls.key = cred.clientKeyData;
        }
      },
      invalidate: () => src.invalidate(),
    };
  }
  const providerFile = typeof provider?.config.tokenFile === "string" ? provider.config.tokenFile : undefined;
  if (provider && !providerFile) {
    o.problem(`${o.at}.auth-provider`, `${provider.name ?? "(unnamed)"} is not supported; use an exec plugin`);
    return undefined;
  }
  const tokenFile = user.tokenFile ?? providerFile;
  if (tokenFile) {
    const f = new RefreshingFile(tokenFile, o.refreshMs, o.now);
    try {
      f.read();
    } catch (err) {
      o.problem(`${o.at}.token-file ${tokenFile}`, `cannot be read: ${(err as Error).message}`);
    }
    return {
      async apply(headers) {
        headers.Authorization = `Bearer ${f.read().trim()}`;
      },
      invalidate: () => f.invalidate(),
    };
  }
  if (user.token) return staticAuthorization(`Bearer ${user.token.trim()}`);
  if (user.username) {
    return staticAuthorization(`Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}`);
  }
  return undefined;
}

function staticAuthorization(value: string): Auth {
  return {
    async apply(headers) {
      headers.Authorization = value;
    },
    invalidate() {},
  };
}
