/**
 * Which of the provider's webhooks `--webhooks` enables (upstream: app/webhooks.go `NewWebhookHandlers`, through
 * controller-manager's `IsControllerEnabled`; options/webhook.go `Validate`): `*` enables every webhook (upstream
 * disables none by default), `name` enables one, `-name` disables one; the first entry naming a webhook decides.
 * The default, an empty list, enables none, and then nothing listens on `--webhook-secure-port`.
 */
import type { AdmissionWebhook } from "../../providers/admission.ts";

export interface WebhookSelection {
  /** The enabled webhooks by name, sorted by name. */
  readonly enabled: ReadonlyMap<string, AdmissionWebhook>;
  /** The provider's webhooks the list leaves off, sorted. */
  readonly disabled: readonly string[];
  /** One message per name the provider does not declare, in upstream's words. */
  readonly errors: readonly string[];
}

export function isWebhookEnabled(name: string, entries: readonly string[]): boolean {
  let star = false;
  for (const entry of entries) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === "*") star = true;
  }
  return star;
}

export function selectWebhooks(
  entries: readonly string[],
  declared: Readonly<Record<string, AdmissionWebhook>> | undefined,
): WebhookSelection {
  const all = Object.keys(declared ?? {}).sort();
  const known = all.length > 0 ? all.join(", ") : "none";
  const errors = entries
    .filter((e) => e !== "*" && !all.includes(e.replace(/^-/, "")))
    .map((e) => `"${e.replace(/^-/, "")}" is not in the list of known webhooks (this provider's: ${known})`);
  const enabled = new Map<string, AdmissionWebhook>();
  const disabled: string[] = [];
  for (const name of all) {
    const webhook = declared?.[name];
    if (webhook && isWebhookEnabled(name, entries)) enabled.set(name, webhook);
    else disabled.push(name);
  }
  return { enabled, disabled, errors: [...new Set(errors)] };
}
