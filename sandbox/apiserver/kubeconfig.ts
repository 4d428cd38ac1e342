/**
 * Kubeconfig files with one cluster, one user and one context, for the emulator (all named `ccm-sandbox`) and for
 * the real API server of the `test:real` tier. Usable by kubectl, client-node's KubeConfig loader and our own
 * client. Strings are written JSON-quoted (valid YAML).
 */

export interface KubeconfigParams {
  /** The cluster's and the context's name; default `ccm-sandbox`. */
  readonly name?: string;
  readonly server: string;
  /** PEM of the CA to trust (https only). */
  readonly ca?: string | undefined;
  readonly user: string;
  readonly token?: string | undefined;
  /** PEM of a client certificate and its key. */
  readonly clientCert?: { readonly cert: string; readonly key: string } | undefined;
}

const q = (s: string): string => JSON.stringify(s);
const b64 = (s: string): string => q(Buffer.from(s).toString("base64"));

export const kubeconfigYaml = (p: KubeconfigParams): string => {
  const name = p.name ?? "ccm-sandbox";
  const cluster = [`    server: ${q(p.server)}`];
  if (p.ca) cluster.push(`    certificate-authority-data: ${b64(p.ca)}`);
  const user: string[] = [];
  if (p.token) user.push(`    token: ${q(p.token)}`);
  if (p.clientCert) {
    user.push(
      `    client-certificate-data: ${b64(p.clientCert.cert)}`,
      `    client-key-data: ${b64(p.clientCert.key)}`,
    );
  }
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${q(name)}`,
    "  cluster:",
    ...cluster,
    "contexts:",
    `- name: ${q(name)}`,
    "  context:",
    `    cluster: ${q(name)}`,
    `    user: ${q(p.user)}`,
    `current-context: ${q(name)}`,
    "users:",
    `- name: ${q(p.user)}`,
    user.length ? "  user:" : "  user: {}",
    ...user,
    "",
  ].join("\n");
};
