/**
 * Test support for the cloud-API kit: a real HTTP server on loopback that answers from a script and records what
 * it received, and a clock whose `sleep` records the wait and moves time on instead of waiting. Nothing in
 * production imports this file.
 */
import { afterEach, beforeEach } from "bun:test";
import type { Server } from "bun";
import { Registry } from "prom-client";
import { CloudApiClient, type CloudApiClientOptions } from "./client.ts";

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

/** What `useTestBed` gives each test afresh: the server, the clock, the registry, and clients over them. */
export interface TestBed {
  readonly server: TestServer;
  readonly clock: ReturnType<typeof steppingClock>;
  readonly registry: Registry;
  /** A client of the server (at `path` under its URL) on the stepping clock, recording into the registry. */
  client(options?: Partial<CloudApiClientOptions>): CloudApiClient;
}

/**
 * Registers hooks that give every test of the file a new server, clock and registry, stopped after it; call at the
 * top level. `defaults` are the file's client options (name, provider, auth …); jitter is fixed at the middle.
 */
export function useTestBed(
  defaults: Pick<CloudApiClientOptions, "name" | "provider"> & Partial<CloudApiClientOptions> & { path?: string },
): TestBed {
  let current: { server: TestServer; clock: ReturnType<typeof steppingClock>; registry: Registry } | undefined;
  beforeEach(() => {
    current = { server: startTestServer(), clock: steppingClock(), registry: new Registry() };
  });
  afterEach(async () => {
    current?.server.release();
    await current?.server.stop();
  });
  const bed = () => {
    if (!current) throw new Error("useTestBed: used outside a test");
    return current;
  };
  const { path = "", ...options } = defaults;
  return {
    get server() {
      return bed().server;
    },
    get clock() {
      return bed().clock;
    },
    get registry() {
      return bed().registry;
    },
    client: (more = {}) => {
      const { server, clock, registry } = bed();
      return new CloudApiClient({
        baseUrl: `${server.url}${path}`,
        timeoutMs: 30_000,
        metrics: registry,
        now: clock.now,
        sleep: clock.sleep,
        random: () => 0.5,
        ...options,
        ...more,
      });
    },
  };
}
