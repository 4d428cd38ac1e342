/**
 * A real kube-apiserver for the `test:real` tier, built from Debian's source package and cached outside the repo.
 *
 * Debian bookworm publishes the upstream tree (with vendor/) as the source package `kubernetes` (1.20.2); it builds
 * with Debian's golang-1.19 through the tree's own `make WHAT=cmd/kube-apiserver`. One patch is needed: the vendored
 * github.com/modern-go/reflect2 1.0.1 crashes under Go 1.18 or later on the first map-heavy write, so its sources
 * are replaced with 1.0.2's from Debian's golang-github-modern-go-reflect2-dev. Everything comes from apt; nothing
 * is downloaded any other way.
 *
 * The binary lands in `$XDG_CACHE_HOME/ccm-real-apiserver/<CACHE_KEY>/kube-apiserver` (default ~/.cache); a second
 * call finds it there and returns at once. The build (minutes, both cores) runs under `nice`.
 */
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { $ } from "bun";
import { aptInstall, aptUpdate, type Log, runChecked } from "../lib/apt.ts";

/** Names the cached build; change it when the way of building changes, so old binaries are not reused. */
export const CACHE_KEY = "kubernetes-1.20-bookworm-reflect2-1.0.2";
/** What the build stamps as the server's version (`/version`'s gitVersion). */
export const KUBE_VERSION = "v1.20.2";

/** What running the server and the tests needs: etcd, etcdctl (compaction) and openssl (certificates). */
export const RUNTIME_PACKAGES = ["etcd-server", "etcd-client", "openssl"] as const;
/** What building needs besides the runtime packages. */
export const BUILD_PACKAGES = [
  "golang-1.19-go",
  "golang-github-modern-go-reflect2-dev",
  "dpkg-dev",
  "make",
  "rsync",
] as const;

const GO_BIN = "/usr/lib/go-1.19/bin";
const REFLECT2_SRC = "/usr/share/gocode/src/github.com/modern-go/reflect2";
const DEB_SRC_LIST = "/etc/apt/sources.list.d/ccm-real-apiserver-src.sources";
const DEB_SRC = `Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

export type { Log };

export class RealApiServerBuildError extends Error {
  override readonly name = "RealApiServerBuildError";
}

/** The cache folder for this build (not created). */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ccm-real-apiserver", CACHE_KEY);
}

/** The runtime packages, installed if missing. */
export async function ensureRuntime(log: Log = () => {}): Promise<void> {
  await aptInstall(RUNTIME_PACKAGES, log);
}

/**
 * Path of the cached kube-apiserver, building it first when absent. Installs the runtime packages too, so the
 * answer can be started at once.
 */
export async function ensureKubeApiserver(log: Log = () => {}): Promise<string> {
  await ensureRuntime(log);
  const dir = cacheDir();
  const binary = join(dir, "kube-apiserver");
  if (existsSync(binary)) return binary;
  const started = performance.now();
  await aptInstall(BUILD_PACKAGES, log);
  await ensureDebSrc(log);
  await mkdir(dir, { recursive: true });
  const work = join(dir, "src");
  await rm(work, { recursive: true, force: true });
  await mkdir(work);
  log("apt-get source kubernetes");
  await run($`apt-get source -q kubernetes`.cwd(work), "apt-get source kubernetes");
  const tree = (await readdir(work, { withFileTypes: true })).find((e) => e.isDirectory());
  if (!tree) throw new RealApiServerBuildError(`apt-get source left no source tree in ${work}`);
  const root = join(work, tree.name);
  await replaceReflect2(root);
  log(`building kube-apiserver in ${root} (several minutes on two cores)`);
  await run($`nice -n 10 make WHAT=cmd/kube-apiserver`.cwd(root).env(goBuildEnv()), "make WHAT=cmd/kube-apiserver");
  const built = join(root, "_output", "bin", "kube-apiserver");
  if (!existsSync(built)) throw new RealApiServerBuildError(`the build left no binary at ${built}`);
  await copyFile(built, `${binary}.tmp`);
  await $`chmod 0755 ${binary}.tmp`;
  await rename(`${binary}.tmp`, binary);
  await writeFile(join(dir, "SOURCE"), `${tree.name}\n`);
  await rm(work, { recursive: true, force: true });
  log(`kube-apiserver built in ${((performance.now() - started) / 1000).toFixed(0)}s: ${binary}`);
  return binary;
}

/** Source packages need a deb-src entry (the image lists only binary ones) and package lists that include it. */
async function ensureDebSrc(log: Log): Promise<void> {
  const added = !existsSync(DEB_SRC_LIST);
  if (added) {
    log(`adding ${DEB_SRC_LIST}`);
    await writeFile(DEB_SRC_LIST, DEB_SRC);
  }
  await aptUpdate(log, { force: added });
}

/** The environment `make WHAT=…` builds Kubernetes 1.20.2's tree in: Debian's Go 1.19 first on PATH, no cgo. */
export function goBuildEnv(): Record<string, string | undefined> {
  return {
    ...process.env,
    PATH: `${GO_BIN}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    CGO_ENABLED: "0",
    KUBE_GIT_VERSION: KUBE_VERSION,
    KUBE_GIT_TREE_STATE: "clean",
    GOFLAGS: "",
  };
}

/**
 * reflect2 1.0.1, vendored in the tree at `root`, reads Go's map internals in a way Go 1.18 changed; Debian's 1.0.2
 * has the same API and works.
 */
export async function replaceReflect2(root: string): Promise<void> {
  const vendored = join(root, "vendor", "github.com", "modern-go", "reflect2");
  if (!existsSync(vendored)) throw new RealApiServerBuildError(`no vendored reflect2 at ${vendored}`);
  for (const f of await readdir(vendored)) if (/\.(go|s)$/.test(f)) await rm(join(vendored, f));
  for (const f of await readdir(REFLECT2_SRC)) {
    if (/\.(go|s)$/.test(f) && !f.endsWith("_test.go")) await cp(join(REFLECT2_SRC, f), join(vendored, f));
  }
}

async function run(cmd: ReturnType<typeof $>, what: string): Promise<void> {
  try {
    await runChecked(cmd, what);
  } catch (err) {
    throw new RealApiServerBuildError((err as Error).message, { cause: err });
  }
}
