/**
 * What the end-to-end scenarios need of a cluster, whichever API server runs it: the emulator's `Sandbox`
 * (test/support/sandbox.ts, `npm test`) and the real kube-apiserver's `RealCluster` (test/real/cluster.ts,
 * `npm run test:real`) both are a `TestCluster`, and build its common parts with `clusterParts`.
 */
import { createKubeClient } from "../../kube/client.ts";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Event, Node } from "../../kube/objects.ts";
import { loadTransport } from "../../kube/transport.ts";
import { type ManagerOptions, type RunningProcess, spawnManager } from "./processes.ts";

export interface CloudApi {
  readonly url: string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  machineId(name: string): Promise<string>;
  setFaults(faults: Record<string, unknown>): Promise<void>;
  loadBalancers(): Promise<
    {
      name: string;
      serviceUID: string;
      serviceName: string;
      serviceNamespace: string;
      nodes: string[];
      ports: { port: number; nodePort: number }[];
      /** As docs/sandbox.md shows them. */
      options: {
        algorithm: string;
        healthCheck: { intervalMs: number; retries: number };
        proxyProtocol: boolean;
        allowedCIDRs: string[];
        portProtocols: Record<string, string>;
      };
      address: string;
    }[]
  >;
  routes(): Promise<{ name: string; targetNode: string; destinationCIDR: string }[]>;
}

export interface TestCluster {
  /** A temporary folder of this cluster's own, removed or left to the OS on `stop()`. */
  readonly dir: string;
  /** An admin kubeconfig (every permission). */
  readonly kubeconfig: string;
  /** The sandbox provider's cloud config: the simulated cloud's URL and token. */
  readonly cloudConfig: string;
  /** Our client, as admin. */
  readonly client: KubeClient;
  /** The simulated cloud's REST API. */
  readonly cloud: CloudApi;
  /** Start the controllers as their own compiled process, with operator flags (plus `extra`); killed on `stop()`. */
  startManager(extra?: string[], opts?: ManagerOptions): Promise<RunningProcess>;
  /** The Node, or undefined when it cannot be read (gone). */
  node(name: string): Promise<Node | undefined>;
  /** The Events about any object of that name. */
  events(objectName: string): Promise<Event[]>;
  stop(): Promise<void>;
}

/** The parts of a `TestCluster` that depend only on its files, plus what `stop()` needs to end its managers. */
export interface ClusterParts extends Omit<TestCluster, "stop"> {
  /** Adds a manager started another way (say, as another identity) to those `killManagers()` ends. */
  track(manager: RunningProcess): RunningProcess;
  /** SIGKILL every manager started; resolves when all have exited. */
  killManagers(): Promise<void>;
}

export function clusterParts(
  files: { dir: string; kubeconfig: string; cloudConfig: string },
  cloud: CloudApi,
): ClusterParts {
  const { kubeconfig, cloudConfig } = files;
  const client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  const managers: RunningProcess[] = [];
  const track = (m: RunningProcess) => {
    managers.push(m);
    return m;
  };
  return {
    ...files,
    client,
    cloud,
    track,
    async startManager(extra = [], opts = {}) {
      return track(await spawnManager({ kubeconfig, cloudConfig, ...opts }, extra));
    },
    async node(name) {
      try {
        return await client.get<Node>(Resources.nodes, name);
      } catch {
        return undefined;
      }
    },
    async events(objectName) {
      const list = await client.list<Event>(Resources.events, { fieldSelector: `involvedObject.name=${objectName}` });
      return list.items;
    },
    async killManagers() {
      for (const m of managers) m.proc.kill("SIGKILL");
      await Promise.all(managers.map((m) => m.exited));
    },
  };
}

/** A client of the simulated cloud's REST API (docs/sandbox.md). */
export function cloudApi(url: string, token: string): CloudApi {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    url,
    call,
    async machineId(name) {
      const page = await call<{ machines: { id: string }[] }>("GET", `/v1/machines?name=${encodeURIComponent(name)}`);
      const id = page.machines[0]?.id;
      if (!id) throw new Error(`no machine named ${name}`);
      return id;
    },
    async setFaults(faults) {
      await call("PUT", "/v1/faults", faults);
    },
    async loadBalancers() {
      return (
        await call<{ loadBalancers: Awaited<ReturnType<CloudApi["loadBalancers"]>> }>("GET", "/v1/load-balancers")
      ).loadBalancers;
    },
    async routes() {
      return (await call<{ routes: Awaited<ReturnType<CloudApi["routes"]>> }>("GET", "/v1/routes")).routes;
    },
  };
}
