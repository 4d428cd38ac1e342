/**
 * The webhook endpoint (upstream: app/controllermanager.go `Run`, options/webhook.go `WebhookServingOptions.ApplyTo`):
 * the enabled webhooks served on `--webhook-bind-address`:`--webhook-secure-port` over TLS, on every replica
 * (admission does not wait for leadership), with the secure port's certificate handling: `--webhook-tls-cert-file`
 * and `--webhook-tls-private-key-file` reloaded when they change; else a pair kept in `--webhook-cert-dir`
 * (`cloud-controller-manager-webhook.crt`/`.key`, generated there when missing); else one generated in memory for
 * localhost. The endpoint asks no credentials, as upstream's: the API server calls it, and it only answers reviews.
 *
 * Nothing listens unless the `CloudControllerManagerWebhook` gate is on, the port is not 0, and `--webhooks`
 * enables at least one webhook.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { Now } from "../../kube/clock.ts";
import { servingCertFiles } from "../../platform/self-signed.ts";
import { listenTls, type TlsListener } from "../../platform/tls-listener.ts";
import type { TlsPolicy } from "../../platform/tls-policy.ts";
import type { AdmissionWebhook } from "../../providers/admission.ts";
import { controllerMetrics } from "../runtime/metrics.ts";
import { createWebhookHandler } from "./handler.ts";

/** Upstream's `PairName` for the webhook's generated certificate. */
export const WEBHOOK_CERT_PAIR = "cloud-controller-manager-webhook";

export interface WebhookServingOptions {
  readonly gateEnabled: boolean;
  readonly enabled: ReadonlyMap<string, AdmissionWebhook>;
  /** `--webhooks` as given: with the gate off, a non-empty list is named in a warning. */
  readonly entries: readonly string[];
  readonly bindAddress: string;
  readonly port: number;
  readonly certDir: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** `--webhook-tls-min-version` and `--webhook-tls-cipher-suites`. */
  readonly tls?: TlsPolicy;
  readonly registry: Registry;
  readonly logger: ConsolaInstance;
  readonly now: Now;
  /** Tests shorten the certificate files' check. */
  readonly certReloadIntervalMs?: number;
}

/** Why nothing is served, or `undefined` when the endpoint starts. */
export function webhookServingOff(
  o: Pick<WebhookServingOptions, "gateEnabled" | "enabled" | "entries" | "port">,
): string | undefined {
  if (o.port === 0) return o.entries.length > 0 ? "--webhook-secure-port=0 turns the webhook endpoint off" : undefined;
  if (o.entries.length === 0) return undefined;
  if (!o.gateEnabled)
    return "--webhooks needs --feature-gates=CloudControllerManagerWebhook=true; no webhook is served";
  if (o.enabled.size === 0)
    return "--webhooks enables none of the provider's webhooks; nothing listens on --webhook-secure-port";
  return undefined;
}

export async function startWebhookServing(o: WebhookServingOptions): Promise<TlsListener | undefined> {
  const off = webhookServingOff(o);
  if (off) o.logger.warn(off);
  if (off !== undefined || o.port === 0 || o.entries.length === 0) return undefined;
  const { certFile, keyFile, generated } = await servingCertFiles({ ...o, pairName: WEBHOOK_CERT_PAIR });
  if (generated) o.logger.info(`generated a self-signed webhook certificate in ${certFile}`);
  for (const [name, webhook] of o.enabled)
    o.logger.info(`webhook enabled: ${name} (${webhook.type}): ${webhook.description}`);
  return listenTls({
    bindAddress: o.bindAddress,
    port: o.port,
    certFile,
    keyFile,
    ...(o.tls && { tls: o.tls }),
    handle: createWebhookHandler({
      webhooks: o.enabled,
      metrics: controllerMetrics(o.registry),
      logger: o.logger,
      now: o.now,
    }),
    logger: o.logger,
    now: o.now,
    ...(o.certReloadIntervalMs !== undefined && { certReloadIntervalMs: o.certReloadIntervalMs }),
  });
}
