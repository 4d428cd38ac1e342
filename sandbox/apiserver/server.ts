/**
 * The Kubernetes API emulator: an in-process server (Bun.serve on 127.0.0.1, HTTP and optionally HTTPS) that
 * our controllers, our client and kubectl talk to as to a real kube-apiserver. See DESIGN.md, "The sandbox".
 *
 * Routing, authentication and fault injection happen here; resource semantics live in store.ts, HTTP verbs in
 * handlers.ts.
 */
import { writeFile } from "node:fs/promises";
import type { Server } from "bun";
import type { ConsolaInstance } from "consola";
import { Auth, type Authorizer, type TokenUser } from "./auth.ts";
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  OPENAPI_V2_PROTOBUF,
  openApiV2Document,
  openApiV2Protobuf,
  openApiV3Document,
  openApiV3Root,
  versionInfo,
} from "./discovery.ts";
import { Faults } from "./faults.ts";
import { errorResponse, type HandlerContext, handleResource, respond } from "./handlers.ts";
import { inProcessStore, type ResourceStore } from "./in-process-store.ts";
import { kubeconfigYaml } from "./kubeconfig.ts";
import { refusePodRuntime } from "./pod-runtime.ts";
import { Renderer } from "./representation.ts";
import { parseRoute } from "./routes.ts";
import { asApiError, methodNotAllowed, pathNotFound } from "./status-errors.ts";
import { ObjectStore } from "./store.ts";
import { selfSignedTls, type TlsMaterial } from "./tls.ts";

export interface ApiServerOptions {
  /** Plain HTTP port on 127.0.0.1; 0 or absent ⇒ a random free port. */
  readonly port?: number;
  /** Also serve HTTPS (on `httpsPort`, default random) with this certificate, or a fresh self-signed one. */
  readonly tls?: TlsMaterial | "self-signed";
  readonly httpsPort?: number;
  /** Bearer token ⇒ user. None ⇒ anonymous access is allowed. */
  readonly tokens?: Readonly<Record<string, TokenUser>>;
  /** Decides resource requests and SubjectAccessReviews; default: allow every known user. */
  readonly authorizer?: Authorizer;
  /** Watch history kept per resource, in events (default 10 000); older versions get 410 Gone. */
  readonly compactionWindow?: number;
  /** Interval of BOOKMARK events to watches that allow them (default 10 s; 0 turns the timer off). */
  readonly bookmarkIntervalMs?: number;
  /** A watcher with more than this many unread bytes queued is disconnected (default 16 MiB). */
  readonly maxQueuedBytes?: number;
  readonly logger?: ConsolaInstance;
  /** Clock for timestamps and ages (ms since the epoch). */
  readonly now?: () => number;
  /** For injected request delays. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** For `faults.failRate`. */
  readonly random?: () => number;
  /**
   * Answer with API Priority and Fairness's `X-Kubernetes-PF-FlowSchema-UID`/`-PriorityLevel-UID` headers, as
   * kube-apiserver ≥ 1.20 does on every authenticated request but watches (default true). False: a server without
   * APF, whose clients keep their client-side limit.
   */
  readonly flowControlHeaders?: boolean;
  /**
   * Seats of APF's priority level every request of the API falls in: a request past this many in flight (watches
   * and non-API paths such as /healthz aside) is rejected 429 with `Retry-After: 1`, as a level that rejects
   * rather than queues answers. Absent: no limit.
   */
  readonly flowControlSeats?: number;
}

export interface KubeconfigOptions {
  /** Whose token to use (default: the first configured). */
  readonly user?: string;
  /** Point at the HTTPS address (default when TLS is on). */
  readonly https?: boolean;
}

export interface ApiServer {
  /** Plain HTTP base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly httpsUrl: string | undefined;
  /** PEM of the CA that clients of `httpsUrl` must trust. */
  readonly caCert: string | undefined;
  /** In-process access to the objects (same semantics as HTTP, no HTTP). */
  readonly store: ResourceStore;
  /** Requests rejected for want of a seat (`flowControlSeats`). */
  readonly flowControlRejected: number;
  /** The option of that name, changeable while the server runs (undefined: no limit). */
  flowControlSeats: number | undefined;
  readonly faults: Faults;
  /** Watches currently open (HTTP). */
  readonly openWatches: number;
  /** Sends a BOOKMARK now to every watch that allows bookmarks. */
  sendBookmarks(): void;
  kubeconfig(opts?: KubeconfigOptions): string;
  /** Writes `kubeconfig(opts)` to `path` (mode 0600); returns the path. */
  writeKubeconfig(path: string, opts?: KubeconfigOptions): Promise<string>;
  /** Ends all watches and closes the listeners. */
  stop(): Promise<void>;
}

/** The UIDs of the flow schema and priority level every request is classified into (kube-apiserver's `exempt`). */
const APF_HEADERS = {
  "X-Kubernetes-PF-FlowSchema-UID": "5d6b4a1c-0c2e-4d7f-9b8a-3e1f2a4b6c01",
  "X-Kubernetes-PF-PriorityLevel-UID": "7a9c2e4f-1b3d-4e6a-8c0b-5d7f9a1b3c02",
} as const;

/** APF's rejection (k8s.io/apiserver's `tooManyRequests`): 429, `Retry-After: 1`, its headers, a Status. */
function tooManyRequests(): Response {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Too many requests, please try again later.",
    reason: "TooManyRequests",
    details: { retryAfterSeconds: 1 },
    code: 429,
  };
  return new Response(JSON.stringify(status), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": "1", ...APF_HEADERS },
  });
}

const OPEN_PATHS = /^\/(healthz|livez|readyz|version)(\/|$)/;
const HEALTH_PATHS = /^\/(healthz|livez|readyz)(\/.*)?$/;

export const startApiServer = async (opts: ApiServerOptions = {}): Promise<ApiServer> => {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  const log = opts.logger;
  const objects = new ObjectStore({ now, compactionWindow: opts.compactionWindow ?? 10_000 });
  const auth = new Auth(opts.tokens, opts.authorizer);
  const faults = new Faults({
    random: opts.random ?? Math.random,
    endWatches: (end) => objects.hub.endAll(end),
    compact: () => objects.compact(),
  });
  const renderer = new Renderer(objects, now);
  const ctx: HandlerContext = {
    store: objects,
    renderer,
    auth,
    watchGone: () => faults.watchGone,
    maxQueuedBytes: opts.maxQueuedBytes ?? 16 * 1024 * 1024,
  };

  const handle = async (req: Request, server: Server<undefined>): Promise<Response> => {
    const url = new URL(req.url);
    try {
      const fault = faults.check(req.method, url.pathname + url.search);
      if (fault.delayMs > 0) await sleep(fault.delayMs);
      if (fault.error) throw fault.error;
      const user = auth.authenticate(req.headers.get("authorization"), OPEN_PATHS.test(url.pathname));
      const route = parseRoute(url.pathname);
      if (route.kind === "resource") {
        // Watches outlive the server's idle timeout by design.
        if (req.method === "GET") server.timeout(req, 0);
        return await handleResource(ctx, req, url, route, user);
      }
      refusePodRuntime(objects, auth, user, url.pathname);
      // A path the emulator does not serve is 404 for every verb, as on a real server without that API
      // (`kubectl create job` then says the server could not find the resource, not that the method is wrong).
      if (route.kind === "unknown" && /^\/apis?\//.test(url.pathname)) throw pathNotFound();
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed();
      if (HEALTH_PATHS.test(url.pathname)) return respond(200, "ok", "text/plain; charset=utf-8");
      if (url.pathname === "/openapi/v2" && req.headers.get("accept")?.includes(OPENAPI_V2_PROTOBUF)) {
        // Not the media type asked for: Go's mime parser (client-go's) refuses its `@`.
        return new Response(openApiV2Protobuf(), { headers: { "content-type": "application/octet-stream" } });
      }
      const doc = discoveryDocument(url, route);
      if (!doc) throw pathNotFound();
      return respond(200, JSON.stringify(doc));
    } catch (err) {
      const apiErr = asApiError(err);
      if (apiErr.code >= 500) log?.warn(`sandbox apiserver: ${req.method} ${url.pathname}: ${apiErr.message}`);
      return errorResponse(apiErr);
    }
  };

  const discoveryDocument = (url: URL, route: ReturnType<typeof parseRoute>): object | undefined => {
    if (url.pathname === "/version") return versionInfo();
    if (url.pathname === "/openapi/v2") return openApiV2Document();
    if (url.pathname === "/openapi/v3") return openApiV3Root();
    if (url.pathname.startsWith("/openapi/v3/")) return openApiV3Document(url.pathname.slice("/openapi/v3/".length));
    switch (route.kind) {
      case "core-versions":
        return apiVersions(url.host);
      case "groups":
        return apiGroupList();
      case "group":
        return apiGroup(route.group);
      case "resources":
        return apiResourceList(route.group, route.version);
      default:
        return undefined;
    }
  };

  const flowControl = opts.flowControlHeaders ?? true;
  let seats = opts.flowControlSeats;
  let seated = 0;
  let rejected = 0;
  /** APF's headers where kube-apiserver sets them: past authentication, and not on a watch (long-running). */
  const handleFlowControlled = async (req: Request, server: Server<undefined>): Promise<Response> => {
    const watch = /[?&]watch=(true|1)(&|$)/.test(req.url);
    const limit = seats;
    const limited = limit !== undefined && !watch && /^\/apis?\//.test(new URL(req.url).pathname);
    if (limited && seated >= limit) {
      rejected += 1;
      return tooManyRequests();
    }
    if (limited) seated += 1;
    let res: Response;
    try {
      res = await handle(req, server);
    } finally {
      if (limited) seated -= 1;
    }
    if (!flowControl || res.status === 401 || watch) return res;
    for (const [name, value] of Object.entries(APF_HEADERS)) res.headers.set(name, value);
    return res;
  };

  const serve = (port: number, tls?: TlsMaterial): Server<undefined> =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      idleTimeout: 120,
      fetch: handleFlowControlled,
      ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
    });

  const tls = opts.tls === "self-signed" ? await selfSignedTls(now) : opts.tls;
  const http = serve(opts.port ?? 0);
  const https = tls ? serve(opts.httpsPort ?? 0, tls) : undefined;
  const url = `http://127.0.0.1:${http.port}`;
  const httpsUrl = https ? `https://127.0.0.1:${https.port}` : undefined;
  const caCert = tls ? (tls.ca ?? tls.cert) : undefined;
  const bookmarkMs = opts.bookmarkIntervalMs ?? 10_000;
  const bookmarkTimer =
    bookmarkMs > 0 ? setInterval(() => objects.hub.bookmark(objects.resourceVersion), bookmarkMs) : undefined;
  bookmarkTimer?.unref();
  log?.info(`sandbox apiserver listening on ${url}${httpsUrl ? ` and ${httpsUrl}` : ""}`);

  const kubeconfig = (k: KubeconfigOptions = {}): string => {
    const useHttps = k.https ?? httpsUrl !== undefined;
    if (useHttps && !httpsUrl) throw new Error("sandbox apiserver: no HTTPS listener (start it with `tls`)");
    const creds = auth.credentials(k.user);
    return kubeconfigYaml({
      server: useHttps ? httpsUrl! : url,
      ca: useHttps ? caCert : undefined,
      user: creds?.user ?? k.user ?? "anonymous",
      token: creds?.token,
    });
  };

  return {
    url,
    httpsUrl,
    caCert,
    store: inProcessStore(objects),
    faults,
    get flowControlRejected() {
      return rejected;
    },
    get flowControlSeats() {
      return seats;
    },
    set flowControlSeats(n: number | undefined) {
      seats = n;
    },
    get openWatches() {
      return objects.hub.size;
    },
    sendBookmarks: () => objects.hub.bookmark(objects.resourceVersion),
    kubeconfig,
    writeKubeconfig: async (path, k) => {
      await writeFile(path, kubeconfig(k), { mode: 0o600 });
      return path;
    },
    stop: async () => {
      if (bookmarkTimer) clearInterval(bookmarkTimer);
      objects.hub.endAll({ reason: "dropped" });
      await Promise.all([http.stop(true), https?.stop(true)]);
      log?.debug("sandbox apiserver stopped");
    },
  };
};
