/**
 * The provider's admission webhooks end to end: the compiled `hcloud-cloud-controller-manager`, with hccm's flags
 * and the `CloudControllerManagerWebhook` gate on, serves `service-annotations` on `--webhook-secure-port` over
 * TLS. The test posts AdmissionReviews as the API server would: a Service with an invalid hcloud annotation is
 * refused naming it, a valid one and other kinds are allowed, each answer is counted in the webhook metrics, and a
 * rotated certificate is served without a restart. Without the gate, or with a webhook the provider does not
 * declare, nothing is served.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateSelfSignedCert, type ServingCert } from "../platform/self-signed.ts";
import { hcloudManagerCommand, useHcloudE2e } from "./support/hcloud.ts";
import { freePort, listeningPorts, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

const e2e = useHcloudE2e("ccm-webhooks-");
const GATE =
  "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true,CloudControllerManagerWebhook=true";
let first: ServingCert;
let files = { cert: "", key: "" };
let webhookPort = 0;
let securePort = 0;

beforeAll(async () => {
  first = await generateSelfSignedCert({ now: Date.now });
  const dir = join(e2e.kubeconfig, "..");
  files = { cert: join(dir, "webhook.crt"), key: join(dir, "webhook.key") };
  await writeFile(files.cert, first.cert);
  await writeFile(files.key, first.key, { mode: 0o600 });
  webhookPort = freePort();
  securePort = freePort();
  const cmd = await hcloudManagerCommand(e2e.kubeconfig, [
    GATE,
    "--webhooks=*",
    `--webhook-secure-port=${webhookPort}`,
    "--webhook-bind-address=127.0.0.1",
    `--webhook-tls-cert-file=${files.cert}`,
    `--webhook-tls-private-key-file=${files.key}`,
    `--secure-port=${securePort}`,
    "--bind-address=127.0.0.1",
    "--authorization-always-allow-paths=/healthz,/metrics",
    "--controllers=service",
  ]);
  e2e.manager = spawnCollecting(cmd, e2e.world.env());
  await poll(
    () =>
      review(serviceReview({})).then(
        () => true,
        () => false,
      ),
    {
      message: "the webhook port to answer",
    },
  );
}, 120_000);

const service = (annotations: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "default", annotations },
  spec: { type: "LoadBalancer", ports: [{ port: 80, targetPort: 8080 }] },
});
const serviceReview = (annotations: Record<string, string>, uid = "e2e-uid") => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid,
    kind: { group: "", version: "v1", kind: "Service" },
    resource: { group: "", version: "v1", resource: "services" },
    operation: "CREATE",
    namespace: "default",
    name: "web",
    object: service(annotations),
  },
});

/** POSTs `body` to the webhook as the API server does, trusting only `ca`. */
const post = (body: unknown, { path = "/service-annotations", ca = first.cert, type = "application/json" } = {}) =>
  fetch(`https://127.0.0.1:${webhookPort}${path}`, {
    method: "POST",
    headers: { "content-type": type },
    body: JSON.stringify(body),
    tls: { ca, checkServerIdentity: () => undefined },
    keepalive: false,
  });
const review = async (body: unknown) => {
  const response = await post(body);
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { response: Record<string, unknown> }).response;
};

describe("the service-annotations webhook of the compiled hcloud manager", () => {
  test("refuses a Service with an invalid hcloud annotation, naming the annotation, its value and the fix", async () => {
    const answer = await review(
      serviceReview({ "load-balancer.hetzner.cloud/health-check-port": "eighty" }, "uid-refused"),
    );
    expect(answer.uid).toBe("uid-refused");
    expect(answer.allowed).toBe(false);
    expect((answer.status as { message: string }).message).toBe(
      'Service default/web: 1 invalid load-balancer annotation: load-balancer.hetzner.cloud/health-check-port="eighty": expected an integer from 1 to 65535. Set it to a value as expected, or remove it.',
    );
  });

  test("allows a Service whose hcloud annotations are valid", async () => {
    const answer = await review(serviceReview({ "load-balancer.hetzner.cloud/health-check-port": "8080" }, "uid-ok"));
    expect(answer).toEqual({ uid: "uid-ok", allowed: true });
  });

  test("allows an object that is not a Service", async () => {
    const body = serviceReview({});
    const configMap = {
      ...body,
      request: { ...body.request, uid: "uid-cm", kind: { group: "", version: "v1", kind: "ConfigMap" } },
    };
    expect(await review(configMap)).toEqual({ uid: "uid-cm", allowed: true });
  });

  test("answers 400 to a body that is not JSON and 404 at a path no webhook has", async () => {
    expect((await post(serviceReview({}), { type: "text/plain" })).status).toBe(400);
    expect((await post(serviceReview({}), { path: "/nope" })).status).toBe(404);
  });

  test("counts every answer in the webhook metrics on the secure port", async () => {
    const scrape = () =>
      fetch(`https://127.0.0.1:${securePort}/metrics`, { tls: { rejectUnauthorized: false }, keepalive: false }).then(
        (r) => r.text(),
        () => "",
      );
    let text = "";
    await poll(
      async () => {
        text = await scrape();
        return /cloud_provider_webhook_request_total\{code="400",webhook="service-annotations"\} [1-9]/.test(text);
      },
      { message: "the 400 answer to be counted" },
    );
    expect(text).toMatch(/cloud_provider_webhook_request_total\{code="200",webhook="service-annotations"\} [1-9]/);
    expect(text).toMatch(
      /cloud_provider_webhook_request_duration_seconds_count\{code="200",webhook="service-annotations"\} [1-9]/,
    );
  });

  test("serves a rotated certificate without a restart, as the secure port does", async () => {
    const second = await generateSelfSignedCert({ now: Date.now });
    await writeFile(`${files.key}.new`, second.key, { mode: 0o600 });
    await writeFile(`${files.cert}.new`, second.cert);
    await rename(`${files.key}.new`, files.key);
    await rename(`${files.cert}.new`, files.cert);
    const trusts = (ca: string) =>
      post(serviceReview({}), { ca }).then(
        (r) => r.ok,
        () => false,
      );
    await poll(() => trusts(second.cert), { message: "the new certificate to be served" });
    expect(await trusts(first.cert)).toBeFalse();
  });
});

describe("what turns the webhooks off", () => {
  const others: RunningProcess[] = [];
  afterAll(async () => {
    for (const p of others) p.proc.kill("SIGKILL");
    await Promise.all(others.map((p) => p.exited));
  });

  test("without the CloudControllerManagerWebhook gate nothing listens, and the log says why", async () => {
    const port = freePort();
    const manager = spawnCollecting(
      await hcloudManagerCommand(e2e.kubeconfig, [
        "--webhooks=*",
        `--webhook-secure-port=${port}`,
        "--controllers=service",
      ]),
      e2e.world.env(),
    );
    others.push(manager);
    const why = "--webhooks needs --feature-gates=CloudControllerManagerWebhook=true; no webhook is served";
    await poll(() => manager.output().includes(why), { message: "the warning naming the gate" });
    expect(await listeningPorts(manager.proc.pid)).not.toContain(port);
  });

  test("a webhook the provider does not declare stops the manager, naming the ones it does", async () => {
    const manager = spawnCollecting(
      await hcloudManagerCommand(e2e.kubeconfig, [GATE, "--webhooks=service-annotations,load-balancer-names"]),
      e2e.world.env(),
    );
    others.push(manager);
    expect(await manager.exited).toBe(1);
    expect(manager.output()).toContain(
      '--webhooks: "load-balancer-names" is not in the list of known webhooks (this provider\'s: service-annotations)',
    );
  });
});
