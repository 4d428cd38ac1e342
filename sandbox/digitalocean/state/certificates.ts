/** Certificates: uploaded (`custom`, verified at once) or requested from Let's Encrypt (also verified at once here). */
export interface Certificate {
  readonly id: string;
  readonly name: string;
  readonly type: "custom" | "lets_encrypt";
  readonly dnsNames: string[];
  readonly createdAt: number;
  readonly fingerprint: string;
}
