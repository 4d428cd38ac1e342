/**
 * Kubeconfig files for the emulator: one cluster, one user, one context, all named `ccm-sandbox`, usable by
 * kubectl, client-node's KubeConfig loader and our own client. Strings are written JSON-quoted (valid YAML).
 */

export interface KubeconfigParams {
  readonly server: string;
  /** PEM of the CA to trust (https only). */
  readonly ca?: string | undefined;
  readonly user: string;
  readonly token?: string | undefined;
}

const q = (s: string): string => JSON.stringify(s);

export const kubeconfigYaml = (p: KubeconfigParams): string => {
  const cluster = [`    server: ${q(p.server)}`];
  if (p.ca) cluster.push(`    certificate-authority-data: ${q(Buffer.from(p.ca).toString("base64"))}`);
  const user = p.token ? [`    token: ${q(p.token)}`] : [];
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: ccm-sandbox",
    "  cluster:",
    ...cluster,
    "contexts:",
    "- name: ccm-sandbox",
    "  context:",
    "    cluster: ccm-sandbox",
    `    user: ${q(p.user)}`,
    "current-context: ccm-sandbox",
    "users:",
    `- name: ${q(p.user)}`,
    user.length ? "  user:" : "  user: {}",
    ...user,
    "",
  ].join("\n");
};
