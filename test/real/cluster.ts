/**
 * The `test:real` tier's cluster: a real kube-apiserver with etcd (scripts/real-apiserver/), the simulated cloud and
 * the simulated kubelets in this process (the kubelets create Nodes through our client, as against the emulator),
 * and controller managers as compiled processes — a `TestCluster` (test/support/cluster.ts) like the emulator's
 * `Sandbox`, with the real server in place of the emulator.
 *
 * The server binary: `CCM_REAL_APISERVER_BIN` (set by scripts/real-apiserver/test-tier.ts), else built or found in
 * the cache.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../../sandbox/cloud/server.ts";
import { startKubelets } from "../../sandbox/kubelets.ts";
import { ensureKubeApiserver } from "../../scripts/real-apiserver/build.ts";
import { type RealApiServer, type StaticToken, startRealApiServer } from "../../scripts/real-apiserver/server.ts";
import { cloudApi, clusterParts, type TestCluster } from "../support/cluster.ts";
import { type RunningProcess, spawnManager } from "../support/processes.ts";

/** Starting etcd and kube-apiserver, or building the latter on a fresh machine, needs room. */
export const START_TIMEOUT_MS = 900_000;

export async function realApiServerBinary(): Promise<string> {
  return process.env.CCM_REAL_APISERVER_BIN || ensureKubeApiserver((line) => console.error(`real-apiserver: ${line}`));
}

/** A real API server alone (for tests that make their own clients), stopped with `server.stop()`. */
export async function startRealServer(
  tokens: readonly StaticToken[] = [],
  extraArgs: readonly string[] = [],
): Promise<RealApiServer> {
  return startRealApiServer({ binary: await realApiServerBinary(), tokens, extraArgs });
}

/** Whether every Node in `cluster` has its provider ID and no longer carries the uninitialized taint. */
export async function allNodesInitialised(cluster: TestCluster): Promise<boolean> {
  return (await cluster.client.list<Node>(Resources.nodes)).items.every(
    (n) => n.spec?.providerID && !(n.spec.taints ?? []).some((t) => t.key === Taints.uninitialized),
  );
}

export interface RealCluster extends TestCluster {
  readonly server: RealApiServer;
  readonly simulated: SimulatedCloud;
  /** A manager with another kubeconfig (another identity) than the admin's. */
  startManagerAs(kubeconfig: string, extra?: string[]): Promise<RunningProcess>;
}

export async function startRealCluster(
  opts: { nodes?: number; tokens?: readonly StaticToken[]; apiServerArgs?: readonly string[] } = {},
): Promise<RealCluster> {
  const server = await startRealServer(opts.tokens, opts.apiServerArgs);
  const dir = await mkdtemp(join(tmpdir(), "ccm-real-"));
  const token = randomBytes(16).toString("hex");
  const simulated = startSimulatedCloud({ token });
  const cloudConfig = join(dir, "cloud.yaml");
  await writeFile(cloudConfig, `url: ${simulated.url}\ntoken: ${token}\n`, { mode: 0o600 });
  const parts = clusterParts({ dir, kubeconfig: server.kubeconfig, cloudConfig }, cloudApi(simulated.url, token));
  createMachines(simulated.state, opts.nodes ?? 3);
  const stopKubelets = new AbortController();
  const kubelets = startKubelets({
    client: parts.client,
    cloud: simulated.state,
    logger: createConsola({ level: -999 }),
    assignPodCIDRs: true,
    signal: stopKubelets.signal,
  });
  await kubelets.registered;

  return {
    ...parts,
    server,
    simulated,
    async startManagerAs(otherKubeconfig, extra = []) {
      return parts.track(await spawnManager({ kubeconfig: otherKubeconfig, cloudConfig }, extra));
    },
    async stop() {
      await parts.killManagers();
      stopKubelets.abort();
      await kubelets.done;
      await simulated.stop();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
