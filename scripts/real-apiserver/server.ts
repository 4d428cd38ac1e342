/**
 * Start etcd and a real kube-apiserver (built by build.ts) on loopback, on random free ports, in a folder of their
 * own: client-certificate and static-token authentication, `--authorization-mode=Node,RBAC`, service-account
 * tokens (issuer, signing key; the TokenRequest API works), and an admin kubeconfig. `stop()` ends both processes
 * and removes the folder.
 *
 * ConfigMaps are served without the watch cache (`--watch-cache-sizes=configmaps#0`), so a watch on them reads
 * etcd directly and `compact()` (etcdctl) makes a watch from an older version fail with 410, as on a cluster whose
 * watch cache has moved past that version.
 */
import { closeSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { kubeconfigYaml } from "../../sandbox/apiserver/kubeconfig.ts";
import { freePort } from "../lib/processes.ts";
import { type ApiServerPki, createPki } from "./pki.ts";

export interface StaticToken {
  readonly token: string;
  readonly user: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

export interface RealApiServerOptions {
  /** Path of kube-apiserver (`ensureKubeApiserver()`). */
  readonly binary: string;
  /** Folder for certificates, etcd's data, logs and kubeconfigs; default a new temporary one (removed on stop). */
  readonly dir?: string;
  /** Tokens besides the admin's, for `--token-auth-file` (read once at start). */
  readonly tokens?: readonly StaticToken[];
  /** More kube-apiserver flags; a later flag overrides an earlier one. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for /readyz; default 120s (a busy two-core machine). */
  readonly readyTimeoutMs?: number;
}

export interface RealApiServer {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  readonly dir: string;
  readonly pki: ApiServerPki;
  readonly etcdUrl: string;
  /** A static token of the user `admin` in `system:masters`. */
  readonly adminToken: string;
  /** Path of a kubeconfig for `admin` by client certificate. */
  readonly kubeconfig: string;
  /** Writes a kubeconfig for a bearer token to `path` (mode 0600); returns the path. */
  writeKubeconfig(path: string, user: { name: string; token: string }): Promise<string>;
  /** `fetch` against the server as admin (by token), trusting its CA. */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<Response>;
  /** Compacts etcd's history up to its current revision; returns that revision. */
  compact(): Promise<number>;
  /** Resolves when either process has exited (on `stop()`, or when something else ended it). */
  readonly exited: Promise<void>;
  /** The last lines each process printed, for failure messages. */
  logs(): Promise<string>;
  stop(): Promise<void>;
}

const spawnLogged = (cmd: string[], log: string): Subprocess => {
  const fd = openSync(log, "a");
  try {
    return Bun.spawn(cmd, { stdin: "ignore", stdout: fd, stderr: fd });
  } finally {
    closeSync(fd);
  }
};

const tail = async (file: string, lines = 30): Promise<string> =>
  (await readFile(file, "utf8").catch(() => "")).trim().split("\n").slice(-lines).join("\n");

async function stopProcess(p: Subprocess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  p.kill("SIGTERM");
  const exited = await Promise.race([p.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
  if (!exited) {
    p.kill("SIGKILL");
    await p.exited;
  }
}

/** Ports are picked free but bound later by other processes; a port taken in between is tried again. */
export async function startRealApiServer(opts: RealApiServerOptions): Promise<RealApiServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(opts: RealApiServerOptions): Promise<RealApiServer> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), "ccm-real-apiserver-")));
  const ownDir = opts.dir === undefined;
  await mkdir(dir, { recursive: true });
  const pki = await createPki(dir);
  const adminToken = crypto.randomUUID().replaceAll("-", "");
  const tokens: StaticToken[] = [
    { token: adminToken, user: "admin", uid: "admin", groups: ["system:masters"] },
    ...(opts.tokens ?? []),
  ];
  const tokenFile = join(dir, "tokens.csv");
  const csv = (t: StaticToken) => `${t.token},${t.user},${t.uid ?? t.user},"${(t.groups ?? []).join(",")}"`;
  await writeFile(tokenFile, `${tokens.map(csv).join("\n")}\n`, { mode: 0o600 });

  const etcdLog = join(dir, "etcd.log");
  const apiLog = join(dir, "kube-apiserver.log");
  const [etcdPort, peerPort, apiPort] = [freePort(), freePort(), freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcd = spawnLogged(
    [
      "etcd",
      "--name=ccm",
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=ccm=${peerUrl}`,
      "--log-level=warn",
    ],
    etcdLog,
  );
  const url = `https://127.0.0.1:${apiPort}`;
  const issuer = "https://kubernetes.default.svc.cluster.local";
  const api = spawnLogged(
    [
      opts.binary,
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      "--insecure-port=0",
      `--cert-dir=${dir}`,
      `--tls-cert-file=${pki.serverCertFile}`,
      `--tls-private-key-file=${pki.serverKeyFile}`,
      `--client-ca-file=${pki.caCertFile}`,
      `--token-auth-file=${tokenFile}`,
      "--authorization-mode=Node,RBAC",
      `--service-account-issuer=${issuer}`,
      `--api-audiences=${issuer}`,
      `--service-account-key-file=${pki.saPubFile}`,
      `--service-account-signing-key-file=${pki.saKeyFile}`,
      "--service-cluster-ip-range=10.96.0.0/12",
      "--watch-cache-sizes=configmaps#0",
      "--profiling=false",
      ...(opts.extraArgs ?? []),
    ],
    apiLog,
  );

  const logs = async () =>
    `--- etcd (${etcdLog}):\n${await tail(etcdLog)}\n--- kube-apiserver (${apiLog}):\n${await tail(apiLog)}`;
  const request = (method: string, path: string, body?: unknown, contentType = "application/json") =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": contentType }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      tls: { ca: pki.caCert },
    });
  const stop = async () => {
    await stopProcess(api);
    await stopProcess(etcd);
    if (ownDir) await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitReady(request, { etcd, "kube-apiserver": api }, opts.readyTimeoutMs ?? 120_000);
  } catch (err) {
    const text = await logs();
    await stop();
    throw new Error(`the real API server did not become ready: ${(err as Error).message}\n${text}`, { cause: err });
  }
  await writeFile(join(dir, "pids"), `${api.pid}\n${etcd.pid}\n`);

  const kubeconfig = join(dir, "admin.kubeconfig");
  await writeFile(
    kubeconfig,
    kubeconfigYaml({
      name: "ccm-real",
      server: url,
      ca: pki.caCert,
      user: "admin",
      clientCert: { cert: pki.adminCert, key: pki.adminKey },
    }),
    {
      mode: 0o600,
    },
  );
  return {
    url,
    dir,
    pki,
    etcdUrl,
    adminToken,
    kubeconfig,
    async writeKubeconfig(path, user) {
      await writeFile(
        path,
        kubeconfigYaml({ name: "ccm-real", server: url, ca: pki.caCert, user: user.name, token: user.token }),
        {
          mode: 0o600,
        },
      );
      return path;
    },
    request,
    async compact() {
      const status = Bun.spawnSync(["etcdctl", `--endpoints=${etcdUrl}`, "endpoint", "status", "-w", "json"]);
      if (status.exitCode !== 0) throw new Error(`etcdctl endpoint status: ${status.stderr.toString()}`);
      const revision = (JSON.parse(status.stdout.toString()) as { Status: { header: { revision: number } } }[])[0]
        ?.Status.header.revision;
      if (revision === undefined) throw new Error(`etcdctl endpoint status said ${status.stdout.toString()}`);
      const compact = Bun.spawnSync(["etcdctl", `--endpoints=${etcdUrl}`, "compact", String(revision)]);
      if (compact.exitCode !== 0) throw new Error(`etcdctl compact ${revision}: ${compact.stderr.toString()}`);
      return revision;
    },
    exited: Promise.race([api.exited, etcd.exited]).then(() => {}),
    logs,
    stop,
  };
}

/** Until /readyz answers 200 and the namespaces the bootstrap controller makes exist. */
async function waitReady(
  request: RealApiServer["request"],
  procs: Record<string, Subprocess>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const ok = async (path: string) => (await request("GET", path).catch(() => undefined))?.status === 200;
  for (;;) {
    for (const [name, p] of Object.entries(procs)) {
      if (p.exitCode !== null || p.signalCode !== null)
        throw new Error(`${name} exited (${p.exitCode ?? p.signalCode})`);
    }
    if (
      (await ok("/readyz")) &&
      (await ok("/api/v1/namespaces/kube-system")) &&
      (await ok("/api/v1/namespaces/default"))
    )
      return;
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs}ms`);
    await Bun.sleep(250);
  }
}
