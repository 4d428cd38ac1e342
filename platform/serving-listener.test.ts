import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { freePort } from "../scripts/lib/processes.ts";
import { createMetricsRegistry } from "./metrics.ts";
import { generateSelfSignedCert } from "./self-signed.ts";
import { SERVING_CERT_PAIR, type ServingOptions, startServing } from "./serving.ts";
import { captureLogger } from "./testing/logger.ts";
import { tlsPolicy } from "./tls-policy.ts";

const dirs: string[] = [];
const folder = async () => {
  const dir = await mkdtemp(join(tmpdir(), "serving-listener-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const start = (options: Partial<ServingOptions>) =>
  startServing({
    bindAddress: "127.0.0.1",
    port: 0,
    allowAllWithoutClient: true,
    checks: [],
    registry: createMetricsRegistry({ defaultMetrics: false }),
    logger: captureLogger().logger,
    now: Date.now,
    ...options,
  });
/** The status of /healthz, trusting only `ca` for localhost. */
const healthz = async (ca: string, port: number) =>
  (await fetch(`https://localhost:${port}/healthz`, { tls: { ca }, keepalive: false })).status;

describe("--cert-dir", () => {
  test("the pair generated there is served, and served again after a restart", async () => {
    const dir = await folder();
    const first = await start({ certDir: dir });
    const cert = await readFile(join(dir, `${SERVING_CERT_PAIR}.crt`), "utf8");
    expect(await healthz(cert, first.port)).toBe(200);
    await first.stop();
    const second = await start({ certDir: dir });
    expect(await readFile(join(dir, `${SERVING_CERT_PAIR}.crt`), "utf8")).toBe(cert);
    expect(await healthz(cert, second.port)).toBe(200);
    await second.stop();
  });

  test("is ignored when --tls-cert-file and --tls-private-key-file are given, as upstream", async () => {
    const [dir, files] = [await folder(), await folder()];
    const pair = await generateSelfSignedCert({ now: Date.now });
    const certFile = join(files, "tls.crt");
    const keyFile = join(files, "tls.key");
    await writeFile(certFile, pair.cert);
    await writeFile(keyFile, pair.key);
    const serving = await start({ certDir: dir, certFile, keyFile });
    expect(await healthz(pair.cert, serving.port)).toBe(200);
    expect(await Bun.file(join(dir, `${SERVING_CERT_PAIR}.crt`)).exists()).toBeFalse();
    await serving.stop();
  });
});

describe("--permit-port-sharing", () => {
  const CASES: [string, boolean, boolean][] = [
    ["with it, a second listener on the same port starts", true, true],
    ["without it, a second listener on the same port is refused", false, false],
  ];
  test.each(CASES)("%s", async (_, permitPortSharing, secondStarts) => {
    const port = freePort();
    const first = await start({ port, permitPortSharing });
    const second = await start({ port, permitPortSharing }).catch((err: Error) => err);
    expect(second instanceof Error ? "refused" : "listening").toBe(secondStarts ? "listening" : "refused");
    if (!(second instanceof Error)) await second.stop();
    await first.stop();
  });
});

/** What a TLS client with `options` (node:tls) negotiates with the port: protocol and suite, or "refused". */
const negotiated = (port: number, options: { maxVersion?: "TLSv1.2"; ciphers?: string }): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false, ...options }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().standardName}`);
      socket.destroy();
    });
    socket.on("error", () => resolve("refused"));
  });

describe("--tls-min-version and --tls-cipher-suites", () => {
  const TLS12 = { maxVersion: "TLSv1.2" } as const;
  const CASES: [string, { minVersion: string; cipherSuites: string[] }, Parameters<typeof negotiated>[1], string][] = [
    ["by default TLS 1.2 is served", { minVersion: "", cipherSuites: [] }, TLS12, "TLSv1.2"],
    ["VersionTLS13 refuses TLS 1.2", { minVersion: "VersionTLS13", cipherSuites: [] }, TLS12, "refused"],
    ["VersionTLS13 serves TLS 1.3", { minVersion: "VersionTLS13", cipherSuites: [] }, {}, "TLSv1.3"],
    [
      "a suite left out of the list is refused",
      { minVersion: "", cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"] },
      { ...TLS12, ciphers: "ECDHE-ECDSA-AES256-GCM-SHA384" },
      "refused",
    ],
    [
      "a suite in the list is served",
      { minVersion: "", cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"] },
      { ...TLS12, ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" },
      "TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    ],
  ];
  test.each(CASES)("%s", async (_name, flags, client, expected) => {
    const { policy, errors } = tlsPolicy({ prefix: "", ...flags });
    expect(errors).toEqual([]);
    const serving = await start({ tls: policy });
    try {
      const result = await negotiated(serving.port, client);
      expect(result.slice(0, expected.length)).toBe(expected);
    } finally {
      await serving.stop();
    }
  });
});
