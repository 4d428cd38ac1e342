/**
 * Serving end to end: the compiled manager's HTTPS endpoint (`--secure-port`, `--bind-address`) against an
 * API emulator started here with bearer tokens and an authorizer, so that `/metrics` is guarded by real
 * TokenReview and SubjectAccessReview round trips. The simulated cloud runs here too, for the sandbox provider.
 * With `--profiling` (the default) the heap's figures, and with `--heap-snapshot` (off by default) a snapshot, are
 * fetched from the executable as an operator would (docs/performance.md, "Taking a heap snapshot").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import type { HeapStatsBody } from "../platform/heap-debug.ts";
import type { Authorizer } from "../sandbox/apiserver/auth.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../sandbox/cloud/server.ts";
import { parseV8Snapshot } from "../scripts/bench/heap-snapshot.ts";
import { freePort, listeningPorts, type RunningProcess, spawnManager, waitFor } from "./support/processes.ts";

const TOKENS = {
  "manager-token": { user: "cloud-controller-manager" },
  "reader-token": { user: "metrics-reader" },
  "nobody-token": { user: "nobody" },
};
/** The manager may do anything; the reader may only GET /metrics; everyone else is denied. */
const authorizer: Authorizer = (a) => {
  if (a.user === "cloud-controller-manager") return { allowed: true };
  if (a.user === "metrics-reader" && a.path === "/metrics" && a.verb === "get") return { allowed: true };
  return { allowed: false, reason: "no rule allows it" };
};
const LE_FLAGS = [
  "--leader-elect=true",
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=1s",
];

let dir: string;
let api: ApiServer;
let cloud: SimulatedCloud;
let where: { kubeconfig: string; cloudConfig: string };
const started: RunningProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-serving-e2e-"));
  api = await startApiServer({ tokens: TOKENS, authorizer });
  cloud = startSimulatedCloud({ token: "cloud-token" });
  const kubeconfig = await api.writeKubeconfig(join(dir, "kubeconfig"), { user: "cloud-controller-manager" });
  const cloudConfig = join(dir, "cloud.yaml");
  await writeFile(cloudConfig, `url: ${cloud.url}\ntoken: cloud-token\n`, { mode: 0o600 });
  where = { kubeconfig, cloudConfig };
});

afterAll(async () => {
  for (const p of started) p.proc.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  await api?.stop();
  await cloud?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const manager = async (extra: string[]): Promise<RunningProcess> => {
  const p = await spawnManager(where, extra);
  started.push(p);
  return p;
};

/** Waits for a line in the manager's output, failing early (with the output) if it exits. */
const waitForLine = (p: RunningProcess, line: string, timeoutMs = 60_000) =>
  waitFor(
    () => {
      if (p.proc.exitCode !== null) throw new Error(`manager exited ${p.proc.exitCode}:\n${p.output()}`);
      return p.output().includes(line);
    },
    { timeoutMs, message: `"${line}" from the manager:\n${p.output()}` },
  );

const get = (url: string, init: { token?: string; ca?: string } = {}) =>
  fetch(url, {
    keepalive: false,
    tls: init.ca ? { ca: init.ca } : { rejectUnauthorized: false },
    headers: init.token ? { authorization: `Bearer ${init.token}` } : {},
  });

const openssl = async (args: string[]) => {
  const p = Bun.spawn(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`openssl ${args.join(" ")}: ${err}`);
};

describe("the compiled manager's secure serving", () => {
  let selfSigned: RunningProcess;
  let base: string;
  let port: number;

  beforeAll(async () => {
    port = freePort();
    base = `https://127.0.0.1:${port}`;
    selfSigned = await manager([`--secure-port=${port}`, "--bind-address=127.0.0.1", ...LE_FLAGS]);
    await waitForLine(selfSigned, `serving health and metrics on ${base} (self-signed)`);
    await waitForLine(selfSigned, 'started "node-route-controller"');
  }, 120_000);

  test("/healthz, /readyz and /livez answer ok without credentials", async () => {
    for (const path of ["/healthz", "/readyz", "/livez"]) {
      const response = await get(`${base}${path}`);
      expect([path, response.status, await response.text()]).toEqual([path, 200, "ok"]);
    }
  });

  test("the generated certificate is not trusted by default: it is self-signed", async () => {
    await expect(fetch(`${base}/healthz`, { keepalive: false })).rejects.toThrow();
  });

  test("/healthz?verbose lists ping and leaderElection", async () => {
    const response = await get(`${base}/healthz?verbose`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("[+]ping ok");
    expect(text).toContain("[+]leaderElection ok");
    expect(text).toContain("healthz check passed");
  });

  test.each([
    ["no token", 401, undefined],
    ["an unknown token", 401, "made-up-token"],
    ["a known token whose SubjectAccessReview is denied", 403, "nobody-token"],
  ])("/metrics with %s answers %i", async (_, status, token) => {
    const response = await get(`${base}/metrics`, token === undefined ? {} : { token });
    expect(response.status).toBe(status);
  });

  test("/metrics with an allowed token answers Prometheus text with controller and queue metrics", async () => {
    const response = await get(`${base}/metrics`, { token: "reader-token" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain("# TYPE running_managed_controllers gauge");
    expect(text).toMatch(/running_managed_controllers\{[^}]*name="cloud-node"[^}]*\} 1/);
    expect(text).toContain("# TYPE workqueue_depth gauge");
    expect(text).toMatch(/^workqueue_depth\{name="[^"]+"\} \d+$/m);
  });

  test("--profiling (the default): /debug/heap/stats behind the same authorisation, no snapshot", async () => {
    const path = "/debug/heap/stats";
    expect((await get(`${base}${path}`)).status).toBe(401);
    expect((await get(`${base}${path}`, { token: "reader-token" })).status).toBe(403);
    const stats = await get(`${base}/debug/heap/stats?gc=1`, { token: "manager-token" });
    expect(stats.status).toBe(200);
    const body = (await stats.json()) as HeapStatsBody;
    expect(body.collected).toBeTrue();
    expect(body.jsc.heapSize).toBeGreaterThan(0);
    expect(body.proc.RssFile).toBeGreaterThan(0); // the executable's own pages
    expect(body.proc.RssAnon).toBeGreaterThan(body.jsc.heapSize);
    // A snapshot holds every secret in clear: even a token allowed everything gets none without --heap-snapshot.
    expect((await get(`${base}/debug/heap/snapshot`, { token: "manager-token" })).status).toBe(404);
  });

  test("--heap-snapshot: /debug/heap/snapshot behind the same authorisation", async () => {
    const snapPort = freePort();
    const p = await manager([`--secure-port=${snapPort}`, "--bind-address=127.0.0.1", "--heap-snapshot"]);
    await waitForLine(p, `serving health and metrics on https://127.0.0.1:${snapPort}`);
    const url = `https://127.0.0.1:${snapPort}/debug/heap/snapshot`;
    expect((await get(url)).status).toBe(401);
    expect((await get(url, { token: "reader-token" })).status).toBe(403);
    const snapshot = await get(url, { token: "manager-token" });
    expect(snapshot.status).toBe(200);
    const summary = parseV8Snapshot(await snapshot.json());
    expect(summary.totalSelfSize).toBeGreaterThan(0);
    // Grouped as Chrome DevTools' summary groups them: objects by constructor, the rest by kind.
    expect(summary.types.map((t) => t.name)).toEqual(expect.arrayContaining(["Object", "(string)", "(closure)"]));
    p.proc.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);

  test("--profiling=false: the heap's paths answer 404, as upstream's /debug/pprof/ does", async () => {
    const offPort = freePort();
    const p = await manager([
      `--secure-port=${offPort}`,
      "--bind-address=127.0.0.1",
      "--profiling=false",
      "--heap-snapshot=false",
    ]);
    await waitForLine(p, `serving health and metrics on https://127.0.0.1:${offPort}`);
    for (const path of ["/debug/heap/stats", "/debug/heap/snapshot"]) {
      const response = await get(`https://127.0.0.1:${offPort}${path}`, { token: "manager-token" });
      expect([path, response.status]).toEqual([path, 404]);
    }
    p.proc.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);

  test("given --tls-cert-file and --tls-private-key-file, that certificate is served", async () => {
    await openssl(
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"].concat([
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-subj",
        "/CN=e2e test CA",
      ]),
    );
    await openssl(
      ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tls.key", "-out", "tls.csr"].concat([
        "-subj",
        "/CN=127.0.0.1",
      ]),
    );
    await writeFile(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
    await openssl(
      ["x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial"].concat([
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "tls.crt",
      ]),
    );
    const ca = await readFile(join(dir, "ca.crt"), "utf8");
    const filesPort = freePort();
    const p = await manager([
      `--secure-port=${filesPort}`,
      "--bind-address=127.0.0.1",
      `--tls-cert-file=${join(dir, "tls.crt")}`,
      `--tls-private-key-file=${join(dir, "tls.key")}`,
    ]);
    await waitForLine(p, `serving health and metrics on https://127.0.0.1:${filesPort}`);
    expect(p.output()).not.toContain("(self-signed)");
    const response = await get(`https://127.0.0.1:${filesPort}/healthz?verbose`, { ca });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("[+]ping ok");
    expect(text).not.toContain("leaderElection"); // leader election is off in this one
    // The generated certificate of the other manager does not verify against this CA.
    await expect(fetch(`${base}/healthz`, { keepalive: false, tls: { ca } })).rejects.toThrow();
    p.proc.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);

  test("--cert-dir: the certificate generated there is served, and served again after a restart", async () => {
    const certDir = join(dir, "cert-dir");
    const dirPort = freePort();
    const run = async () => {
      const p = await manager([`--secure-port=${dirPort}`, "--bind-address=127.0.0.1", `--cert-dir=${certDir}`]);
      await waitForLine(p, `serving health and metrics on https://127.0.0.1:${dirPort}`);
      return p;
    };
    const first = await run();
    expect(first.output()).toContain(`generated a self-signed serving certificate in ${certDir}/`);
    const cert = await readFile(join(certDir, "cloud-controller-manager.crt"), "utf8");
    expect((await get(`https://localhost:${dirPort}/healthz`, { ca: cert })).status).toBe(200);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const second = await run();
    expect(second.output()).not.toContain("generated a self-signed serving certificate");
    expect((await get(`https://localhost:${dirPort}/healthz`, { ca: cert })).status).toBe(200);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);

  test("--tls-min-version=VersionTLS13 and --tls-cipher-suites reach the listener", async () => {
    const tlsPort = freePort();
    const p = await manager([
      `--secure-port=${tlsPort}`,
      "--bind-address=127.0.0.1",
      "--tls-min-version=VersionTLS13",
      "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    ]);
    await waitForLine(p, `serving health and metrics on https://127.0.0.1:${tlsPort}`);
    expect(p.output()).not.toContain("flags accepted for compatibility");
    const hello = (maxVersion: "TLSv1.2" | "TLSv1.3") =>
      new Promise<string>((resolve) => {
        const socket = connect({ host: "127.0.0.1", port: tlsPort, rejectUnauthorized: false, maxVersion }, () => {
          resolve(String(socket.getProtocol()));
          socket.destroy();
        });
        socket.on("error", () => resolve("refused"));
      });
    expect([await hello("TLSv1.2"), await hello("TLSv1.3")]).toEqual(["refused", "TLSv1.3"]);
    p.proc.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);

  test("--secure-port=0 serves nothing", async () => {
    expect(await listeningPorts(selfSigned.proc.pid)).toEqual([port]); // the probe sees a real listener
    const p = await manager(["--secure-port=0", "--bind-address=127.0.0.1"]);
    await waitForLine(p, 'started "node-route-controller"');
    expect(await listeningPorts(p.proc.pid)).toEqual([]);
    expect(p.output()).not.toContain("serving health and metrics");
    p.proc.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 90_000);

  test("SIGTERM: the process exits 0 and the port is closed", async () => {
    selfSigned.proc.kill("SIGTERM");
    const code = await Promise.race([selfSigned.exited, Bun.sleep(30_000).then(() => "still running")]);
    expect(code).toBe(0);
    expect(selfSigned.output()).toContain("successfully released lease kube-system/cloud-controller-manager");
    await expect(get(`${base}/healthz`)).rejects.toThrow();
  }, 60_000);
});
