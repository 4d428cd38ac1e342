/**
 * The container image as docs/install.md builds and runs it: `podman build` of deploy/container/Containerfile, then
 * the image run as shipped (its own entrypoint and user) against the sandbox, and stopped as an orchestrator
 * stops it.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { runChecked } from "../lib/apt.ts";
import { freePort } from "../lib/processes.ts";
import { podman, podmanMaybe } from "./podman.ts";
import { type DeploySandbox, healthz } from "./sandbox.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
export const IMAGE_TAG = "localhost/ccm-deploy-tier/cloud-controller-manager:test";

export async function buildImage(): Promise<void> {
  await podman(
    [
      "build",
      "--network=host",
      "--platform=linux/amd64",
      "--file=deploy/container/Containerfile",
      "--build-arg=EXECUTABLE=cloud-controller-manager",
      `--tag=${IMAGE_TAG}`,
      ROOT,
    ],
    "podman build of deploy/container/Containerfile",
  );
}

/** Runs the image against `sandbox` until it is ready, then stops it; returns what was seen, for the log. */
export async function runImage(
  sandbox: DeploySandbox,
  { tag = IMAGE_TAG, readyWithinMs = 60_000 }: { tag?: string; readyWithinMs?: number } = {},
): Promise<string> {
  const name = `ccm-deploy-tier-${process.pid}`;
  const port = freePort();
  await podman([
    "run",
    "--detach",
    `--name=${name}`,
    "--network=host",
    `--volume=${sandbox.configDir}:/etc/cloud-controller-manager:ro`,
    tag,
    "--cloud-provider=sandbox",
    "--cloud-config=/etc/cloud-controller-manager/cloud-config",
    "--kubeconfig=/etc/cloud-controller-manager/kubeconfig",
    "--cluster-cidr=10.128.0.0/9",
    "--leader-elect=false",
    `--secure-port=${port}`,
  ]);
  try {
    const ready = await sandbox.ready(readyWithinMs).catch(async (err: Error) => {
      throw new Error(`${err.message}\nthe container's log:\n${(await podmanMaybe(["logs", name])).stdout}`);
    });
    const health = await healthz(port);
    if (health !== "200 ok") throw new Error(`/healthz answered ${health}`);
    const user = (await podman(["inspect", "--format={{.Config.User}}", name])).trim();
    if (user !== "65532:65532") throw new Error(`the image runs as ${user}, not 65532:65532`);
    const started = performance.now();
    await podman(["stop", "--time=30", name]);
    const stopMs = performance.now() - started;
    const exit = (await podman(["inspect", "--format={{.State.ExitCode}}", name])).trim();
    if (exit !== "0") throw new Error(`podman stop: exit code ${exit}, expected 0`);
    return `${ready}; /healthz ok; user ${user}; stopped with exit 0 in ${stopMs.toFixed(0)} ms`;
  } finally {
    await podmanMaybe(["rm", "--force", name]);
  }
}

/** What image scanners read in the built image: its OCI labels, Debian's os-release, dpkg records and the SBOM. */
export async function inspectImage(): Promise<string> {
  const labels = JSON.parse(await podman(["image", "inspect", "--format={{json .Labels}}", IMAGE_TAG])) as Record<
    string,
    string
  >;
  const wanted = ["title", "description", "version", "revision", "created"].map((k) => `org.opencontainers.image.${k}`);
  const missing = wanted.filter((k) => !labels?.[k]);
  if (missing.length > 0) throw new Error(`labels missing: ${missing.join(", ")} (have ${JSON.stringify(labels)})`);
  const name = `ccm-deploy-tier-inspect-${process.pid}`;
  const dir = await mkdtemp(join(tmpdir(), "ccm-image-files-"));
  try {
    await podman(["create", `--name=${name}`, IMAGE_TAG]);
    const tarball = join(dir, "image.tar");
    await podman(["export", `--output=${tarball}`, name]);
    const files = new Set(
      (await runChecked($`tar -tf ${tarball}`, "tar -t of the exported image"))
        .split("\n")
        .map((f) => f.replace(/^\.?\//, "")),
    );
    const expected = [
      "etc/os-release",
      "var/lib/dpkg/status.d/libc6",
      "var/lib/dpkg/status.d/ca-certificates",
      "var/lib/dpkg/status.d/base-files",
      "usr/share/doc/cloud-controller-manager/sbom.cdx.json",
    ];
    const absent = expected.filter((f) => !files.has(f));
    if (absent.length > 0) throw new Error(`not in the image: ${absent.join(", ")}`);
    await runChecked($`tar -xf ${tarball} -C ${dir} var/lib/dpkg/status.d/libc6`, "tar -x of libc6's record");
    const record = await readFile(join(dir, "var", "lib", "dpkg", "status.d", "libc6"), "utf8");
    if (!/^Architecture: amd64$/m.test(record) || !/^Status: install ok installed$/m.test(record))
      throw new Error(`libc6's record is not an installed amd64 package:\n${record}`);
    const version = /^Version: (\S+)$/m.exec(record)?.[1];
    return `labels ${wanted.length}/${wanted.length}; os-release, dpkg records (libc6 ${version}), SBOM present`;
  } finally {
    await podmanMaybe(["rm", "--force", name]);
    await rm(dir, { recursive: true, force: true });
  }
}
