/**
 * The error for input an operator wrote that cannot work: a kubeconfig, a cloud-config, flags, a ConfigMap. It
 * sits on the ground floor (below `kube/` and `providers/`) because every layer that reads such input raises it.
 */

/** One problem in a configuration: where (a dotted path, a flag, a key) and what is wrong and how to fix it. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** A configuration (cloud-config, flags, ConfigMap) is invalid. Carries every problem found, not just the first. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly issues: readonly ConfigIssue[];
  constructor(source: string, issues: readonly ConfigIssue[], options?: ErrorOptions) {
    const lines = issues.map((i) => (i.path ? `  - ${i.path}: ${i.message}` : `  - ${i.message}`));
    super(
      `${source} is invalid (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`,
      options,
    );
    this.issues = issues;
  }
}
