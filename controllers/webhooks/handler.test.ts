import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { captureLogger } from "../../platform/testing/logger.ts";
import { type AdmissionWebhook, allow, deny } from "../../providers/admission.ts";
import { controllerMetrics } from "../runtime/metrics.ts";
import { createWebhookHandler } from "./handler.ts";

const refusesConfigMaps: AdmissionWebhook = {
  type: "validating",
  description: "test",
  admit: (r) => (r.kind.kind === "ConfigMap" ? deny("no ConfigMaps here") : allow(["looked at it"])),
};
const broken: AdmissionWebhook = {
  type: "validating",
  description: "test",
  admit: () => {
    throw new Error("boom");
  },
};

function bed() {
  const registry = new Registry();
  const { logger } = captureLogger();
  let t = 1000;
  const handle = createWebhookHandler({
    webhooks: new Map([
      ["check", refusesConfigMaps],
      ["broken", broken],
    ]),
    metrics: controllerMetrics(registry),
    logger,
    now: () => (t += 250),
  });
  const counted = async () =>
    (await registry.getSingleMetric("cloud_provider_webhook_request_total")?.get())?.values.map((v) => [
      v.labels.webhook,
      v.labels.code,
      v.value,
    ]);
  return { handle, counted, registry };
}

const review = (kind: string, uid = "0f5c") => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: { uid, kind: { group: "", version: "v1", kind }, operation: "CREATE", object: {} },
});
const post = (path: string, body: unknown, type = "application/json") =>
  new Request(`https://127.0.0.1${path}`, {
    method: "POST",
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("the webhook endpoint", () => {
  test("answers a review with the webhook's verdict and the request's uid", async () => {
    const { handle } = bed();
    const response = await handle(post("/check", review("ConfigMap", "abc-1")));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: {
        uid: "abc-1",
        allowed: false,
        status: { code: 400, reason: "Invalid", message: "no ConfigMaps here" },
      },
    });
  });

  test("passes the webhook's warnings on with an allowed verdict", async () => {
    const body = (await (await bed().handle(post("/check", review("Service")))).json()) as { response: unknown };
    expect(body.response).toEqual({ uid: "0f5c", allowed: true, warnings: ["looked at it"] });
  });

  test.each<[string, Request, string]>([
    ["another content type", post("/check", review("Service"), "text/plain"), 'Content-Type: "text/plain" should be'],
    ["an empty body", post("/check", ""), "admission request HTTP body is empty"],
    ["a body that is not JSON", post("/check", "{"), "could not deserialize incoming admission review"],
    [
      "another kind of object",
      post("/check", { apiVersion: "v1", kind: "Status" }),
      "expected kind AdmissionReview of admission.k8s.io/v1",
    ],
    [
      "a review without a request",
      post("/check", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
      "Request field is nil",
    ],
  ])("refuses %s with 400, saying why", async (_, request, why) => {
    const response = await bed().handle(request);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(why);
  });

  test("answers 500 when the webhook throws", async () => {
    const response = await bed().handle(post("/broken", review("Service")));
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("error generating admission response: boom");
  });

  test("answers 404 at a path no enabled webhook has", async () => {
    expect((await bed().handle(post("/other", review("Service")))).status).toBe(404);
  });

  test("counts and times every answer by webhook and code", async () => {
    const { handle, counted, registry } = bed();
    await handle(post("/check", review("Service")));
    await handle(post("/check", review("ConfigMap")));
    await handle(post("/check", ""));
    await handle(post("/broken", review("Service")));
    expect(await counted()).toEqual([
      ["check", "200", 2],
      ["check", "400", 1],
      ["broken", "500", 1],
    ]);
    const text = await registry.metrics();
    expect(text).toContain('cloud_provider_webhook_request_duration_seconds_sum{code="200",webhook="check"} 0.5');
  });
});
