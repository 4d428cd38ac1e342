/**
 * Test support for the cloud-API kit: a real HTTP server on loopback that answers from a script and records what
 * it received, and a clock whose `sleep` records the wait and moves time on instead of waiting. Nothing in
 * production imports this file.
 */
import type { Server } from "bun";

export interface Received {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

/** What the server answers the `n`th request (from 0) with; may wait (a held answer) or throw. */
export type Script = (request: Received, n: number) => Response | Promise<Response>;

export interface TestServer {
  readonly url: string;
  readonly received: Received[];
  /** Replace the script. */
  answer(script: Script): void;
  /** Let every held answer (`hold()`) go. */
  release(): void;
  /** A promise that settles on `release()`, for answers that must not come before the client gives up. */
  hold(): Promise<void>;
  stop(): Promise<void>;
}

export function startTestServer(): TestServer {
  const received: Received[] = [];
  const held: (() => void)[] = [];
  let script: Script = () => Response.json({});
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const r = { method: request.method, path: url.pathname + url.search, headers: request.headers };
      const entry = { ...r, body: await request.text() };
      received.push(entry);
      return script(entry, received.length - 1);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    answer: (s) => {
      script = s;
    },
    release: () => {
      for (const go of held.splice(0)) go();
    },
    hold: () => new Promise<void>((resolve) => held.push(resolve)),
    stop: () => server.stop(true),
  };
}

/** An error answer in the common `{"error": {"code", "message"}}` shape. */
export const errorAnswer = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { code, message } }, { status, headers });

/** A clock that only moves when slept on: `sleep` records each wait and advances `now` by it. */
export function steppingClock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let t = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) return;
      waits.push(ms);
      t += ms;
    },
  };
}
