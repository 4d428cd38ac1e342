/**
 * A Prometheus from Debian's package for the monitoring tier: it scrapes one compiled manager's /metrics (HTTPS, the
 * self-signed serving certificate, a bearer token the API emulator authorises for /metrics only) every second and
 * evaluates deploy/monitoring/rules.yaml with time compressed: `for: 15m` becomes 15 s (60 times) and a `[5m]`
 * range 30 s (10 times: a range must hold several of the cloud's Retry-After waits), so each alert fires within
 * a minute in a scenario made for it.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { collectOutput, freePort } from "../lib/processes.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
export const RULES = join(ROOT, "deploy", "monitoring", "rules.yaml");
export const JOB = "cloud-controller-manager";

/** rules.yaml with each `for:` in minutes read as seconds, and each range in minutes as tenths of them. */
export const compressed = (rules: string): string =>
  rules
    .replace(/for: (\d+)m\b/g, (_, n: string) => `for: ${n}s`)
    .replace(/\[(\d+)m\]/g, (_, n: string) => `[${Number(n) * 6}s]`);

export interface Sample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface Alert {
  readonly labels: Record<string, string>;
  readonly state: "pending" | "firing" | "inactive";
}

export interface Prometheus {
  readonly url: string;
  query(expr: string): Promise<Sample[]>;
  alerts(): Promise<Alert[]>;
  output(): string;
  stop(): Promise<void>;
}

export async function startPrometheus(target: { port: number; token: string }): Promise<Prometheus> {
  const dir = await mkdtemp(join(tmpdir(), "ccm-prometheus-"));
  await writeFile(join(dir, "rules.yaml"), compressed(await readFile(RULES, "utf8")));
  const port = freePort();
  const config = {
    global: { scrape_interval: "1s", evaluation_interval: "1s" },
    rule_files: [join(dir, "rules.yaml")],
    scrape_configs: [
      {
        job_name: JOB,
        scheme: "https",
        tls_config: { insecure_skip_verify: true },
        authorization: { type: "Bearer", credentials: target.token },
        static_configs: [{ targets: [`127.0.0.1:${target.port}`] }],
      },
      // Itself, for prometheus_rule_group_iterations_total: the tier counts rule evaluations instead of seconds.
      { job_name: "prometheus", static_configs: [{ targets: [`127.0.0.1:${port}`] }] },
    ],
  };
  // JSON is YAML.
  await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config, null, 2));
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn(
    [
      "prometheus",
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const out = collectOutput(proc);
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== "success") throw new Error(`Prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  const prometheus: Prometheus = {
    url,
    query: async (expr) => (await api<{ result: Sample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api<{ alerts: Alert[] }>("/api/v1/alerts")).alerts,
    output: out.text,
    async stop() {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(10_000)]);
      proc.kill("SIGKILL");
      await proc.exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return prometheus;
    if (proc.exitCode !== null || Date.now() > deadline) {
      await prometheus.stop();
      throw new Error(`prometheus did not become ready:\n${out.text().slice(-3000)}`);
    }
    await Bun.sleep(200);
  }
}
