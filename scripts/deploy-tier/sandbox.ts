/**
 * The cluster the deployed manager is pointed at: the all-in-one's `sandbox --controllers=false` on the host, which
 * prints `ready: …` once every node is initialised and routed and the load balancer has an address, so the
 * manager under test must do all of that for the check to pass.
 */
import { chmod, copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectOutput } from "../lib/processes.ts";

export interface DeploySandbox {
  /** A folder with `kubeconfig` and `cloud-config`, readable by any user (the image runs as 65532). */
  readonly configDir: string;
  /** Resolves when the sandbox prints `ready:`; rejects after `timeoutMs`, with what it printed. */
  ready(timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startSandbox(allInOne: string): Promise<DeploySandbox> {
  const dir = await mkdtemp(join(tmpdir(), "ccm-deploy-sandbox-"));
  const proc = Bun.spawn([allInOne, "sandbox", "--controllers=false", "--nodes=3", `--dir=${dir}`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collectOutput(proc).text;
  const until = async (text: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!output().includes(text)) {
      if (Date.now() > deadline || proc.exitCode !== null) {
        throw new Error(`the sandbox did not print "${text}" in ${timeoutMs / 1000}s:\n${output().slice(-3000)}`);
      }
      await Bun.sleep(50);
    }
    const all = output();
    return all.slice(all.indexOf(text)).split("\n")[0] ?? "";
  };
  await until("watch it:", 30_000);
  const configDir = join(dir, "public");
  await Bun.write(join(configDir, ".keep"), "");
  await copyFile(join(dir, "kubeconfig"), join(configDir, "kubeconfig"));
  await copyFile(join(dir, "cloud.yaml"), join(configDir, "cloud-config"));
  await chmod(configDir, 0o755);
  for (const f of ["kubeconfig", "cloud-config"]) await chmod(join(configDir, f), 0o644);
  return {
    configDir,
    ready: (timeoutMs = 60_000) => until("ready:", timeoutMs),
    async stop() {
      proc.kill("SIGINT");
      await Promise.race([proc.exited, Bun.sleep(10_000)]);
      proc.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `/healthz` of a manager serving a self-signed certificate on 127.0.0.1:`port`. */
export async function healthz(port: number): Promise<string> {
  const res = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } });
  return `${res.status} ${await res.text()}`;
}
