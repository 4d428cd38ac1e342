/**
 * The manager's webhook endpoint from its options (upstream: app/controllermanager.go `Run`, which serves the
 * webhooks before leader election, so every replica answers admission reviews).
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import { selectWebhooks, startWebhookServing } from "../controllers/webhooks/index.ts";
import type { Now } from "../kube/clock.ts";
import type { TlsListener } from "../platform/tls-listener.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import type { Options } from "./options.ts";

export const WEBHOOK_GATE = "CloudControllerManagerWebhook";

export async function startWebhooks(input: {
  readonly options: Options;
  readonly provider: CloudProvider;
  readonly logger: ConsolaInstance;
  readonly registry: Registry;
  readonly now: Now;
}): Promise<TlsListener | undefined> {
  const { options } = input;
  const selection = selectWebhooks(options.webhooks, input.provider.webhooks);
  const logger = input.logger.withTag("webhooks");
  const listener = await startWebhookServing({
    gateEnabled: options.featureGates.get(WEBHOOK_GATE) === true,
    enabled: selection.enabled,
    entries: options.webhooks,
    bindAddress: options.webhookServing.bindAddress,
    port: options.webhookSecurePort,
    certDir: options.webhookServing.certDir,
    certFile: options.webhookServing.certFile,
    keyFile: options.webhookServing.keyFile,
    tls: options.webhookServing.tls,
    registry: input.registry,
    logger,
    now: input.now,
  });
  if (listener) {
    for (const name of selection.disabled) logger.info(`webhook disabled: ${name}`);
    logger.info(`serving webhooks on ${listener.url}${listener.selfSigned ? " (self-signed)" : ""}`);
  }
  return listener;
}
