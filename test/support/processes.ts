/**
 * Compiled processes for the end-to-end tiers (the emulator's and the real API server's): spawning a controller
 * manager with the operator flags the tests share, collecting its output, and waiting on conditions.
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import type { Subprocess } from "bun";
import { collectOutput, freePort } from "../../scripts/lib/processes.ts";
import { executable } from "./executables.ts";

export { waitFor } from "../../kube/testdata/fake-clock.ts";
export { freePort };

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
  /** `--cluster-cidr` (default 10.128.0.0/9, the IPv4 half of the sandbox's); `""` leaves the flag out. */
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
  return { proc, output: collectOutput(proc).text, exited: proc.exited };
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
