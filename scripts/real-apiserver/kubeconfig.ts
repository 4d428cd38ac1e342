/**
 * Kubeconfig files for the real API server: one cluster, one user (client certificate or bearer token), one
 * context, usable by kubectl and our client. Strings are written JSON-quoted (valid YAML).
 */

export interface RealKubeconfigParams {
  readonly server: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly ca: string;
  readonly user: string;
  readonly token?: string;
  /** PEM of a client certificate and its key. */
  readonly cert?: { readonly adminCert: string; readonly adminKey: string };
}

const q = (s: string): string => JSON.stringify(s);
const b64 = (s: string): string => q(Buffer.from(s).toString("base64"));

export function kubeconfigYaml(p: RealKubeconfigParams): string {
  const user: string[] = [];
  if (p.token) user.push(`    token: ${q(p.token)}`);
  if (p.cert) {
    user.push(`    client-certificate-data: ${b64(p.cert.adminCert)}`, `    client-key-data: ${b64(p.cert.adminKey)}`);
  }
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: ccm-real",
    "  cluster:",
    `    server: ${q(p.server)}`,
    `    certificate-authority-data: ${b64(p.ca)}`,
    "contexts:",
    "- name: ccm-real",
    "  context:",
    "    cluster: ccm-real",
    `    user: ${q(p.user)}`,
    "current-context: ccm-real",
    "users:",
    `- name: ${q(p.user)}`,
    "  user:",
    ...user,
    "",
  ].join("\n");
}
