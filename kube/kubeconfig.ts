/**
 * Finding, reading and merging the kubeconfig, by kubectl's rules.
 *
 * Where from, in order: an explicit `--kubeconfig` path; else in-cluster when `KUBERNETES_SERVICE_HOST` is set;
 * else `KUBECONFIG` (a `:`-separated list, missing files skipped); else `~/.kube/config`; else, with `--master`,
 * that server and no credentials; else an error. client-node's own `loadFromDefault` would fall back to
 * `http://localhost:8080` silently, which is never what a CCM wants.
 *
 * Merging, as client-go does: for clusters, users and contexts the first file to name an entry wins, and the
 * first file to set `current-context` wins; the same name twice in one file is an error. Relative file paths
 * (certificate-authority, client-certificate, client-key, token-file) resolve against the folder of the file
 * that holds them.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ConfigError, type ConfigIssue } from "../config/errors.ts";
import { rejectMisreadYaml, validate } from "../config/validate.ts";
import type { ExecConfig } from "./credentials.ts";
import {
  type KubeCluster,
  type KubeContext,
  type Kubeconfig,
  type KubeconfigFile,
  KubeconfigFileSchema,
  type KubeUser,
} from "./kubeconfig-schema.ts";

export type { KubeCluster, KubeContext, Kubeconfig, KubeUser } from "./kubeconfig-schema.ts";

export const DEFAULT_SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface LoadKubeConfigOptions {
  /** `--kubeconfig`; empty or absent ⇒ in-cluster or the default rules. */
  readonly kubeconfig?: string | undefined;
  /** `--master`; only decides whether "nothing found" is an error. */
  readonly master?: string | undefined;
  /** Use this context instead of the current one. */
  readonly context?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where `~/.kube/config` is looked for. */
  readonly homeDir?: string | undefined;
  readonly serviceAccountDir?: string;
}

export interface LoadedKubeConfig {
  readonly config: Kubeconfig;
  /** For messages: the kubeconfig path(s), `in-cluster`, or `--master`. */
  readonly source: string;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = opts.env ?? process.env;
  const loaded = findAndLoad(opts, env);
  if (!opts.context) return loaded;
  if (!loaded.config.contexts.has(opts.context)) {
    const known = [...loaded.config.contexts.keys()];
    throw new ConfigError(`kubeconfig ${loaded.source}`, [
      { path: "--context", message: `context ${opts.context} does not exist (have: ${known.join(", ") || "none"})` },
    ]);
  }
  return { ...loaded, config: { ...loaded.config, currentContext: opts.context } };
}

function findAndLoad(opts: LoadKubeConfigOptions, env: Readonly<Record<string, string | undefined>>): LoadedKubeConfig {
  if (opts.kubeconfig) return loadFiles([opts.kubeconfig], opts.kubeconfig);
  if (env.KUBERNETES_SERVICE_HOST) return loadInCluster(env, opts.serviceAccountDir ?? DEFAULT_SERVICE_ACCOUNT_DIR);
  const fromEnv = (env.KUBECONFIG ?? "").split(":").filter((f) => f !== "");
  if (fromEnv.length > 0) {
    const present = fromEnv.filter((f) => existsSync(f));
    if (present.length === 0) {
      throw new ConfigError("kubeconfig", [{ path: "KUBECONFIG", message: `none of ${fromEnv.join(", ")} exists` }]);
    }
    return loadFiles(present, present.join(":"));
  }
  const home = opts.homeDir ?? env.HOME;
  const homeConfig = home ? join(home, ".kube", "config") : undefined;
  if (homeConfig && existsSync(homeConfig)) return loadFiles([homeConfig], homeConfig);
  if (opts.master) {
    return {
      config: single(
        { name: "master", server: opts.master, skipTLSVerify: false },
        { name: "anonymous", dir: process.cwd() },
      ),
      source: "--master",
    };
  }
  throw new ConfigError("kubeconfig", [
    {
      path: "",
      message: `none found: --kubeconfig is empty, KUBERNETES_SERVICE_HOST and KUBECONFIG are not set, and ${homeConfig ?? "~/.kube/config"} does not exist`,
    },
  ]);
}

function loadFiles(files: readonly string[], source: string): LoadedKubeConfig {
  const clusters = new Map<string, KubeCluster>();
  const users = new Map<string, KubeUser>();
  const contexts = new Map<string, KubeContext>();
  let currentContext = "";
  for (const file of files) {
    const one = readKubeconfigFile(file);
    addMissing(clusters, one.clusters);
    addMissing(users, one.users);
    addMissing(contexts, one.contexts);
    currentContext ||= one.currentContext;
  }
  return { config: { clusters, users, contexts, currentContext }, source };
}

/** Entries of `from` whose names `into` does not have yet: the first file to name an entry wins. */
function addMissing<T>(into: Map<string, T>, from: ReadonlyMap<string, T>): void {
  for (const [name, entry] of from) if (!into.has(name)) into.set(name, entry);
}

/** One file, validated, with its relative paths made absolute. */
export function readKubeconfigFile(file: string): Kubeconfig {
  const where = `kubeconfig ${file}`;
  let doc: unknown;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
    doc = Bun.YAML.parse(text);
  } catch (err) {
    const what = (err as NodeJS.ErrnoException).code ? "cannot be read" : "is not valid YAML or JSON";
    throw new ConfigError(where, [{ path: "", message: `${what}: ${(err as Error).message}` }], { cause: err });
  }
  rejectMisreadYaml(text, where);
  const parsed = validate(KubeconfigFileSchema, doc ?? {}, where);
  const dir = resolve(dirname(file));
  const issues: ConfigIssue[] = [];
  const config = toModel(parsed, dir, issues);
  if (issues.length > 0) throw new ConfigError(where, issues);
  return config;
}

function toModel(f: KubeconfigFile, dir: string, issues: ConfigIssue[]): Kubeconfig {
  const path = (p: string | null | undefined) => (p ? (isAbsolute(p) ? p : join(dir, p)) : undefined);
  const clusters = byName("clusters", f.clusters, issues, ({ name, cluster: c }) => ({
    name,
    server: (c.server ?? "").replace(/\/+$/, ""),
    caFile: path(c["certificate-authority"]),
    caData: c["certificate-authority-data"] || undefined,
    skipTLSVerify: c["insecure-skip-tls-verify"] === true,
    tlsServerName: c["tls-server-name"] || undefined,
    proxyUrl: c["proxy-url"] || undefined,
  }));
  const users = byName("users", f.users, issues, ({ name, user: u }) => ({
    name,
    dir,
    token: u?.token || undefined,
    tokenFile: path(u?.["token-file"]),
    certFile: path(u?.["client-certificate"]),
    certData: u?.["client-certificate-data"] || undefined,
    keyFile: path(u?.["client-key"]),
    keyData: u?.["client-key-data"] || undefined,
    username: u?.username || undefined,
    password: u?.password ?? undefined,
    impersonateUser: u?.as || undefined,
    exec: u?.exec ? execOf(u.exec) : undefined,
    authProvider: u?.["auth-provider"]
      ? { name: u["auth-provider"].name, config: u["auth-provider"].config ?? {} }
      : undefined,
  }));
  const contexts = byName("contexts", f.contexts, issues, ({ name, context: c }) => ({
    name,
    cluster: c.cluster ?? "",
    user: c.user || undefined,
    namespace: c.namespace || undefined,
  }));
  return { clusters, users, contexts, currentContext: f["current-context"] ?? "" };
}

type ExecFile = NonNullable<NonNullable<NonNullable<KubeconfigFile["users"]>[number]["user"]>["exec"]>;

function execOf(e: ExecFile): ExecConfig {
  return {
    command: e.command ?? "",
    args: e.args ?? null,
    env: e.env ?? null,
    ...(e.apiVersion && { apiVersion: e.apiVersion }),
    ...(e.installHint && { installHint: e.installHint }),
    ...(e.provideClusterInfo != null && { provideClusterInfo: e.provideClusterInfo }),
  };
}

function byName<In extends { name: string }, Out>(
  list: string,
  entries: readonly In[] | null | undefined,
  issues: ConfigIssue[],
  build: (entry: In) => Out,
): Map<string, Out> {
  const out = new Map<string, Out>();
  (entries ?? []).forEach((entry, i) => {
    if (out.has(entry.name)) {
      issues.push({
        path: `${list}[${i}].name`,
        message: `${entry.name} is already defined above; names must be unique`,
      });
    } else {
      out.set(entry.name, build(entry));
    }
  });
  return out;
}

function single(cluster: KubeCluster, user: KubeUser, namespace?: string): Kubeconfig {
  const context: KubeContext = { name: cluster.name, cluster: cluster.name, user: user.name, namespace };
  return {
    clusters: new Map([[cluster.name, cluster]]),
    users: new Map([[user.name, user]]),
    contexts: new Map([[context.name, context]]),
    currentContext: context.name,
  };
}

/**
 * In-cluster settings from the environment and the service-account folder, as client-go's `InClusterConfig`:
 * always HTTPS, the token file re-read while running.
 */
function loadInCluster(env: Readonly<Record<string, string | undefined>>, saDir: string): LoadedKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT;
  const source = `in-cluster (${saDir})`;
  if (!port) {
    throw new ConfigError(source, [
      { path: "KUBERNETES_SERVICE_PORT", message: "is not set (KUBERNETES_SERVICE_HOST is)" },
    ]);
  }
  const hostPart = host.includes(":") ? `[${host}]` : host;
  const nsFile = join(saDir, "namespace");
  const namespace = existsSync(nsFile) ? readFileSync(nsFile, "utf8").trim() || undefined : undefined;
  const config = single(
    { name: "in-cluster", server: `https://${hostPart}:${port}`, caFile: join(saDir, "ca.crt"), skipTLSVerify: false },
    { name: "in-cluster", dir: saDir, tokenFile: join(saDir, "token") },
    namespace,
  );
  return { config, source };
}
