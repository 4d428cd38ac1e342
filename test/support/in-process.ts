/**
 * End-to-end harness for tests that must reach inside the cluster while the compiled manager runs against it: the
 * API emulator, the simulated cloud and the kubelets run in the test's own process (so a test can inject API faults,
 * read the cloud's state directly, or change what the emulator authorises), and the manager is started by the test
 * from `files`. `test/support/sandbox.ts` is the other harness, where the sandbox runs as its own compiled process.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { createKubeClient } from "../../kube/client.ts";
import type { KubeClient } from "../../kube/client-types.ts";
import { loadTransport } from "../../kube/transport.ts";
import { type ApiServer, type ApiServerOptions, startApiServer } from "../../sandbox/apiserver/server.ts";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../../sandbox/cloud/server.ts";
import { startKubelets } from "../../sandbox/kubelets.ts";

export interface InProcessClusterOptions {
  /** Machines created in the cloud, each registered as a Node by a kubelet before `startInProcessCluster` resolves. */
  readonly machines: number;
  readonly api?: ApiServerOptions;
  /** The user the manager's kubeconfig authenticates as (one of `api.tokens`); default the emulator's admin. */
  readonly managerUser?: string;
  /** Give Nodes pod CIDRs, as kube-controller-manager's IPAM would (for the route controller). */
  readonly assignPodCIDRs?: boolean;
  /** The folder's name prefix in the temp dir. */
  readonly name: string;
}

export interface InProcessCluster {
  readonly api: ApiServer;
  readonly cloud: SimulatedCloud;
  /** The cloud's token, as written into `files.cloudConfig`. */
  readonly cloudToken: string;
  /** The emulator's admin, for the test's own reads and writes. */
  readonly client: KubeClient;
  /** For the manager: `--kubeconfig` and `--cloud-config` (the sandbox provider's URL and token). */
  readonly files: { readonly kubeconfig: string; readonly cloudConfig: string };
  /** Stops the kubelets, the cloud and the emulator, and removes the folder. Stop the managers first. */
  stop(): Promise<void>;
}

export async function startInProcessCluster(o: InProcessClusterOptions): Promise<InProcessCluster> {
  const dir = await mkdtemp(join(tmpdir(), `ccm-${o.name}-`));
  const api = await startApiServer(o.api);
  const cloudToken = randomBytes(16).toString("hex");
  const cloud = startSimulatedCloud({ token: cloudToken });
  const files = {
    kubeconfig: await api.writeKubeconfig(join(dir, "kubeconfig"), o.managerUser ? { user: o.managerUser } : {}),
    cloudConfig: join(dir, "cloud.yaml"),
  };
  await writeFile(files.cloudConfig, `url: ${cloud.url}\ntoken: ${cloudToken}\n`, { mode: 0o600 });
  const admin = await api.writeKubeconfig(join(dir, "admin.kubeconfig"));
  const client = createKubeClient(loadTransport({ kubeconfig: admin }), { qps: 0, burst: 0, userAgent: "e2e" });
  createMachines(cloud.state, o.machines);
  const stopKubelets = new AbortController();
  const kubelets = startKubelets({
    client,
    cloud: cloud.state,
    logger: createConsola({ level: -999 }),
    ...(o.assignPodCIDRs && { assignPodCIDRs: true }),
    signal: stopKubelets.signal,
  });
  await kubelets.registered;
  return {
    api,
    cloud,
    cloudToken,
    client,
    files,
    async stop() {
      stopKubelets.abort();
      await kubelets.done;
      await cloud.stop();
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
