import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { captureLogger } from "../../platform/testing/logger.ts";
import { type AdmissionWebhook, allow } from "../../providers/admission.ts";
import { freePort } from "../../scripts/lib/processes.ts";
import { startWebhookServing, WEBHOOK_CERT_PAIR, webhookServingOff } from "./serve.ts";

const webhook: AdmissionWebhook = { type: "validating", description: "test", admit: () => allow() };
const one = new Map([["check", webhook]]);

describe("whether the webhook endpoint starts", () => {
  test.each<[string, Parameters<typeof webhookServingOff>[0], string | undefined]>([
    [
      "starts with the gate, a port and an enabled webhook",
      { gateEnabled: true, enabled: one, entries: ["*"], port: 10260 },
      undefined,
    ],
    [
      "is quietly off by default (no --webhooks)",
      { gateEnabled: false, enabled: new Map(), entries: [], port: 10260 },
      undefined,
    ],
    [
      "says the gate is missing",
      { gateEnabled: false, enabled: one, entries: ["*"], port: 10260 },
      "--webhooks needs --feature-gates=CloudControllerManagerWebhook=true; no webhook is served",
    ],
    [
      "says port 0 turns it off",
      { gateEnabled: true, enabled: one, entries: ["*"], port: 0 },
      "--webhook-secure-port=0 turns the webhook endpoint off",
    ],
    [
      "says when the list enables none of the provider's",
      { gateEnabled: true, enabled: new Map(), entries: ["-check"], port: 10260 },
      "--webhooks enables none of the provider's webhooks; nothing listens on --webhook-secure-port",
    ],
  ])("%s", (_, options, why) => {
    expect(webhookServingOff(options)).toBe(why);
  });
});

describe("the webhook endpoint with --webhook-cert-dir", () => {
  let dir = "";
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("serves the pair it generated there, and the same pair after a restart", async () => {
    dir = await mkdtemp(join(tmpdir(), "webhook-cert-dir-"));
    const start = () =>
      startWebhookServing({
        gateEnabled: true,
        enabled: one,
        entries: ["*"],
        bindAddress: "127.0.0.1",
        port: freePort(),
        certDir: dir,
        certFile: "",
        keyFile: "",
        registry: new Registry(),
        logger: captureLogger().logger,
        now: Date.now,
      });
    const served = async (ca: string, port: number) =>
      (await fetch(`https://localhost:${port}/other`, { tls: { ca }, keepalive: false })).status;
    const first = await start();
    if (!first) throw new Error("the endpoint did not start");
    const cert = await readFile(join(dir, `${WEBHOOK_CERT_PAIR}.crt`), "utf8");
    expect(first.selfSigned).toBeFalse();
    expect(await served(cert, first.port)).toBe(404);
    await first.stop();
    const second = await start();
    if (!second) throw new Error("the endpoint did not start again");
    expect(await served(cert, second.port)).toBe(404);
    await second.stop();
  });
});
