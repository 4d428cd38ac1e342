/**
 * The arm64 image on an amd64 machine: Debian's qemu-user-static runs arm64 programs through the kernel's
 * binfmt_misc, so podman builds deploy/container/Containerfile for linux/arm64 and runs the image as shipped.
 *
 * The Debian stages come from an arm64 bookworm made with debootstrap (its second stage runs under qemu; cached
 * beside the amd64 one) and passed as `DEBIAN`: the builder has no registry to pick an architecture from, so the
 * certificates stage runs on that arm64 Debian under emulation too (same CA bundle, and the libc6 record is the
 * arm64 package's own). Where arm64 programs cannot run, the reason is returned and the checks are skips.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { aptInstall, type Log, runChecked } from "../lib/apt.ts";
import { cachedRoot, hasImage, podman } from "./podman.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const BINFMT = "/proc/sys/fs/binfmt_misc";
export const ARM64_DEBIAN_TAG = "localhost/ccm-deploy-tier/debian:bookworm-arm64";
export const ARM64_IMAGE_TAG = "localhost/ccm-deploy-tier/cloud-controller-manager:test-arm64";

/** Why arm64 programs cannot run on this machine, or undefined once they can (qemu installed and registered). */
export async function arm64Refused(log: Log): Promise<string | undefined> {
  if (process.arch === "arm64") return undefined;
  try {
    await aptInstall(["qemu-user-static", "binfmt-support"], log);
  } catch (err) {
    return `qemu-user-static and binfmt-support could not be installed: ${(err as Error).message}`;
  }
  if (!existsSync(join(BINFMT, "status"))) {
    const r = await $`mount -t binfmt_misc binfmt_misc ${BINFMT}`.quiet().nothrow();
    if (r.exitCode !== 0)
      return `binfmt_misc is not mounted at ${BINFMT} and mounting it failed (${r.stderr.toString().trim()}): the kernel cannot hand arm64 programs to qemu`;
  }
  const handler = join(BINFMT, "qemu-aarch64");
  if (!existsSync(handler)) await $`update-binfmts --enable qemu-aarch64`.quiet().nothrow();
  const entry = await readFile(handler, "utf8").catch(() => "");
  if (!entry.startsWith("enabled"))
    return `no enabled qemu-aarch64 handler in ${BINFMT} after update-binfmts --enable qemu-aarch64`;
  // F: the kernel opens the interpreter at registration, so it works inside a container's root too.
  if (!/^flags: \S*F/m.test(entry))
    return `the qemu-aarch64 handler lacks binfmt_misc's F flag: containers cannot use it`;
  return undefined;
}

/** The arm64 bookworm the Containerfile's Debian stages use for the arm64 build, unless podman has it. */
export async function ensureArm64DebianImage(log: Log): Promise<void> {
  if (await hasImage(ARM64_DEBIAN_TAG)) return;
  const tarball = await cachedRoot("debian-bookworm-minbase-arm64", log, async (root) => {
    log("debootstrap --arch=arm64 --variant=minbase bookworm (its second stage under qemu: a few minutes)");
    await runChecked(
      $`debootstrap --arch=arm64 --variant=minbase bookworm ${root} http://deb.debian.org/debian`,
      "debootstrap --arch=arm64 bookworm",
    );
  });
  log(`importing ${tarball} as ${ARM64_DEBIAN_TAG}`);
  await podman(["import", "--arch=arm64", tarball, ARM64_DEBIAN_TAG]);
}

/** `npm run build`'s arm64 executables into dist/, then the image for linux/arm64 from them. */
export async function buildArm64Image(): Promise<void> {
  await runChecked(
    $`${process.execPath} scripts/build.ts --target=linux-arm64 --provider=sandbox`.cwd(ROOT),
    "build of dist/ for linux-arm64",
  );
  await podman(
    [
      "build",
      "--network=host",
      "--platform=linux/arm64",
      "--file=deploy/container/Containerfile",
      "--build-arg=EXECUTABLE=cloud-controller-manager",
      `--build-arg=DEBIAN=${ARM64_DEBIAN_TAG}`,
      `--tag=${ARM64_IMAGE_TAG}`,
      ROOT,
    ],
    "podman build of deploy/container/Containerfile for linux/arm64",
  );
  const arch = (await podman(["image", "inspect", "--format={{.Architecture}}", ARM64_IMAGE_TAG])).trim();
  if (arch !== "arm64") throw new Error(`the image built for linux/arm64 says its architecture is ${arch}`);
}
