/**
 * `kubectl kustomize` for the deploy/ manifest tests: kubectl carries kustomize, so without it those tests are
 * skipped, with the reason in their names.
 */

/** Why kustomize cannot run here, or undefined when it can. */
export const noKubectl: string | undefined = Bun.which("kubectl")
  ? undefined
  : "kubectl is not installed (it carries kustomize)";

export interface Kustomized {
  readonly code: number;
  readonly stderr: string;
  /** The YAML documents printed, parsed; the tests check them field by field. */
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field by the tests
  readonly docs: any[];
}

/** `kubectl kustomize <dir>`: its exit code, its stderr and the documents it rendered. */
export function kustomize(dir: string): Kustomized {
  const r = Bun.spawnSync(["kubectl", "kustomize", dir], { stdout: "pipe", stderr: "pipe" });
  const docs = r.stdout
    .toString()
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d));
  return { code: r.exitCode, stderr: r.stderr.toString(), docs };
}
