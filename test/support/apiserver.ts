/**
 * The API emulator as the end-to-end tests start it: bookmarks every 2 s, its kubeconfig written into the test's
 * folder, and an unthrottled client on it for the test's own reads and writes.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createKubeClient } from "../../kube/client.ts";
import type { KubeClient } from "../../kube/client-types.ts";
import { loadTransport } from "../../kube/transport.ts";
import { type ApiServer, startApiServer } from "../../sandbox/apiserver/server.ts";
import type { RunningProcess } from "./processes.ts";

export interface E2eApiServer {
  readonly api: ApiServer;
  readonly client: KubeClient;
  /** `<dir>/kubeconfig`, the file the manager is pointed at. */
  readonly kubeconfig: string;
}

/** Start the emulator, write `<dir>/kubeconfig` for it, and open a client with no client-side rate limit. */
export async function startE2eApiServer(dir: string): Promise<E2eApiServer> {
  const api = await startApiServer({ bookmarkIntervalMs: 2_000 });
  const kubeconfig = join(dir, "kubeconfig");
  await api.writeKubeconfig(kubeconfig);
  const client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  return { api, client, kubeconfig };
}

/** Stop a started manager (if any) with `signal` and wait for it to exit. */
export async function stopManager(
  manager: RunningProcess | undefined,
  signal: "SIGKILL" | "SIGTERM" = "SIGKILL",
): Promise<void> {
  manager?.proc.kill(signal);
  await manager?.exited;
}

/**
 * An e2e file's `afterAll`: the manager killed, then each part `beforeAll` got as far as starting stopped in order
 * (undefined ones skipped), then `dir` removed.
 */
export async function tearDown(
  manager: RunningProcess | undefined,
  parts: readonly ({ stop(): Promise<unknown> } | undefined)[],
  dir: string,
): Promise<void> {
  await stopManager(manager);
  for (const part of parts) await part?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}
