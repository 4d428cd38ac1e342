/**
 * The two servers the conformance check talks to, behind one small interface: raw HTTP as admin (so status codes
 * and error bodies are seen as sent, not as our client interprets them), watches read for a while, and compaction
 * of the server's history. Every answer is recorded, in order, as an `Observation`.
 */
import { createConsola } from "consola";
import { startApiServer } from "../../../sandbox/apiserver/server.ts";
import { startRealServer } from "../cluster.ts";

export interface Observation {
  /** `<interaction> / <step>`: the same on both servers. */
  readonly step: string;
  readonly status: number;
  readonly body: unknown;
}

export interface Target {
  readonly name: "emulator" | "real";
  readonly observations: Observation[];
  /** One request, recorded under `step`; returns the parsed body. */
  call(step: string, method: string, path: string, body?: unknown, contentType?: string): Promise<unknown>;
  /**
   * A watch (`path` without `watch=1`), recorded under `step` as its status and the events read until `count`
   * arrived, the server ended the stream, or `ms` passed.
   */
  watch(step: string, path: string, count: number, ms?: number): Promise<unknown[]>;
  /** Forgets all history: a watch or exact list from an earlier version then gets 410. */
  compact(): Promise<void>;
  stop(): Promise<void>;
}

type Send = (
  method: string,
  path: string,
  init: { body?: string; type?: string; signal?: AbortSignal },
) => Promise<Response>;

function target(name: Target["name"], send: Send, compact: () => Promise<void>, stop: () => Promise<void>): Target {
  const observations: Observation[] = [];
  return {
    name,
    observations,
    async call(step, method, path, body, contentType = "application/json") {
      const res = await send(method, path, {
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
        type: contentType,
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: recorded as text
      }
      observations.push({ step, status: res.status, body: parsed });
      return parsed;
    },
    async watch(step, path, count, ms = 5_000) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), ms);
      const events: unknown[] = [];
      let status = 0;
      try {
        const sep = path.includes("?") ? "&" : "?";
        const res = await send("GET", `${path}${sep}watch=1`, { signal: abort.signal });
        status = res.status;
        let buffered = "";
        const decoder = new TextDecoder();
        for await (const chunk of res.body ?? []) {
          buffered += decoder.decode(chunk, { stream: true });
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
          if (events.length >= count) break;
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
      observations.push({ step, status, body: events });
      return events;
    },
    compact,
    stop,
  };
}

export async function startEmulatorTarget(): Promise<Target> {
  const api = await startApiServer({
    logger: createConsola({ level: -999 }),
    tokens: { "admin-token": { user: "admin", groups: ["system:masters"] } },
    bookmarkIntervalMs: 0,
  });
  const send: Send = (method, path, init) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: "Bearer admin-token", ...(init.body ? { "content-type": init.type ?? "" } : {}) },
      ...(init.body ? { body: init.body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  return target("emulator", send, async () => api.faults.compact(), api.stop);
}

export async function startRealTarget(): Promise<Target> {
  const server = await startRealServer();
  const send: Send = (method, path, init) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${server.adminToken}`,
        ...(init.body ? { "content-type": init.type ?? "" } : {}),
      },
      ...(init.body ? { body: init.body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      tls: { ca: server.pki.caCert },
    });
  return target(
    "real",
    send,
    async () => {
      await server.compact();
    },
    server.stop,
  );
}
