import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configError } from "../config/testing.ts";
import { createKubeClient } from "./client.ts";
import { Resources } from "./client-types.ts";
import { FakeApiServer } from "./testdata/fake-apiserver.ts";
import { apiFailure, fakeClock, tempDir } from "./testdata/helpers.ts";
import { createTestPki, type TestPki } from "./testdata/pki.ts";
import { loadTransport, type Transport } from "./transport.ts";

const TOKENS = [
  "static-token",
  "rotated-1",
  "rotated-2",
  "exec-token-1",
  "exec-token-2",
  "exec-token-3",
  "in-cluster-token",
];
let dir: ReturnType<typeof tempDir>;
let pki: TestPki;
let tlsServer: FakeApiServer;
let httpServer: FakeApiServer;

beforeAll(async () => {
  dir = tempDir("kube-transport-");
  pki = createTestPki(dir.path);
  tlsServer = await FakeApiServer.start({
    tls: { cert: pki.serverCert, key: pki.serverKey, clientCa: pki.caCert },
    tokens: TOKENS,
  });
  httpServer = await FakeApiServer.start({ tokens: TOKENS });
});

afterAll(async () => {
  await tlsServer?.close();
  await httpServer?.close();
  dir?.remove();
});

let seq = 0;
/** Writes a one-context kubeconfig (JSON is YAML) and returns its path. */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, namespace?: string): string {
  const path = join(dir.path, `kubeconfig-${++seq}`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "test",
      clusters: [{ name: "c", cluster: { server: tlsServer.url, ...cluster } }],
      users: [{ name: "u", user }],
      contexts: [{ name: "test", context: { cluster: "c", user: "u", ...(namespace && { namespace }) } }],
    }),
  );
  return path;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

async function listNodes(t: Transport): Promise<void> {
  await createKubeClient(t, { qps: 0, burst: 1, userAgent: "kube-transport-test" }).list(Resources.nodes);
}

const lastRequest = (s: FakeApiServer) => s.requests.at(-1)!;

describe("TLS", () => {
  test.each([
    ["a CA file", { "certificate-authority": "CA" }],
    ["inline CA data", { "certificate-authority-data": "CADATA" }],
  ])("verifies the server against %s and sends the bearer token", async (_, cluster) => {
    const c = JSON.parse(
      JSON.stringify(cluster).replace('"CA"', JSON.stringify(pki.caCertFile)).replace("CADATA", b64(pki.caCert)),
    );
    await listNodes(loadTransport({ kubeconfig: kubeconfig(c, { token: "static-token" }) }));
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer static-token");
  });

  test.each([
    ["signed by another CA", { "certificate-authority": "ROGUE" }],
    ["with no CA configured (not in the system trust store)", {}],
  ])("rejects a server certificate when the kubeconfig's CA is %s", async (_, cluster) => {
    const c = JSON.parse(JSON.stringify(cluster).replace('"ROGUE"', JSON.stringify(pki.rogueCaCertFile)));
    const before = tlsServer.requests.length;
    const err = await apiFailure(listNodes(loadTransport({ kubeconfig: kubeconfig(c, { token: "static-token" }) })));
    expect(err.status).toBe(0);
    expect(err.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    expect(err.message).toContain("TLS verification failed");
    expect(tlsServer.requests.length).toBe(before);
  });

  test.each([
    ["files", { "client-certificate": "CERTFILE", "client-key": "KEYFILE" }],
    ["inline data", { "client-certificate-data": "CERTDATA", "client-key-data": "KEYDATA" }],
  ])("presents the client certificate from %s", async (_, user) => {
    const u = JSON.parse(
      JSON.stringify(user)
        .replace('"CERTFILE"', JSON.stringify(pki.clientCertFile))
        .replace('"KEYFILE"', JSON.stringify(pki.clientKeyFile))
        .replace("CERTDATA", b64(pki.clientCert))
        .replace("KEYDATA", b64(pki.clientKey)),
    );
    await listNodes(loadTransport({ kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, u) }));
    const r = lastRequest(tlsServer);
    expect(r.clientCertVerified).toBe(true);
    expect(r.headers.authorization).toBeUndefined();
  });

  test("is refused (401) without a client certificate or token, so the certificate is what authenticates", async () => {
    const err = await apiFailure(
      listNodes(loadTransport({ kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, {}) })),
    );
    expect(err.status).toBe(401);
    expect(lastRequest(tlsServer).clientCertVerified).toBe(false);
  });

  test("names the credentials it used in a 401, never the secret", async () => {
    const path = kubeconfig({ "certificate-authority": pki.caCertFile }, { token: "wrong-token" });
    const err = await apiFailure(listNodes(loadTransport({ kubeconfig: path })));
    expect(err.message).toEndWith(`401 Unauthorized: Unauthorized (as user "u" (bearer token) from ${path})`);
    expect(err.message).not.toContain("wrong-token");
  });

  test("skips verification with insecure-skip-tls-verify", async () => {
    await listNodes(
      loadTransport({ kubeconfig: kubeconfig({ "insecure-skip-tls-verify": true }, { token: "static-token" }) }),
    );
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer static-token");
  });

  test("verifies against tls-server-name instead of the URL's host", async () => {
    const ok = kubeconfig(
      { "certificate-authority": pki.caCertFile, "tls-server-name": "localhost" },
      { token: "static-token" },
    );
    await listNodes(loadTransport({ kubeconfig: ok }));
    const bad = kubeconfig(
      { "certificate-authority": pki.caCertFile, "tls-server-name": "wrong.example" },
      { token: "static-token" },
    );
    const err = await apiFailure(listNodes(loadTransport({ kubeconfig: bad })));
    expect(err.status).toBe(0);
    expect(err.code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
  });
});

describe("credentials", () => {
  test("re-reads a token-file after the refresh interval, not before", async () => {
    const tokenFile = join(dir.path, "rotating-token");
    writeFileSync(tokenFile, "rotated-1\n");
    const clock = fakeClock();
    const path = kubeconfig({ "certificate-authority": pki.caCertFile }, { "token-file": tokenFile });
    const t = loadTransport({ kubeconfig: path, now: clock.now, fileRefreshMs: 60_000 });
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer rotated-1");
    writeFileSync(tokenFile, "rotated-2\n");
    clock.advance(59_000);
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer rotated-1");
    clock.advance(1_000);
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer rotated-2");
  });

  test("runs an exec plugin once, reuses its token until it expires, and again after a 401", async () => {
    const counter = join(dir.path, "exec-runs");
    writeFileSync(counter, "");
    const script = join(dir.path, "exec-plugin.sh");
    writeFileSync(
      script,
      `#!/bin/sh
echo run >> "${counter}"
n=$(wc -l < "${counter}" | tr -d ' ')
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "no exec info" >&2; exit 3;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2030-01-0%sT00:00:00Z"}}' "$TOKEN_PREFIX$n" "$n"
`,
    );
    chmodSync(script, 0o755);
    const clock = fakeClock(Date.parse("2029-12-31T23:00:00Z"));
    const exec = {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      command: script,
      env: [{ name: "TOKEN_PREFIX", value: "exec-token-" }],
    };
    const t = loadTransport({
      kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, { exec }),
      now: clock.now,
    });
    const runs = () => readFileSync(counter, "utf8").split("\n").filter(Boolean).length;
    await listNodes(t);
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer exec-token-1");
    expect(runs()).toBe(1);
    clock.advance(5_400_000); // past the first credential's expirationTimestamp, not the second's
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer exec-token-2");
    expect(runs()).toBe(2);
    tlsServer.failNext(() => true, { status: 401, body: { kind: "Status", code: 401, reason: "Unauthorized" } });
    expect((await apiFailure(listNodes(t))).status).toBe(401);
    await listNodes(t);
    expect(runs()).toBe(3);
  });

  test("uses a client certificate issued by an exec plugin", async () => {
    const script = join(dir.path, "exec-cert.sh");
    const cred = {
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey },
    };
    writeFileSync(join(dir.path, "exec-cert.json"), JSON.stringify(cred));
    writeFileSync(script, `#!/bin/sh\ncat "${join(dir.path, "exec-cert.json")}"\n`);
    chmodSync(script, 0o755);
    const exec = { apiVersion: "client.authentication.k8s.io/v1", command: script, interactiveMode: "Never" };
    await listNodes(loadTransport({ kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, { exec }) }));
    expect(lastRequest(tlsServer).clientCertVerified).toBe(true);
  });

  test("reports a failing exec plugin with its stderr", async () => {
    const script = join(dir.path, "exec-fail.sh");
    writeFileSync(script, "#!/bin/sh\necho 'login required' >&2\nexit 1\n");
    chmodSync(script, 0o755);
    const t = loadTransport({
      kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, { exec: { command: script } }),
    });
    const err = await apiFailure(listNodes(t));
    expect(err.status).toBe(0);
    expect(err.reason).toBe("CredentialsUnavailable");
    expect(err.message).toContain("login required");
  });
});

describe("identity", () => {
  test.each([
    ["a token", { token: "t" }, 'user "u" (bearer token)'],
    ["an exec plugin", { exec: { command: "get-token" } }, 'user "u" (exec plugin get-token)'],
    ["basic auth", { username: "admin", password: "p" }, 'user "u" (basic auth as admin)'],
    ["impersonation", { token: "t", as: "system:ccm" }, 'user "u" (bearer token, impersonating system:ccm)'],
    ["nothing", {}, 'user "u" (no credentials)'],
  ])("describes %s without its secret", (_name, user, want) => {
    const t = loadTransport({ kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile }, user) });
    expect(t.identity).toBe(want);
  });
});

describe("loading", () => {
  test("loads in-cluster settings from the environment and the service-account folder", async () => {
    const sa = join(dir.path, "serviceaccount");
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), "in-cluster-token");
    writeFileSync(join(sa, "ca.crt"), pki.caCert);
    writeFileSync(join(sa, "namespace"), "kube-system");
    const port = new URL(tlsServer.url).port;
    const t = loadTransport({
      kubeconfig: "",
      env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port },
      serviceAccountDir: sa,
    });
    expect(t.server).toBe(`https://127.0.0.1:${port}`);
    expect(t.namespace).toBe("kube-system");
    await listNodes(t);
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer in-cluster-token");
  });

  test("resolves relative file paths against the kubeconfig's folder, whatever the working directory", async () => {
    const sub = join(dir.path, "relative");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, "ca.crt"), pki.caCert);
    writeFileSync(join(sub, "token"), "static-token\n");
    const path = join(sub, "config");
    writeFileSync(path, readFileSync(kubeconfig({ "certificate-authority": "ca.crt" }, { "token-file": "token" })));
    await listNodes(loadTransport({ kubeconfig: path }));
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer static-token");
  });

  test("--master overrides the kubeconfig's server", async () => {
    const path = kubeconfig(
      { server: "https://127.0.0.1:1", "certificate-authority": pki.caCertFile },
      { token: "static-token" },
    );
    await listNodes(loadTransport({ kubeconfig: path, master: tlsServer.url }));
    expect(lastRequest(tlsServer).headers.authorization).toBe("Bearer static-token");
  });

  test("speaks plain HTTP to an http:// server", async () => {
    const path = kubeconfig({ server: httpServer.url }, { token: "static-token" });
    const t = loadTransport({ kubeconfig: path });
    expect((await t.settings()).tls).toBeUndefined();
    await listNodes(t);
    expect(lastRequest(httpServer).headers["user-agent"]).toBe("kube-transport-test");
  });

  test("follows KUBECONFIG (skipping missing files), then ~/.kube/config", () => {
    const path = kubeconfig({}, { token: "static-token" }, "from-env");
    const env = { KUBECONFIG: `${join(dir.path, "missing")}:${path}` };
    expect(loadTransport({ env }).namespace).toBe("from-env");
    const home = join(dir.path, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    writeFileSync(join(home, ".kube", "config"), readFileSync(kubeconfig({}, {}, "from-home")));
    expect(loadTransport({ env: {}, homeDir: home }).namespace).toBe("from-home");
  });

  test.each([
    ["a missing file", () => ({ kubeconfig: join(dir.path, "nope") }), /kubeconfig .*nope/],
    [
      "an unknown context",
      () => ({ kubeconfig: kubeconfig({}, {}), context: "other" }),
      /context other does not exist/,
    ],
    ["nothing to load", () => ({ env: {}, homeDir: join(dir.path, "empty-home") }), /none found/],
    [
      "an unreadable CA file",
      () => ({ kubeconfig: kubeconfig({ "certificate-authority": join(dir.path, "no-ca.crt") }, {}) }),
      /certificate-authority .*no-ca\.crt: cannot be read/,
    ],
    [
      "a certificate without its key",
      () => ({ kubeconfig: kubeconfig({}, { "client-certificate": pki.clientCertFile }) }),
      /client-certificate and client-key must be given together/,
    ],
    [
      "a CA together with insecure-skip-tls-verify",
      () => ({
        kubeconfig: kubeconfig({ "certificate-authority": pki.caCertFile, "insecure-skip-tls-verify": true }, {}),
      }),
      /not allowed/,
    ],
    [
      "a server that is not a URL",
      () => ({ kubeconfig: kubeconfig({ server: "nope" }, {}) }),
      /server: nope is not a URL/,
    ],
    [
      "an unsupported auth-provider",
      () => ({ kubeconfig: kubeconfig({}, { "auth-provider": { name: "oidc", config: {} } }) }),
      /oidc is not supported/,
    ],
  ])("names the kubeconfig and the problem for %s", (_, opts, message) => {
    const err = configError(() => loadTransport(opts()));
    expect(err.message).toMatch(message);
  });
});
