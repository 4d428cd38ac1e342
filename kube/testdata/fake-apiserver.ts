/**
 * A small Kubernetes API server for the kube/ tests, on node:http(s) so TLS tests can ask for client
 * certificates. It records every request, checks bearer tokens or a verified client certificate, pages lists,
 * serves chunked watches that replay from a resourceVersion, and can misbehave on cue: injected error answers,
 * watches closed, reset or silenced, history compacted (410 as an HTTP answer or an ERROR event), and an event
 * split across two writes.
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { type Change, FakeStore, type Obj, StoreError } from "./fake-store.ts";

export interface FakeApiServerOptions {
  /** Serve HTTPS; with `clientCa`, ask for client certificates (verified against it, not required). */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCa?: string };
  /** When set, a request needs one of these bearer tokens or a verified client certificate. */
  readonly tokens?: readonly string[];
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly clientCertVerified: boolean;
  readonly body: string;
}

export interface Answer {
  readonly status: number;
  /** An object is sent as JSON, a string as is. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Watcher {
  readonly res: http.ServerResponse;
  readonly collection: string;
  readonly namespace: string | undefined;
  readonly bookmarks: boolean;
  dead: boolean;
  chain: Promise<void>;
}

export const statusBody = (code: number, reason: string, message: string, details?: object) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  code,
  ...(details && { details }),
});

/** `/api/v1[/namespaces/ns]/plural[/name[/sub]]` or `/apis/g/v/...`. */
function parsePath(path: string) {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const core = parts[0] === "api";
  const [group, version] = core ? ["", parts[1]] : [parts[1], parts[2]];
  let rest = parts.slice(core ? 2 : 3);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  return { collection: `${group}/${version}/${rest[0]}`, namespace, name: rest[1], sub: rest[2] };
}

export class FakeApiServer {
  readonly store = new FakeStore();
  readonly requests: RecordedRequest[] = [];
  readonly watchers = new Set<Watcher>();
  /** Watch requests answered with a stream. */
  watchRequests = 0;
  /** How 410 for an old resourceVersion is told: an HTTP answer, or an ERROR event on a 200 stream. */
  goneAs: "http" | "event" = "http";
  /** The next event goes out in two writes, cut in the middle of its JSON. */
  splitNextEvent = false;
  /** Continue tokens answer 410 (expired). */
  expireContinue = false;
  url = "";
  private readonly failures: { match: (r: RecordedRequest) => boolean; answer: Answer; left: number }[] = [];
  private server!: http.Server;

  static async start(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    const s = new FakeApiServer(opts);
    await s.listen();
    return s;
  }

  private constructor(private readonly opts: FakeApiServerOptions) {
    this.store.onChange((c) => {
      for (const w of this.watchers) if (this.matches(w, c)) this.send(w, { type: c.type, object: c.object });
    });
  }

  /** The next `times` requests matching answer this instead. */
  failNext(match: (r: RecordedRequest) => boolean, answer: Answer, times = 1): void {
    this.failures.push({ match, answer, left: times });
  }

  /** End every open watch cleanly. */
  closeWatches(): void {
    for (const w of this.watchers) w.res.end();
  }

  /** Reset every open watch's connection. */
  destroyWatches(): void {
    for (const w of this.watchers) w.res.socket?.destroy();
  }

  /** Open watches stay open but receive nothing more, like a half-open TCP connection. */
  silenceWatches(): void {
    for (const w of this.watchers) w.dead = true;
  }

  bookmark(): void {
    const object = { kind: "Bookmark", apiVersion: "v1", metadata: { resourceVersion: String(this.store.rv) } };
    for (const w of this.watchers) if (w.bookmarks) this.send(w, { type: "BOOKMARK", object });
  }

  liveWatchers(): number {
    return [...this.watchers].filter((w) => !w.dead).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async listen(): Promise<void> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    const t = this.opts.tls;
    this.server = t
      ? https.createServer(
          {
            cert: t.cert,
            key: t.key,
            ...(t.clientCa && { ca: t.clientCa, requestCert: true, rejectUnauthorized: false }),
          },
          handler,
        )
      : http.createServer(handler);
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
    const port = (this.server.address() as AddressInfo).port;
    this.url = `${t ? "https" : "http"}://127.0.0.1:${port}`;
  }

  private matches(w: Watcher, c: Change): boolean {
    return c.collection === w.collection && (!w.namespace || c.object.metadata.namespace === w.namespace);
  }

  private send(w: Watcher, ev: { type: string; object: unknown }): void {
    const line = `${JSON.stringify(ev)}\n`;
    const split = this.splitNextEvent;
    this.splitNextEvent = false;
    // Chained so a split event's second half goes out before anything sent after it.
    w.chain = w.chain.then(async () => {
      if (w.dead || w.res.writableEnded) return;
      if (!split) {
        w.res.write(line);
        return;
      }
      const cut = Math.floor(line.length / 2);
      w.res.write(line.slice(0, cut));
      await Bun.sleep(30);
      if (!w.dead && !w.res.writableEnded) w.res.write(line.slice(cut));
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://x");
    const rec: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      clientCertVerified: (req.socket as { authorized?: boolean }).authorized === true,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    this.requests.push(rec);
    const bearer = req.headers.authorization?.replace(/^Bearer /, "");
    if (this.opts.tokens && !rec.clientCertVerified && !(bearer && this.opts.tokens.includes(bearer))) {
      return json(res, 401, statusBody(401, "Unauthorized", "Unauthorized"));
    }
    const failure = this.failures.find((f) => f.left > 0 && f.match(rec));
    if (failure) {
      failure.left -= 1;
      const a = failure.answer;
      const body = typeof a.body === "string" ? a.body : JSON.stringify(a.body ?? {});
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      return void res.end(body);
    }
    if (rec.path === "/healthz") return void res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (rec.path === "/version") return json(res, 200, { major: "1", minor: "32", gitVersion: "v1.32.0-fake" });
    const p = parsePath(rec.path);
    try {
      const answer = this.route(rec, p);
      if (answer) json(res, answer[0], answer[1]);
      else this.watch(rec, res, p);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      json(res, err.code, statusBody(err.code, err.reason, err.message));
    }
  }

  /** The answer as [status, body], or undefined when the request became a watch stream. */
  private route(rec: RecordedRequest, p: ReturnType<typeof parsePath>): [number, unknown] | undefined {
    const body = rec.body ? (JSON.parse(rec.body) as Obj) : undefined;
    const s = this.store;
    switch (rec.method) {
      case "GET":
        if (p.name) return [200, s.get(p.collection, p.namespace, p.name)];
        return rec.query.get("watch") === "true" || rec.query.get("watch") === "1" ? undefined : this.list(rec, p);
      case "POST":
        return [201, s.create(p.collection, withNamespace(body!, p.namespace))];
      case "PUT":
        return [200, s.update(p.collection, withNamespace(body!, p.namespace), p.sub === "status")];
      case "PATCH":
        return [200, s.patch(p.collection, p.namespace, p.name!, String(rec.headers["content-type"]), body)];
      case "DELETE":
        return [200, s.delete(p.collection, p.namespace, p.name!)];
      default:
        return [405, statusBody(405, "MethodNotAllowed", rec.method)];
    }
  }

  private list(rec: RecordedRequest, p: ReturnType<typeof parsePath>): [number, unknown] {
    const limit = Number(rec.query.get("limit") ?? 0);
    const cont = rec.query.get("continue");
    if (cont && this.expireContinue) return [410, statusBody(410, "Expired", "continue token expired")];
    const [rv, offset] = cont ? (JSON.parse(atob(cont)) as [string, number]) : [String(this.store.rv), 0];
    const all = this.store.list(p.collection, p.namespace);
    const items = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset);
    const next = limit > 0 && offset + limit < all.length ? btoa(JSON.stringify([rv, offset + limit])) : undefined;
    return [200, { kind: "List", apiVersion: "v1", metadata: { resourceVersion: rv, continue: next }, items }];
  }

  private watch(rec: RecordedRequest, res: http.ServerResponse, p: ReturnType<typeof parsePath>): void {
    const from = Number(rec.query.get("resourceVersion") || 0);
    const gone = statusBody(410, "Expired", `too old resource version: ${from} (${this.store.compactedBelow})`);
    if (from > 0 && from < this.store.compactedBelow && this.goneAs === "http") {
      json(res, 410, gone);
      return;
    }
    this.watchRequests += 1;
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    if (from > 0 && from < this.store.compactedBelow) {
      res.end(`${JSON.stringify({ type: "ERROR", object: gone })}\n`);
      return;
    }
    const w: Watcher = {
      res,
      collection: p.collection,
      namespace: p.namespace,
      bookmarks: rec.query.get("allowWatchBookmarks") === "true",
      dead: false,
      chain: Promise.resolve(),
    };
    for (const c of this.store.history) {
      if (c.rv > from && this.matches(w, c)) this.send(w, { type: c.type, object: c.object });
    }
    this.watchers.add(w);
    res.on("close", () => this.watchers.delete(w));
  }
}

function withNamespace(obj: Obj, namespace: string | undefined): Obj {
  return namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
