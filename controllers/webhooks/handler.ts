/**
 * The webhook port's handler (upstream: app/webhooks.go `newHandler`, `WebhookHandler.ServeHTTP`, `parseRequest`):
 * each enabled webhook at `/<name>`; a POST of an `admission.k8s.io/v1` `AdmissionReview` is answered with the
 * same review carrying the webhook's verdict and the request's `uid`.
 *
 * As upstream: a body that is not JSON (by `Content-Type` or content), empty, or without `request` is a 400 naming
 * why; a webhook that throws is a 500; both are text, which the API server treats by the configuration's
 * `failurePolicy`. Every answer is counted in `cloud_provider_webhook_request_total` and timed in
 * `cloud_provider_webhook_request_duration_seconds` by code and webhook name. Upstream leaves the successful
 * answers out of both (its deferred recorder sees no status code on success); they are counted here as `200`, so the
 * rate of admissions is visible, not only their failures.
 */
import type { ConsolaInstance } from "consola";
import type { Now } from "../../kube/clock.ts";
import type { AdmissionRequest, AdmissionWebhook } from "../../providers/admission.ts";
import type { ControllerMetrics } from "../runtime/metrics.ts";

export const ADMISSION_API_VERSION = "admission.k8s.io/v1";

export interface WebhookHandlerDeps {
  readonly webhooks: ReadonlyMap<string, AdmissionWebhook>;
  readonly metrics: Pick<ControllerMetrics, "webhookRequests" | "webhookRequestDuration">;
  readonly logger: ConsolaInstance;
  readonly now: Now;
}

class BadReview extends Error {
  override readonly name = "BadReview";
}

const text = (status: number, body: string) =>
  new Response(`${body}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** The review's request, or a `BadReview` saying what is wrong with the body. */
export async function parseReview(request: Request): Promise<AdmissionRequest> {
  const type = request.headers.get("content-type") ?? "";
  if (type.split(";")[0]?.trim() !== "application/json") {
    throw new BadReview(`Content-Type: ${JSON.stringify(type)} should be "application/json"`);
  }
  const body = await request.text();
  if (body.length === 0) throw new BadReview("admission request HTTP body is empty");
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (err) {
    throw new BadReview(`could not deserialize incoming admission review: ${(err as Error).message}`);
  }
  if (!isObject(review) || review.kind !== "AdmissionReview" || review.apiVersion !== ADMISSION_API_VERSION) {
    throw new BadReview(
      `could not deserialize incoming admission review: expected kind AdmissionReview of ${ADMISSION_API_VERSION}`,
    );
  }
  const r = review.request;
  if (r === undefined || r === null) throw new BadReview("admission review can't be used: Request field is nil");
  if (!isObject(r) || typeof r.uid !== "string" || !isObject(r.kind) || typeof r.operation !== "string") {
    throw new BadReview("admission review can't be used: request needs uid, kind and operation");
  }
  return r as unknown as AdmissionRequest;
}

export function createWebhookHandler(deps: WebhookHandlerDeps): (request: Request) => Promise<Response> {
  const { webhooks, metrics, logger, now } = deps;
  return async (request) => {
    const path = new URL(request.url).pathname;
    const name = path.slice(1);
    const webhook = webhooks.get(name);
    if (!webhook) return text(404, "404 page not found");
    const started = now();
    const record = (code: string) => {
      metrics.webhookRequests.inc({ code, webhook: name });
      metrics.webhookRequestDuration.observe({ code, webhook: name }, (now() - started) / 1000);
    };
    let review: AdmissionRequest;
    try {
      review = await parseReview(request);
    } catch (err) {
      const message = (err as Error).message;
      logger.error(`webhook ${name}: ${message}`);
      record("400");
      return text(400, message);
    }
    let verdict: ReturnType<AdmissionWebhook["admit"]>;
    try {
      verdict = webhook.admit(review);
    } catch (err) {
      const message = `error generating admission response: ${(err as Error).message}`;
      logger.error(`webhook ${name}: ${message}`);
      record("500");
      return text(500, message);
    }
    const subject = `${review.operation} ${review.kind.kind} ${review.namespace ? `${review.namespace}/` : ""}${review.name ?? ""}`;
    if (verdict.allowed) logger.debug(`webhook ${name}: allowed ${subject}`);
    else logger.info(`webhook ${name}: denied ${subject}: ${verdict.status?.message ?? ""}`);
    record("200");
    const response = {
      apiVersion: ADMISSION_API_VERSION,
      kind: "AdmissionReview",
      response: {
        uid: review.uid,
        ...verdict,
        ...(verdict.patch && {
          patchType: "JSONPatch",
          patch: Buffer.from(JSON.stringify(verdict.patch)).toString("base64"),
        }),
      },
    };
    return new Response(JSON.stringify(response), { headers: { "content-type": "application/json" } });
  };
}
