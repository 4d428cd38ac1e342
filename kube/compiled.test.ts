/**
 * The TLS behaviour must hold in a compiled executable, not only under `bun test`: client-node's own request
 * path lost every TLS setting in exactly that setting (shared/reference/bun-client-node-probe.md §1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FakeApiServer } from "./testdata/fake-apiserver.ts";
import { tempDir } from "./testdata/helpers.ts";
import { createTestPki, type TestPki } from "./testdata/pki.ts";

let dir: ReturnType<typeof tempDir>;
let pki: TestPki;
let server: FakeApiServer;
let probe: string;

beforeAll(async () => {
  dir = tempDir("kube-compiled-");
  pki = createTestPki(dir.path);
  server = await FakeApiServer.start({
    tls: { cert: pki.serverCert, key: pki.serverKey, clientCa: pki.caCert },
    tokens: ["compiled-token"],
  });
  probe = join(dir.path, "tls-probe");
  const build = await Bun.build({
    entrypoints: [join(import.meta.dir, "testdata", "tls-probe.ts")],
    compile: { outfile: probe, autoloadDotenv: false, autoloadBunfig: false },
    bytecode: true,
    format: "esm",
  });
  if (!build.success) throw new Error(`build failed: ${build.logs.map(String).join("\n")}`);
});

afterAll(async () => {
  await server?.close();
  dir?.remove();
});

let seq = 0;
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const path = join(dir.path, `kubeconfig-${++seq}`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "t",
      clusters: [{ name: "c", cluster: { server: server.url, ...cluster } }],
      users: [{ name: "u", user }],
      contexts: [{ name: "t", context: { cluster: "c", user: "u" } }],
    }),
  );
  return path;
}

async function runProbe(path: string): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([probe, path], { cwd: dir.path, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out.trim());
}

describe("compiled executable", () => {
  test("verifies the server with the kubeconfig's CA and sends the token", async () => {
    expect(
      await runProbe(kubeconfig({ "certificate-authority": pki.caCertFile }, { token: "compiled-token" })),
    ).toMatchObject({
      ok: true,
    });
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer compiled-token");
  });

  test("presents the client certificate (mTLS)", async () => {
    const path = kubeconfig(
      { "certificate-authority": pki.caCertFile },
      { "client-certificate": pki.clientCertFile, "client-key": pki.clientKeyFile },
    );
    expect(await runProbe(path)).toMatchObject({ ok: true });
    expect(server.requests.at(-1)?.clientCertVerified).toBe(true);
  });

  test("rejects a server certificate from another CA", async () => {
    const before = server.requests.length;
    const out = await runProbe(
      kubeconfig({ "certificate-authority": pki.rogueCaCertFile }, { token: "compiled-token" }),
    );
    expect(out).toMatchObject({ ok: false, kubeApiError: true, status: 0, reason: "TransportFailed" });
    expect(String(out.code)).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    expect(server.requests.length).toBe(before);
  });

  test("skips verification with insecure-skip-tls-verify", async () => {
    expect(await runProbe(kubeconfig({ "insecure-skip-tls-verify": true }, { token: "compiled-token" }))).toMatchObject(
      {
        ok: true,
      },
    );
  });
});
