/**
 * What the digitalocean load balancer end-to-end tests share: the DigitalOcean emulator beside the API emulator,
 * Droplets registered as Nodes the way DO CCM leaves them (provider IDs, addresses, initialised), DO CCM's
 * Deployment flags (`--leader-elect=false`) and environment pointed at the emulator, and a Service's reads.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Event, Node, Service } from "../../kube/objects.ts";
import type { ApiServer } from "../../sandbox/apiserver/server.ts";
import { type DoEmulator, startDoEmulator } from "../../sandbox/digitalocean/server.ts";
import { createDroplet } from "../../sandbox/digitalocean/state/droplets.ts";
import { type LoadBalancer, listLoadBalancers } from "../../sandbox/digitalocean/state/load-balancers.ts";
import { startE2eApiServer, tearDown } from "./apiserver.ts";
import { executable } from "./executables.ts";
import { poll, type RunningProcess } from "./processes.ts";
import { setNodeReady } from "./proxmox.ts";

export const doToken = "e2e-do-token-0123456789abcdef0123456789abcdef";
export const doClusterID = "d0c5e2e0-0000-4000-8000-000000000001";
export const ID_ANNOTATION = "kubernetes.digitalocean.com/load-balancer-id";
export const ns = { namespace: "default" };

export interface DoLbE2e {
  readonly api: ApiServer;
  readonly client: KubeClient;
  readonly kubeconfig: string;
  readonly emulator: DoEmulator;
  /** The Droplets registered as Nodes. */
  readonly dropletIDs: number[];
  manager?: RunningProcess;
  /** DO CCM's environment for the emulator, paced at 20 a second (not the token's 1.25); `extra` adds or replaces. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** The compiled `digitalocean-cloud-controller-manager` with DO CCM's flags and short periods. */
  command(...extra: string[]): Promise<string[]>;
  service(name: string): Service | undefined;
  /** The load balancers, read as the API reads them (so one whose time has come is `active`). */
  lbs(): LoadBalancer[];
  /** Waits up to 90 s; on failure says what the manager said last. */
  until(what: string, check: () => boolean): Promise<void>;
  /** Whether Service `name` has a Warning event with `reason` whose message holds `text`. */
  warned(name: string, reason: string, text: string): () => boolean;
}

/**
 * Registers the file's hooks; call at the top level. Before all tests: a folder, the emulators, two Droplets as
 * Nodes. After: the manager killed, the emulators stopped, the folder removed. `lbActiveDelayMs`: how long a new
 * load balancer stays `new` (its status retry is 15 s, so 0 keeps a file of many syncs fast).
 */
export function useDoLbE2e(prefix: string, lbActiveDelayMs: number): DoLbE2e {
  const e = {} as { -readonly [K in keyof DoLbE2e]: DoLbE2e[K] };
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    const emulator = startDoEmulator({ token: doToken, lbActiveDelayMs });
    const { api, client, kubeconfig } = await startE2eApiServer(dir);
    const dropletIDs: number[] = [];
    for (const name of ["do-node-1", "do-node-2"]) {
      const droplet = createDroplet(emulator.world, { name });
      dropletIDs.push(droplet.id);
      await client.create(Resources.nodes, {
        metadata: { name },
        spec: { providerID: `digitalocean://${droplet.id}` },
      } satisfies Node);
      const addresses = [
        { type: "Hostname", address: name },
        { type: "InternalIP", address: droplet.privateV4 },
        { type: "ExternalIP", address: droplet.publicV4 },
      ];
      await client.patch(Resources.nodes, name, "merge", { status: { addresses } }, { subresource: "status" });
      await setNodeReady(client, name, "True");
    }
    Object.assign(e, {
      api,
      client,
      kubeconfig,
      emulator,
      dropletIDs,
      env: (extra: Record<string, string> = {}) => ({
        PATH: "/usr/bin:/bin",
        DO_ACCESS_TOKEN: doToken,
        DO_OVERRIDE_URL: emulator.endpoint,
        REGION: "nyc3",
        DO_CLUSTER_ID: doClusterID,
        DO_API_RATE_LIMIT_QPS: "20",
        ...extra,
      }),
      command: async (...extra: string[]) => [
        await executable("digitalocean"),
        ...extra,
        "--leader-elect=false",
        `--kubeconfig=${kubeconfig}`,
        "--secure-port=0",
        "--node-monitor-period=1s",
      ],
      service: (name: string) => {
        try {
          return api.store.get(Resources.services, name, ns) as Service;
        } catch {
          return undefined;
        }
      },
      lbs: () => listLoadBalancers(emulator.world),
      until: (what: string, check: () => boolean) =>
        poll(check, { timeoutMs: 90_000, message: what }).catch((err) => {
          throw new Error(`${(err as Error).message}\nmanager said:\n${e.manager?.output().slice(-3000)}`);
        }),
      warned: (name: string, reason: string, text: string) => () =>
        api.store
          .list<Event>(Resources.events, ns)
          .items.some(
            (ev) =>
              ev.type === "Warning" &&
              ev.reason === reason &&
              ev.involvedObject?.name === name &&
              `${ev.message ?? ""}`.includes(text),
          ),
    } satisfies Omit<DoLbE2e, "manager">);
  }, 180_000);
  afterAll(() => tearDown(e.manager, [e.api, e.emulator], dir));
  return e;
}
