/** Small helpers shared by the kube/ tests. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConsolaInstance, createConsola, type LogObject } from "consola";
import { KubeApiError } from "../client-types.ts";
import type { Sleep } from "../clock.ts";
import type { Transport } from "../transport.ts";

/** Polls `cond` until it holds; fails after a deadline generous enough for a slow, busy machine. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await Bun.sleep(5);
  }
}

/** A logger that keeps its lines for assertions instead of printing them. */
export function memoryLogger(): ConsolaInstance & { lines: LogObject[] } {
  const lines: LogObject[] = [];
  const logger = createConsola({ level: 5, reporters: [{ log: (l) => void lines.push(l) }] });
  return Object.assign(logger, { lines });
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A clock that moves only when told to, or when something sleeps on it (the sleep returns at once). */
export function fakeClock(start = 1_700_000_000_000): {
  now: () => number;
  sleep: Sleep;
  advance(ms: number): void;
  sleeps: number[];
} {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleeps,
    advance(ms) {
      t += ms;
    },
    async sleep(ms, signal) {
      if (signal?.aborted) return;
      sleeps.push(ms);
      t += ms;
    },
  };
}

/** The `KubeApiError` `p` rejects with; fails the test when it resolves, and rethrows any other error. */
export async function apiFailure(p: Promise<unknown>): Promise<KubeApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof KubeApiError) return err;
    throw err;
  }
  throw new Error("expected a KubeApiError");
}

/** Whether `pid` is a live process (Linux: a zombie, exited but not yet reaped, counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** A transport to a plain-HTTP server (the fake API server) with no credentials. */
export const plainTransport = (url: string): Transport => ({
  server: url,
  source: "test",
  namespace: undefined,
  identity: "no user (anonymous)",
  settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
  unauthorized() {},
});
