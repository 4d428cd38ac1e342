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
import type { Now } from "./sleep.ts";

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

/** The failure of an exec credential plugin; the message carries the plugin's stderr and install hint. */
export class ExecPluginError extends Error {
  override readonly name = "ExecPluginError";
}

/**
 * Runs an exec credential plugin the way kubectl does (`KUBERNETES_EXEC_INFO`, non-interactive), caches the
 * credential until its `expirationTimestamp`, and shares one run between concurrent callers.
 */
export class ExecCredentialSource {
  private cached: ExecCredential | undefined;
  private inflight: Promise<ExecCredential> | undefined;
  constructor(
    private readonly exec: ExecConfig,
    private readonly opts: { readonly baseDir: string; readonly now: Now; readonly cluster?: ExecCluster },
  ) {}

  get(): Promise<ExecCredential> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || c.expiresAt > this.opts.now())) return Promise.resolve(c);
    this.inflight ??= this.run().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
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
    let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      proc = Bun.spawn([command, ...(exec.args ?? [])], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    } catch (err) {
      throw new ExecPluginError(`exec plugin ${command}: cannot start: ${(err as Error).message}${hint}`, {
        cause: err,
      });
    }
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) {
      throw new ExecPluginError(`exec plugin ${command}: exit status ${code}: ${stderr.trim()}${hint}`);
    }
    const credential = parseExecCredential(command, stdout);
    this.cached = credential;
    return credential;
  }
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
