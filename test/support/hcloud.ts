/**
 * What the hcloud end-to-end tests share: the hcloud and Robot emulators beside the API emulator, a project in
 * the shape hccm's users have (network `k8s` 10.0.0.0/16 with subnet 10.0.1.0/24, servers attached to it), the
 * environment hccm's Deployment sets (pointed at the emulators), hccm's flags, and a kubelet's registration.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import type { ApiServer } from "../../sandbox/apiserver/server.ts";
import { type HcloudEmulator, startHcloudEmulator } from "../../sandbox/hcloud/server.ts";
import { createNetwork } from "../../sandbox/hcloud/state/networks.ts";
import { createServer } from "../../sandbox/hcloud/state/servers.ts";
import type { Network, Server } from "../../sandbox/hcloud/state/types.ts";
import { type RobotEmulator, startRobotEmulator } from "../../sandbox/hrobot/server.ts";
import { startE2eApiServer, tearDown } from "./apiserver.ts";
import { executable } from "./executables.ts";
import type { RunningProcess } from "./processes.ts";
import { setNodeReady } from "./proxmox.ts";

export const hcloudToken = "e2e-hcloud-token-0123456789abcdef0123456789abcdef0123456789abcdef";
export const robotUser = "#ws+e2e";
export const robotPassword = "robot-e2e-password";

/** The arguments hccm's Deployment (deploy/ccm-networks.yaml, chart/) passes, verbatim. */
export const hccmFlags = [
  "--allow-untagged-cloud",
  "--cloud-provider=hcloud",
  "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true",
  "--route-reconciliation-period=30s",
  "--webhook-secure-port=0",
  "--allocate-node-cidrs=true",
  "--cluster-cidr=10.244.0.0/16",
  "--leader-elect=false",
];

export interface HcloudWorld {
  readonly hcloud: HcloudEmulator;
  readonly robot: RobotEmulator;
  readonly network: Network;
  /** A running `cx22` in fsn1 attached to `k8s`. */
  addServer(name: string): Server;
  /** hccm's environment for these emulators, paced for tests; `extra` adds or replaces variables. */
  env(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

export function startHcloudWorld(): HcloudWorld {
  // Actions take a moment, as Hetzner's do, so the provider's following of them is part of the test.
  const hcloud = startHcloudEmulator({ token: hcloudToken, actionDurationMs: 100 });
  const robot = startRobotEmulator({ users: [{ user: robotUser, password: robotPassword }] });
  const network = createNetwork(hcloud.world, {
    name: "k8s",
    ip_range: "10.0.0.0/16",
    subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.1.0/24" }],
  });
  return {
    hcloud,
    robot,
    network,
    addServer: (name) =>
      createServer(hcloud.world, { name, server_type: "cx22", image: "ubuntu-24.04", networks: [network.id] }).server,
    env: (extra = {}) => ({
      PATH: "/usr/bin:/bin",
      HCLOUD_TOKEN: hcloudToken,
      HCLOUD_ENDPOINT: hcloud.endpoint,
      HCLOUD_NETWORK: "k8s",
      // The emulator answers in milliseconds: pace at 20 a second, not Hetzner's 0.9, so a file takes seconds, not
      // minutes. `npm run bench -- --only=hcloud` measures the production pace against the hourly budget.
      HCLOUD_RATE_LIMIT_QPS: "20",
      HCLOUD_RATE_LIMIT_BURST: "20",
      ...extra,
    }),
    async stop() {
      await hcloud.stop();
      await robot.stop();
    },
  };
}

/** The command line: the compiled `hcloud-cloud-controller-manager`, hccm's flags, short periods, then `extra`. */
export async function hcloudManagerCommand(kubeconfig: string, extra: string[] = []): Promise<string[]> {
  return [
    await executable("hcloud"),
    ...hccmFlags,
    `--kubeconfig=${kubeconfig}`,
    "--secure-port=0",
    "--node-monitor-period=1s",
    ...extra,
  ];
}

/** A kubelet's registration under `--cloud-provider=external`: tainted uninitialized, Ready, maybe a pod CIDR. */
export async function registerNode(client: KubeClient, name: string, podCIDR?: string): Promise<void> {
  await client.create(Resources.nodes, {
    metadata: { name },
    spec: {
      taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }],
      ...(podCIDR && { podCIDR, podCIDRs: [podCIDR] }),
    },
  } satisfies Node);
  await setNodeReady(client, name, "True");
}

/** What the tests of an hcloud e2e file share; filled by `useHcloudE2e`'s `beforeAll`. */
export interface HcloudE2e {
  readonly api: ApiServer;
  /** An unthrottled client for the test's own reads and writes. */
  readonly client: KubeClient;
  readonly world: HcloudWorld;
  /** `<dir>/kubeconfig`, the file the manager is pointed at. */
  readonly kubeconfig: string;
  /** The manager a test started; killed after the file's tests. */
  manager?: RunningProcess;
}

/**
 * Registers an hcloud e2e file's hooks; call at the top level. Before all tests: a fresh folder `<tmp>/<prefix>…`,
 * the hcloud world and the API emulator with its client (a file's own `beforeAll` registered after this call runs
 * after it). After them: `tearDown` — the manager killed, the emulators stopped, the folder removed.
 */
export function useHcloudE2e(prefix: string): HcloudE2e {
  const e2e = {} as { -readonly [K in keyof HcloudE2e]: HcloudE2e[K] };
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    e2e.world = startHcloudWorld();
    Object.assign(e2e, await startE2eApiServer(dir));
  }, 60_000);
  afterAll(() => tearDown(e2e.manager, [e2e.api, e2e.world], dir));
  return e2e;
}
