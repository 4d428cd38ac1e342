/**
 * Finding and loading the kubeconfig, with `@kubernetes/client-node`'s `KubeConfig` as the parser.
 *
 * The rules, in order: an explicit `--kubeconfig` path; else in-cluster when `KUBERNETES_SERVICE_HOST` is set;
 * else `KUBECONFIG` (a `:`-separated list, missing files skipped, the first file's current-context wins); else
 * `~/.kube/config`; else, with `--master`, that server and no credentials; else an error. client-node's own
 * `loadFromDefault` would fall back to `http://localhost:8080` silently, which is never what a CCM wants.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { ConfigError } from "../providers/errors.ts";

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

/** A loaded kubeconfig, and what client-node forgets about it. */
export interface LoadedKubeConfig {
  readonly kc: KubeConfig;
  /** For messages: the kubeconfig path(s), `in-cluster`, or `--master`. */
  readonly source: string;
  /** Per user name: the absolute `token-file` path (client-node reads it once at load and drops the path). */
  readonly tokenFiles: ReadonlyMap<string, string>;
  /** Per user name: the folder of the file that defined it (relative exec commands resolve there). */
  readonly userDirs: ReadonlyMap<string, string>;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = opts.env ?? process.env;
  const loaded = findAndLoad(opts, env);
  if (opts.context) {
    if (!loaded.kc.getContextObject(opts.context)) {
      const known = loaded.kc.getContexts().map((c) => c.name);
      throw new ConfigError(`kubeconfig ${loaded.source}`, [
        { path: "--context", message: `context ${opts.context} does not exist (have: ${known.join(", ") || "none"})` },
      ]);
    }
    loaded.kc.setCurrentContext(opts.context);
  }
  return loaded;
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
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser({ name: "master", server: opts.master, skipTLSVerify: false }, { name: "anonymous" });
    return { kc, source: "--master", tokenFiles: new Map(), userDirs: new Map() };
  }
  throw new ConfigError("kubeconfig", [
    {
      path: "",
      message: `none found: --kubeconfig is empty, KUBERNETES_SERVICE_HOST and KUBECONFIG are not set, and ${homeConfig ?? "~/.kube/config"} does not exist`,
    },
  ]);
}

function loadFiles(files: readonly string[], source: string): LoadedKubeConfig {
  let kc: KubeConfig | undefined;
  const tokenFiles = new Map<string, string>();
  const userDirs = new Map<string, string>();
  for (const file of files) {
    const one = new KubeConfig();
    const dir = dirname(file);
    let users: KubeconfigUser[] = [];
    try {
      const doc = parseYaml(readFileSync(file, "utf8"));
      users = Array.isArray(doc?.users) ? (doc.users as KubeconfigUser[]) : [];
      // client-node reads a token-file relative to the working directory; kubectl, relative to the kubeconfig.
      if (absolutizeTokenFiles(users, dir)) {
        one.loadFromString(JSON.stringify(doc));
        one.makePathsAbsolute(dir);
      } else {
        one.loadFromFile(file);
      }
    } catch (err) {
      throw new ConfigError(`kubeconfig ${file}`, [{ path: "", message: (err as Error).message }], { cause: err });
    }
    collectUserPaths(users, dir, tokenFiles, userDirs);
    if (!kc) {
      kc = one;
      continue;
    }
    try {
      kc.mergeConfig(one, Boolean(kc.currentContext));
    } catch (err) {
      throw new ConfigError(`kubeconfig ${file}`, [{ path: "", message: (err as Error).message }], { cause: err });
    }
  }
  if (!kc) throw new ConfigError("kubeconfig", [{ path: "", message: "no file given" }]);
  return { kc, source, tokenFiles, userDirs };
}

type KubeconfigUser = { name?: unknown; user?: Record<string, unknown> | null };

/** The kubeconfig as YAML; undefined when Bun's parser disagrees with client-node's (then client-node decides). */
function parseYaml(text: string): { users?: unknown } | undefined {
  try {
    const doc = Bun.YAML.parse(text);
    return typeof doc === "object" && doc !== null ? (doc as { users?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function absolutizeTokenFiles(users: KubeconfigUser[], dir: string): boolean {
  let changed = false;
  for (const u of users) {
    const tf = u?.user?.["token-file"];
    if (typeof tf === "string" && tf !== "" && !isAbsolute(tf)) {
      u.user!["token-file"] = join(dir, tf);
      changed = true;
    }
  }
  return changed;
}

/** Each user's token-file and folder; the first file naming a user wins, as in merging. */
function collectUserPaths(
  users: KubeconfigUser[],
  dir: string,
  tokenFiles: Map<string, string>,
  userDirs: Map<string, string>,
) {
  for (const u of users) {
    if (typeof u?.name !== "string" || userDirs.has(u.name)) continue;
    userDirs.set(u.name, dir);
    const tf = u.user?.["token-file"];
    if (typeof tf === "string" && tf !== "") tokenFiles.set(u.name, tf);
  }
}

/**
 * In-cluster settings from the environment and the service-account folder. Built here rather than with
 * `KubeConfig.loadFromCluster`, which reads `process.env` itself and picks plain HTTP for some ports.
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
  const tokenFile = join(saDir, "token");
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: "in-cluster", server: `https://${hostPart}:${port}`, caFile: join(saDir, "ca.crt"), skipTLSVerify: false },
    { name: "in-cluster", authProvider: { name: "tokenFile", config: { tokenFile } } },
  );
  const nsFile = join(saDir, "namespace");
  if (existsSync(nsFile)) {
    const namespace = readFileSync(nsFile, "utf8").trim();
    kc.contexts = [{ ...kc.contexts[0]!, namespace }];
  }
  return { kc, source, tokenFiles: new Map([["in-cluster", tokenFile]]), userDirs: new Map() };
}
