/**
 * Credentials that change while the process runs: files re-read on an interval (projected service-account
 * tokens rotate hourly, client certificates are renewed on disk) and exec credential plugins.
 *
 * Why our own and not client-node's: its `FileAuth` re-reads only after 60 s of its own wall clock (not
 * testable), a kubeconfig `token-file` is read once at load and never again, and its `ExecAuth` is not exported
 * and hands plugin-issued client certificates to an undici agent that Bun ignores.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Now } from "./clock.ts";

/**
 * A file read at most once per `refreshMs`. A failed re-read keeps the last good content (a rotation in
 * progress must not break requests); only a file that was never read successfully throws.
 */
export class RefreshingFile {
  private content: string | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  constructor(
    readonly path: string,
    private readonly refreshMs: number,
    private readonly now: Now,
  ) {}

  read(): string {
    const t = this.now();
    if (this.content === undefined || t - this.readAt >= this.refreshMs) {
      try {
        this.content = readFileSync(this.path, "utf8");
      } catch (err) {
        if (this.content === undefined) throw err;
      }
      this.readAt = t;
    }
    return this.content;
  }

  /** The next `read()` goes to the disk. */
  invalidate(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }
}

/** The `exec` stanza of a kubeconfig user, as written in the file. */
export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[] | null;
  readonly env?: readonly { readonly name: string; readonly value: string }[] | null;
  readonly apiVersion?: string;
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
}

/** What a plugin returned, base64-free: PEM text and the token. */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** Epoch ms; absent ⇒ valid until a 401 invalidates it. */
  readonly expiresAt?: number;
}

export interface ExecCluster {
  readonly server: string;
  readonly caData?: string;
  readonly insecureSkipTlsVerify?: boolean;
  readonly tlsServerName?: string;
}

/**
 * How long a plugin may run (client-go has no limit; a plugin that hangs then blocks every request silently).
 * Within the manager's 10 s wait for the API server, so a hanging plugin is what that wait reports.
 */
export const EXEC_PLUGIN_TIMEOUT_MS = 10_000;

/** The failure of an exec credential plugin; the message carries the plugin's stderr and install hint. */
export class ExecPluginError extends Error {
  override readonly name = "ExecPluginError";
}

export interface ExecSourceOptions {
  readonly baseDir: string;
  readonly now: Now;
  readonly cluster?: ExecCluster;
  /** Default `EXEC_PLUGIN_TIMEOUT_MS`. */
  readonly timeoutMs?: number;
  /** The owner's lifetime: when it aborts, a running plugin is killed and no new one starts. */
  readonly signal?: AbortSignal;
}

/**
 * Runs an exec credential plugin the way kubectl does (`KUBERNETES_EXEC_INFO`, non-interactive), caches the
 * credential until its `expirationTimestamp`, and shares one run between concurrent callers.
 *
 * A plugin runs in a process group of its own, with a timeout: on timeout, when the owner's signal aborts, and
 * once the plugin has exited, the whole group is killed, so neither the plugin nor anything it forked outlives
 * its run (a forked child holding stdout open would otherwise also keep the run from ending).
 */
export class ExecCredentialSource {
  private cached: ExecCredential | undefined;
  private inflight: Promise<ExecCredential> | undefined;
  constructor(
    private readonly exec: ExecConfig,
    private readonly opts: ExecSourceOptions,
  ) {}

  /** The credential; `signal` lets one caller stop waiting (the shared run goes on for the others). */
  get(signal?: AbortSignal): Promise<ExecCredential> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || c.expiresAt > this.opts.now())) return Promise.resolve(c);
    this.inflight ??= this.run().finally(() => {
      this.inflight = undefined;
    });
    return signal ? untilAborted(this.inflight, signal) : this.inflight;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private async run(): Promise<ExecCredential> {
    const { exec } = this;
    // Like kubectl: a relative command with a path separator is relative to the kubeconfig's folder.
    const command =
      exec.command.includes("/") && !isAbsolute(exec.command) ? join(this.opts.baseDir, exec.command) : exec.command;
    const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1beta1";
    const spec: Record<string, unknown> = { interactive: false };
    if (exec.provideClusterInfo && this.opts.cluster) {
      const c = this.opts.cluster;
      spec.cluster = {
        server: c.server,
        "certificate-authority-data": c.caData,
        "insecure-skip-tls-verify": c.insecureSkipTlsVerify,
        "tls-server-name": c.tlsServerName,
      };
    }
    const env: Record<string, string | undefined> = { ...process.env };
    for (const e of exec.env ?? []) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion, kind: "ExecCredential", spec });
    const hint = exec.installHint ? `\n${exec.installHint}` : "";
    const lifetime = this.opts.signal;
    if (lifetime?.aborted) throw new ExecPluginError(`exec plugin ${command}: not started: stopping`);
    let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      proc = Bun.spawn([command, ...(exec.args ?? [])], {
        env,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        detached: true,
      });
    } catch (err) {
      throw new ExecPluginError(`exec plugin ${command}: cannot start: ${(err as Error).message}${hint}`, {
        cause: err,
      });
    }
    const timeoutMs = this.opts.timeoutMs ?? EXEC_PLUGIN_TIMEOUT_MS;
    let killedFor: string | undefined;
    const kill = (why: string) => {
      killedFor ??= why;
      killGroup(proc.pid);
    };
    const timer = setTimeout(() => kill(`no credential within ${timeoutMs / 1000}s (timed out)`), timeoutMs);
    const onStop = () => kill("stopped with the manager");
    lifetime?.addEventListener("abort", onStop, { once: true });
    let stdout: string;
    let stderr: string;
    let code: number;
    try {
      const out = new Response(proc.stdout).text();
      const err = new Response(proc.stderr).text();
      code = await proc.exited;
      killGroup(proc.pid); // whatever it forked and left behind
      [stdout, stderr] = await Promise.all([out, err]);
    } finally {
      clearTimeout(timer);
      lifetime?.removeEventListener("abort", onStop);
    }
    if (killedFor) {
      throw new ExecPluginError(`exec plugin ${command}: ${killedFor}; killed it and its children${hint}`);
    }
    if (code !== 0) {
      throw new ExecPluginError(`exec plugin ${command}: exit status ${code}: ${stderr.trim()}${hint}`);
    }
    const credential = parseExecCredential(command, stdout);
    this.cached = credential;
    return credential;
  }
}

/** SIGKILL to a plugin's whole process group (its pid: it was started as a group leader); gone is fine. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already empty
  }
}

/** `p`, or a rejection with the signal's reason once `signal` aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function parseExecCredential(command: string, stdout: string): ExecCredential {
  let obj: { kind?: unknown; status?: Record<string, unknown> };
  try {
    obj = JSON.parse(stdout);
  } catch (err) {
    throw new ExecPluginError(`exec plugin ${command}: output is not JSON`, { cause: err });
  }
  if (obj?.kind !== "ExecCredential" || typeof obj.status !== "object" || obj.status === null) {
    throw new ExecPluginError(`exec plugin ${command}: output is not an ExecCredential with a status`);
  }
  const s = obj.status;
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const token = str(s.token);
  const cert = str(s.clientCertificateData);
  const key = str(s.clientKeyData);
  if (!token && !(cert && key)) {
    throw new ExecPluginError(`exec plugin ${command}: ExecCredential has neither a token nor a certificate and key`);
  }
  const exp = str(s.expirationTimestamp);
  const expiresAt = exp === undefined ? undefined : Date.parse(exp);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) {
    throw new ExecPluginError(`exec plugin ${command}: expirationTimestamp ${exp} is not a timestamp`);
  }
  return {
    ...(token && { token }),
    ...(cert && key && { clientCertificateData: cert, clientKeyData: key }),
    ...(expiresAt !== undefined && { expiresAt }),
  };
}
