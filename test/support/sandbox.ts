/**
 * End-to-end harness: the compiled all-in-one runs `sandbox --controllers=false` (API emulator, simulated cloud,
 * kubelets), and tests start the controllers as separate compiled processes with the flags an operator would use.
 * Tests read and change the cluster through our client, and the cloud through its REST API (docs/sandbox.md).
 */
import { mkdtemp, readdir, readFile, readlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createKubeClient } from "../../kube/client.ts";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Event, Node } from "../../kube/objects.ts";
import { loadTransport } from "../../kube/transport.ts";
import { executable } from "./executables.ts";

export { waitFor } from "../../controllers/runtime/testing/fake-clock.ts";

/**
 * `waitFor` for conditions that cost an HTTP round trip or a list: checked every `everyMs` (default 100), so a
 * poll does not compete with the processes under test for a busy machine's two cores.
 */
export async function poll(
  condition: () => boolean | Promise<boolean>,
  {
    timeoutMs = 30_000,
    everyMs = 100,
    message = "condition",
  }: { timeoutMs?: number; everyMs?: number; message?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${message}`);
    await Bun.sleep(everyMs);
  }
}

export interface ManagerOptions {
  /** Run `<provider>-cloud-controller-manager` instead of the all-in-one with `--cloud-provider=sandbox`. */
  readonly provider?: string | undefined;
  /** `--cluster-cidr` (default the sandbox's 10.128.0.0/9); `""` leaves the flag out. */
  readonly clusterCIDR?: string | undefined;
}

/** The command line of a controller manager against a sandbox's files, with operator flags (plus `extra`). */
export async function managerCommand(
  files: { cloudConfig: string; kubeconfig: string },
  extra: string[] = [],
  { provider, clusterCIDR = "10.128.0.0/9" }: ManagerOptions = {},
): Promise<string[]> {
  return [
    await executable(provider),
    ...(provider ? [] : ["--cloud-provider=sandbox"]),
    `--cloud-config=${files.cloudConfig}`,
    `--kubeconfig=${files.kubeconfig}`,
    ...(clusterCIDR === "" ? [] : [`--cluster-cidr=${clusterCIDR}`]),
    "--secure-port=0",
    "--leader-elect=false",
    "--node-monitor-period=1s",
    "--route-reconciliation-period=1s",
    ...extra,
  ];
}

export interface RunningProcess {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything printed so far (stdout and stderr interleaved by arrival). */
  output(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number>;
}

/** Spawn and collect output; the process is killed when the test file's `stop` runs. */
export function spawnCollecting(cmd: string[], env: Record<string, string> = {}): RunningProcess {
  const proc = Bun.spawn(cmd, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin", ...env },
  });
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return { proc, output: () => out, exited: proc.exited };
}

/**
 * Start the controllers as a compiled process with the operator flags the e2e tests share (no serving, no leader
 * election, 1s periods), then `extra`; a later flag overrides an earlier one. The caller kills it.
 */
export async function spawnManager(
  where: { kubeconfig: string; cloudConfig: string; provider?: string | undefined; clusterCIDR?: string | undefined },
  extra: string[] = [],
): Promise<RunningProcess> {
  return spawnCollecting(await managerCommand(where, extra, where));
}

/** A TCP port on 127.0.0.1 that was free a moment ago (another process may still take it). */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/**
 * TCP ports a process listens on (Linux: its socket descriptors matched against /proc/net/tcp{,6} in LISTEN state).
 */
export async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]!);
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st … inode (index 9); st 0A = LISTEN.
      if (cols[3] === "0A" && inodes.has(cols[9] ?? "")) ports.push(Number.parseInt(cols[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

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
      address: string;
    }[]
  >;
  routes(): Promise<{ name: string; targetNode: string; destinationCIDR: string }[]>;
}

export interface Sandbox {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly cloudConfig: string;
  readonly client: KubeClient;
  readonly cloud: CloudApi;
  readonly process: RunningProcess;
  /** Start the controllers as their own compiled process, with operator flags (plus `extra`). */
  startManager(extra?: string[], opts?: ManagerOptions): Promise<RunningProcess>;
  node(name: string): Promise<Node | undefined>;
  events(objectName: string): Promise<Event[]>;
  stop(): Promise<void>;
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
  const managers: RunningProcess[] = [];
  const deadline = Date.now() + 60_000;
  while (!running.output().includes("watch it:")) {
    if (Date.now() > deadline) throw new Error(`sandbox did not start:\n${running.output()}`);
    const exited = await Promise.race([running.exited, Bun.sleep(20).then(() => undefined)]);
    if (exited !== undefined) throw new Error(`sandbox exited with ${exited}:\n${running.output()}`);
  }
  const kubeconfig = join(dir, "kubeconfig");
  const cloudConfig = join(dir, "cloud.yaml");
  const cfg = Bun.YAML.parse(await readFile(cloudConfig, "utf8")) as { url: string; token: string };
  const client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  const cloud = cloudApi(cfg.url, cfg.token);

  return {
    dir,
    kubeconfig,
    cloudConfig,
    client,
    cloud,
    process: running,
    async startManager(extra = [], opts = {}) {
      const m = await spawnManager({ kubeconfig, cloudConfig, ...opts }, extra);
      managers.push(m);
      return m;
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
    async stop() {
      for (const m of managers) m.proc.kill("SIGKILL");
      running.proc.kill("SIGINT");
      await Promise.race([running.exited, Bun.sleep(10_000)]);
      running.proc.kill("SIGKILL");
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
