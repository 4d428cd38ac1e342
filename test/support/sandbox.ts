/**
 * End-to-end harness: the compiled all-in-one runs `sandbox --controllers=false` (API emulator, simulated cloud,
 * kubelets), and tests start the controllers as separate compiled processes with the flags an operator would use.
 * Tests read and change the cluster through our client, and the cloud through its REST API (docs/sandbox.md).
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cloudApi, clusterParts, type TestCluster } from "./cluster.ts";
import { executable } from "./executables.ts";
import { type RunningProcess, spawnCollecting } from "./processes.ts";

export interface Sandbox extends TestCluster {
  /** The all-in-one running the sandbox. */
  readonly process: RunningProcess;
}

export async function startSandbox(
  opts: { nodes?: number; services?: number; args?: string[] } = {},
): Promise<Sandbox> {
  const exe = await executable();
  const dir = await mkdtemp(join(tmpdir(), "ccm-e2e-"));
  const running = spawnCollecting([
    exe,
    "sandbox",
    `--nodes=${opts.nodes ?? 3}`,
    `--services=${opts.services ?? 0}`,
    "--controllers=false",
    `--dir=${dir}`,
    ...(opts.args ?? []),
  ]);
  const deadline = Date.now() + 60_000;
  while (!running.output().includes("watch it:")) {
    if (Date.now() > deadline) throw new Error(`sandbox did not start:\n${running.output()}`);
    const exited = await Promise.race([running.exited, Bun.sleep(20).then(() => undefined)]);
    if (exited !== undefined) throw new Error(`sandbox exited with ${exited}:\n${running.output()}`);
  }
  const cloudConfig = join(dir, "cloud.yaml");
  const cfg = Bun.YAML.parse(await readFile(cloudConfig, "utf8")) as { url: string; token: string };
  const parts = clusterParts({ dir, kubeconfig: join(dir, "kubeconfig"), cloudConfig }, cloudApi(cfg.url, cfg.token));

  return {
    ...parts,
    process: running,
    async stop() {
      await parts.killManagers();
      running.proc.kill("SIGINT");
      await Promise.race([running.exited, Bun.sleep(10_000)]);
      running.proc.kill("SIGKILL");
    },
  };
}
