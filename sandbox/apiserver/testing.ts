/**
 * Test helpers for the emulator's HTTP tests (not used by production code): a tiny fetch wrapper, fixture
 * builders, and a watch-stream reader that waits for events with a generous deadline (never a sleep).
 */
import { afterAll, beforeAll } from "bun:test";
import type { KubeObject } from "../../kube/objects.ts";
import { type ApiServer, startApiServer } from "./server.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies.
export type Json = any;

export interface Reply {
  readonly status: number;
  readonly body: Json;
  readonly headers: Headers;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly token?: string;
  readonly accept?: string;
}

export const call = async (base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> => {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.accept) headers.accept = opts.accept;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] = opts.contentType ?? "application/json";
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text (health endpoints)
  }
  return { status: res.status, body: parsed, headers: res.headers };
};

/** `call` bound to a server. */
export const client = (base: string, token?: string) => {
  const c = (method: string, path: string, opts: CallOptions = {}) =>
    call(base, method, path, token ? { token, ...opts } : opts);
  return {
    get: (path: string, opts?: CallOptions) => c("GET", path, opts),
    post: (path: string, body: unknown) => c("POST", path, { body }),
    put: (path: string, body: unknown) => c("PUT", path, { body }),
    patch: (path: string, body: unknown, type: "merge" | "strategic" | "json") =>
      c("PATCH", path, {
        body,
        contentType: {
          merge: "application/merge-patch+json",
          strategic: "application/strategic-merge-patch+json",
          json: "application/json-patch+json",
        }[type],
      }),
    del: (path: string, body?: unknown) => c("DELETE", path, body === undefined ? {} : { body }),
  };
};

type Tweak<T> = (obj: T) => void;

/**
 * For a test file: one emulator (no bookmarks) started before its tests and stopped after them, and a client on it.
 * Read `server` and `api` inside the tests: they are set by `beforeAll`.
 */
export function emulatorPerFile(): { readonly server: ApiServer; readonly api: ReturnType<typeof client> } {
  let server: ApiServer | undefined;
  let api: ReturnType<typeof client> | undefined;
  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 0 });
    api = client(server.url);
  });
  afterAll(() => server?.stop());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the emulator is read before beforeAll started it");
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get api() {
      return started(api);
    },
  };
}

export const node = (name: string, ...tweaks: Tweak<Json>[]): Json => {
  const n: Json = { apiVersion: "v1", kind: "Node", metadata: { name }, spec: {}, status: {} };
  for (const t of tweaks) t(n);
  return n;
};

export const labels =
  (l: Record<string, string>): Tweak<Json> =>
  (o) => {
    o.metadata.labels = { ...o.metadata.labels, ...l };
  };

export const ready =
  (status: "True" | "False" | "Unknown" = "True"): Tweak<Json> =>
  (o) => {
    o.status.conditions = [
      {
        type: "Ready",
        status,
        reason: "Test",
        message: "",
        lastHeartbeatTime: "2026-01-01T00:00:00Z",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ];
  };

export const finalizers =
  (...f: string[]): Tweak<Json> =>
  (o) => {
    o.metadata.finalizers = f;
  };

export const service = (name: string, ...tweaks: Tweak<Json>[]): Json => {
  const s: Json = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name },
    spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
  };
  for (const t of tweaks) t(s);
  return s;
};

export interface WatchEvent {
  readonly type: string;
  readonly object: Json;
}

/** Reads a watch response line by line. */
export class WatchStream {
  readonly status: number;
  readonly #reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> };
  readonly #abort: AbortController;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #done = false;

  constructor(res: Response, abort: AbortController) {
    this.status = res.status;
    this.#reader = res.body!.getReader();
    this.#abort = abort;
  }

  /** The next event; throws if none arrives within `deadlineMs` or the stream ends first. */
  async next(deadlineMs = 20_000): Promise<WatchEvent> {
    const ev = await this.#nextOrEnd(deadlineMs);
    if (!ev) throw new Error("watch stream ended");
    return ev;
  }

  /** Reads to the end of the stream (within the deadline) and returns the events still received. */
  async rest(deadlineMs = 20_000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const ev = await this.#nextOrEnd(deadlineMs);
      if (!ev) return out;
      out.push(ev);
    }
  }

  close(): void {
    this.#abort.abort();
  }

  async #nextOrEnd(deadlineMs: number): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim()) return JSON.parse(line) as WatchEvent;
        continue;
      }
      if (this.#done) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("no watch event before the deadline")),
          Math.max(0, deadline - Date.now()),
        );
      });
      try {
        const { value, done } = await Promise.race([this.#reader.read(), timeout]);
        if (done) this.#done = true;
        else this.#buffer += this.#decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

export const openWatch = async (
  base: string,
  path: string,
  opts: { token?: string; accept?: string } = {},
): Promise<WatchStream> => {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.accept) headers.accept = opts.accept;
  const res = await fetch(`${base}${path}`, { headers, signal: abort.signal });
  return new WatchStream(res, abort);
};

/** A compact view of watch events for assertions: `TYPE name@rv`. */
export const brief = (ev: WatchEvent): string =>
  `${ev.type} ${(ev.object as KubeObject).metadata?.name ?? ""}@${(ev.object as KubeObject).metadata?.resourceVersion ?? ""}`;
