/**
 * podman for the deploy tier, and the Debian images it needs, made here from Debian's packages: docker.io is not
 * reachable from where this runs, so the Containerfile's pinned base is built with `debootstrap` and imported
 * under the Containerfile's own tag, and a second image adds systemd to boot as a host would.
 *
 * podman runs with `containers.conf` beside this file (CONTAINERS_CONF), not the machine's: no default ulimits
 * (raising RLIMIT_NOFILE is refused in an unprivileged sandbox) and runc, which works with cgroup v1 and hybrid
 * hierarchies where crun refuses.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { $ } from "bun";
import { type Log, runChecked } from "../lib/apt.ts";

/** The Containerfile's default `DEBIAN` build argument. */
export const DEBIAN_TAG = "docker.io/library/debian:bookworm-20251229-slim";
export const SYSTEMD_TAG = "localhost/ccm-deploy-tier/debian-systemd:bookworm";

const ENV = { ...process.env, CONTAINERS_CONF: join(import.meta.dir, "containers.conf") };
/** Debian packages the systemd image adds to the minimal base. */
const SYSTEMD_PACKAGES = ["systemd", "systemd-sysv", "dbus", "procps", "curl", "ca-certificates"];

/** `podman <args>`; throws with its output when it fails, returns its stdout. */
export function podman(args: readonly string[], what = `podman ${args[0] ?? ""}`): Promise<string> {
  return runChecked($`podman ${args}`.env(ENV), what);
}

/** `podman <args>` that may fail; resolves with the exit code and stdout. */
export async function podmanMaybe(args: readonly string[]): Promise<{ exitCode: number; stdout: string }> {
  const r = await $`podman ${args}`.env(ENV).quiet().nothrow();
  return { exitCode: r.exitCode, stdout: r.stdout.toString() };
}

export const hasImage = async (tag: string) => (await podmanMaybe(["image", "exists", tag])).exitCode === 0;

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "ccm-deploy-tier");
}

/** Builds `tarball` once from a fresh root made by `make(root)`; later calls find it in the cache. */
export async function cachedRoot(name: string, log: Log, make: (root: string) => Promise<void>): Promise<string> {
  const tarball = join(cacheDir(), `${name}.tar`);
  if (existsSync(tarball)) return tarball;
  await mkdir(cacheDir(), { recursive: true });
  const work = await mkdtemp(join(tmpdir(), `ccm-${name}-`));
  try {
    const root = join(work, "root");
    await make(root);
    log(`packing ${tarball}`);
    await runChecked($`tar -C ${root} -cf ${`${tarball}.part`} .`, "tar");
    await rename(`${tarball}.part`, tarball);
    return tarball;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const debootstrap = async (root: string, log: Log) => {
  log("debootstrap --variant=minbase bookworm (about half a minute)");
  await runChecked(
    $`debootstrap --variant=minbase bookworm ${root} http://deb.debian.org/debian`,
    "debootstrap bookworm",
  );
};

/** The Containerfile's base image, under its own tag, unless podman already has one by that name. */
export async function ensureDebianImage(log: Log): Promise<void> {
  if (await hasImage(DEBIAN_TAG)) return;
  const tarball = await cachedRoot("debian-bookworm-minbase", log, (root) => debootstrap(root, log));
  log(`importing ${tarball} as ${DEBIAN_TAG}`);
  await podman(["import", tarball, DEBIAN_TAG]);
}

/** A bookworm image that boots systemd (`/sbin/init`), with curl for health checks. */
export async function ensureSystemdImage(log: Log): Promise<void> {
  if (await hasImage(SYSTEMD_TAG)) return;
  const minbase = await cachedRoot("debian-bookworm-minbase", log, (root) => debootstrap(root, log));
  const tarball = await cachedRoot("debian-bookworm-systemd", log, async (root) => {
    await mkdir(root, { recursive: true });
    await runChecked($`tar -C ${root} -xf ${minbase}`, "tar -x of the minimal root");
    await writeFile(join(root, "etc", "resolv.conf"), await Bun.file("/etc/resolv.conf").text());
    log(`apt-get install ${SYSTEMD_PACKAGES.join(" ")} in the new root`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    await runChecked($`chroot ${root} apt-get update -q`.env(env), "apt-get update in the new root");
    await runChecked(
      $`chroot ${root} apt-get install -y -q --no-install-recommends ${SYSTEMD_PACKAGES}`.env(env),
      "apt-get install in the new root",
    );
    await runChecked($`chroot ${root} apt-get clean`, "apt-get clean in the new root");
  });
  log(`importing ${tarball} as ${SYSTEMD_TAG}`);
  await podman(["import", "--change", 'CMD ["/sbin/init"]', tarball, SYSTEMD_TAG]);
}

/** Why podman cannot run the plainest container here, or undefined when it can. */
export async function containersRefused(): Promise<string | undefined> {
  const r = await $`podman run --rm --network=host ${DEBIAN_TAG} true`.env(ENV).quiet().nothrow();
  return r.exitCode === 0 ? undefined : `${r.stdout.toString()}${r.stderr.toString()}`.trim();
}
