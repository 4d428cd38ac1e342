/**
 * The cluster the deployed manager is pointed at: the all-in-one's `sandbox --controllers=false` on the host, which
 * prints `ready: …` once every node is initialised and routed and the load balancer has an address, so the
 * manager under test must do all of that for the check to pass.
 */
import { chmod, copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startSandbox as startE2eSandbox } from "../../test/support/sandbox.ts";
import { pollFor } from "../lib/processes.ts";

export interface DeploySandbox {
  /** A folder with `kubeconfig` and `cloud-config`, readable by any user (the image runs as 65532). */
  readonly configDir: string;
  /** Resolves with the sandbox's `ready:` line; rejects after `timeoutMs`, with what it printed. */
  ready(timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** The end-to-end tests' sandbox (3 nodes, 1 LoadBalancer Service), from the executables in CCM_TEST_BIN_DIR. */
export async function startSandbox(): Promise<DeploySandbox> {
  const sandbox = await startE2eSandbox({ nodes: 3, services: 1 });
  const configDir = join(sandbox.dir, "public");
  await mkdir(configDir, { mode: 0o755 });
  await copyFile(sandbox.kubeconfig, join(configDir, "kubeconfig"));
  await copyFile(sandbox.cloudConfig, join(configDir, "cloud-config"));
  for (const f of ["kubeconfig", "cloud-config"]) await chmod(join(configDir, f), 0o644);
  const output = sandbox.process.output;
  return {
    configDir,
    async ready(timeoutMs = 60_000) {
      const line = () =>
        output()
          .split("\n")
          .find((l) => l.startsWith("ready:"));
      return pollFor("the sandbox's ready: line", async () => line(), { timeoutMs }).catch((err: Error) => {
        throw new Error(`${err.message}; it printed:\n${output().slice(-3000)}`, { cause: err });
      });
    },
    stop: () => sandbox.stop(),
  };
}

/** `/healthz` of a manager serving a self-signed certificate on 127.0.0.1:`port`. */
export async function healthz(port: number): Promise<string> {
  const res = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } });
  return `${res.status} ${await res.text()}`;
}
