/**
 * `npm run test:deploy`: the deployment files run for real. The container image is built with podman from
 * deploy/container/Containerfile and run as shipped, for amd64 and, under qemu-user-static, for arm64 (arm64.ts; a
 * skip that says why where arm64 programs cannot run), and the two are joined in a multi-arch manifest list that
 * must name both and run each (manifest.ts); the systemd unit runs as shipped under a booted systemd. All
 * manage the sandbox's cluster until it reports every node initialised and routed and its load balancer made.
 *
 * Needs root and Debian's packages (podman, runc, debootstrap, qemu-user-static, binfmt-support; installed with
 * apt when missing). The Debian images
 * are made with debootstrap once and cached in ~/.cache/ccm-deploy-tier. Ends with `N passed, N failed, N skipped`.
 */
import { resolve } from "node:path";
import { $ } from "bun";
import { aptInstall } from "../lib/apt.ts";
import { exitsZero, Tally } from "../lib/test-tally.ts";
import { ARM64_IMAGE_TAG, arm64Refused, buildArm64Image, ensureArm64DebianImage } from "./arm64.ts";
import { buildImage, IMAGE_TAG, inspectImage, runImage } from "./image.ts";
import { buildManifest, checkManifest } from "./manifest.ts";
import { containersRefused, ensureDebianImage, ensureSystemdImage } from "./podman.ts";
import { startSandbox } from "./sandbox.ts";
import { runUnit } from "./systemd.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const log = (line: string) => console.log(`deploy: ${line}`);
const tally = new Tally();

if (process.platform !== "linux" || process.arch !== "x64") {
  console.log(`deploy: the deploy tier runs on linux-x64 only, not ${process.platform}-${process.arch}: skipped`);
  tally.skipped++;
} else {
  await run();
}
console.log(tally.summary({ skipped: true }));
process.exit(tally.failed === 0 ? 0 : 1);

async function run(): Promise<void> {
  const done = (step: Promise<void>) => step.then(() => true as const);
  const tools = await tally.check("podman, runc and debootstrap (apt)", () =>
    done(aptInstall(["podman", "runc", "debootstrap"], log)),
  );
  const built = await tally.check("build of dist/ for linux-x64 (as npm run build)", () =>
    exitsZero($`${process.execPath} scripts/build.ts --target=linux-x64`.cwd(ROOT)),
  );
  if (tools === undefined || built === undefined) return;
  // The sandbox comes from the build under test, as the end-to-end tests' harness finds it.
  process.env.CCM_TEST_BIN_DIR = resolve(ROOT, "dist");
  const allInOne = resolve(ROOT, "dist", "cloud-controller-manager-linux-x64");

  if (!(await tally.check("Debian base image (debootstrap, cached)", () => done(ensureDebianImage(log))))) return;
  // A machine that cannot run containers at all (no privileges for namespaces) says nothing about our files.
  const refusal = await containersRefused();
  if (refusal) {
    console.log(
      `deploy: podman cannot run a container on this machine, so the 9 remaining checks are skipped:\n${refusal}`,
    );
    tally.skipped += 9;
    return;
  }
  const image = await tally.check("podman build of deploy/container/Containerfile", () => done(buildImage()));
  if (image) {
    await tally.check("the image carries OCI labels, dpkg records and the SBOM for scanners", async () =>
      log(await inspectImage()),
    );
    await tally.check("the image manages the sandbox's cluster and stops cleanly", () => withSandbox(runImage));
  }
  const arm64Built = await arm64();
  if (image && arm64Built) {
    const images = { amd64: IMAGE_TAG, arm64: ARM64_IMAGE_TAG };
    await tally.check("the multi-arch manifest lists linux/amd64 and linux/arm64, and each runs from it", async () => {
      await buildManifest(images);
      log(await checkManifest(images));
    });
  } else {
    console.log("deploy: the multi-arch manifest needs both images, so its check is skipped");
    tally.skipped++;
  }
  const systemd = await tally.check("Debian image with systemd (debootstrap, cached)", () =>
    done(ensureSystemdImage(log)),
  );
  if (systemd) {
    await tally.check("the systemd unit, as shipped, manages the cluster, stops and restarts", () =>
      withSandbox((sandbox) => runUnit(sandbox, allInOne)),
    );
  }

  /**
   * The arm64 image under qemu: built, then run as shipped against the sandbox, or skipped saying why. True when
   * it was built.
   */
  async function arm64(): Promise<boolean> {
    const refused = await arm64Refused(log);
    if (refused) {
      console.log(`deploy: the arm64 image cannot be built and started here, so its 3 checks are skipped: ${refused}`);
      tally.skipped += 3;
      return false;
    }
    const base = await tally.check("arm64 Debian base image (debootstrap under qemu, cached)", () =>
      done(ensureArm64DebianImage(log)),
    );
    if (!base) return false;
    const built = await tally.check("podman build of deploy/container/Containerfile for linux/arm64 (qemu)", () =>
      done(buildArm64Image()),
    );
    if (!built) return false;
    await tally.check("the arm64 image, under qemu, manages the sandbox's cluster and stops cleanly", () =>
      withSandbox((sandbox) => runImage(sandbox, { tag: ARM64_IMAGE_TAG, readyWithinMs: 180_000 })),
    );
    return true;
  }

  async function withSandbox(check: (sandbox: Awaited<ReturnType<typeof startSandbox>>) => Promise<string>) {
    const sandbox = await startSandbox();
    try {
      log(await check(sandbox));
    } finally {
      await sandbox.stop();
    }
  }
}
