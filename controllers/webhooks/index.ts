/** Admission webhooks a provider declares: which `--webhooks` enables, and the endpoint that serves them. */
export { ADMISSION_API_VERSION, createWebhookHandler } from "./handler.ts";
export { isWebhookEnabled, selectWebhooks, type WebhookSelection } from "./select.ts";
export { startWebhookServing, WEBHOOK_CERT_PAIR, type WebhookServingOptions, webhookServingOff } from "./serve.ts";
