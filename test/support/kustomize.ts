/**
 * `kubectl kustomize` for the deploy/ manifest tests: kubectl carries kustomize, so without it those tests are
 * skipped, with the reason in their names.
 */
import { join, relative } from "node:path";

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

export interface DocumentedOverlay {
  /** The document, relative to the tree's root, and the 1-based line of the block's first line. */
  readonly where: string;
  readonly text: string;
}

/**
 * The kustomize overlays the documentation gives a user to copy: every fenced `yaml` block whose first line is a
 * `# kustomization.yaml…` comment.
 */
export function documentedOverlays(doc: string, markdown: string): DocumentedOverlay[] {
  const lines = markdown.split("\n");
  const overlays: DocumentedOverlay[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```yaml\s*$/.test(lines[i] as string)) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j] as string)) body.push(lines[j++] as string);
    if (/^# kustomization\.yaml\b/.test(body[0] ?? ""))
      overlays.push({ where: `${doc}:${i + 2}`, text: body.join("\n") });
    i = j;
  }
  return overlays;
}

/**
 * The overlay with each reference to deploy/kubernetes (`<path>/deploy/kubernetes/…`, or a remote
 * `https://…//deploy/kubernetes/…?ref=…`) turned into a path from `dir` to this tree's, as kustomize takes only
 * relative paths to other kustomizations.
 */
export function localOverlay(text: string, dir: string, deployKubernetes: string): string {
  return text.replace(/[^\s[\],]*deploy\/kubernetes\/([\w/-]+)(?:\?[^\s\],]*)?/g, (_m, sub: string) =>
    relative(dir, join(deployKubernetes, sub)),
  );
}
