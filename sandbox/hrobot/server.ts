/**
 * A local emulator of the Hetzner Robot webservice parts hcloud-cloud-controller-manager uses
 * (/work/shared/reference/hetzner-robot-api.md): HTTP on 127.0.0.1, no version prefix, Basic auth with webservice
 * users, JSON answers, and errors in Robot's envelope `{"error": {"status", "code", "message"}}`.
 *
 * Reads only, as hccm only reads: `GET /server` (an array of `{"server": …}`; 404 `SERVER_NOT_FOUND` when the
 * account has none), `GET /server/{number}` (or the deprecated `/server/{main IPv4}`) with the detail-only fields,
 * `GET /reset` and `GET /reset/{number}` (`operating_status`). Any other method answers 405.
 *
 * Limits as documented, per user and endpoint group over a sliding window (limits.ts): 403 `RATE_LIMIT_EXCEEDED`
 * with `max_request` and `interval`. Three failed logins from an address block it for ten minutes (401).
 * Fault injection: `faults.latencyMs` before every answer, `faults.fail(…)` for the next answers (optionally of one
 * path prefix), `faults.maintenance` (503 for everything). Every request is logged in `calls` (never a header).
 */
import type { Server } from "bun";
import { type LimitGroup, LoginLockout, type RequestLimit, RequestLimits } from "./limits.ts";
import { type EmulatedRobotServer, RobotState } from "./state.ts";

export interface RobotUser {
  readonly user: string;
  readonly password: string;
}

export interface RobotEmulatorOptions {
  readonly users: readonly RobotUser[];
  readonly state?: RobotState;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Replace a group's documented limit (tests use small ones). */
  readonly limits?: Partial<Record<LimitGroup, RequestLimit>>;
  /** Milliseconds since the epoch, for the limits' windows and the lock-out. Default `Date.now`. */
  readonly now?: () => number;
}

export interface RobotCall {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly status: number;
  /** The Basic-auth user that was accepted; absent when none was. */
  readonly user?: string;
}

interface Failure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly pathPrefix: string;
  remaining: number;
}

export interface RobotEmulator {
  /** `http://127.0.0.1:<port>`: the webservice root (the real one is `https://robot-ws.your-server.de`). */
  readonly url: string;
  readonly state: RobotState;
  readonly calls: RobotCall[];
  readonly limits: RequestLimits;
  readonly lockout: LoginLockout;
  readonly faults: {
    latencyMs: number;
    /** 503 for every request, as during Robot's maintenance. */
    maintenance: boolean;
    /** The next `count` requests whose path starts with `pathPrefix` answer `status` with Robot's error body. */
    fail(status: number, code: string, message: string, count?: number, pathPrefix?: string): void;
  };
  stop(): Promise<void>;
}

export function startRobotEmulator(options: RobotEmulatorOptions): RobotEmulator {
  const state = options.state ?? new RobotState();
  const now = options.now ?? Date.now;
  const limits = new RequestLimits(now, options.limits);
  const lockout = new LoginLockout(now);
  const users = new Map(options.users.map((u) => [u.user, u.password]));
  const calls: RobotCall[] = [];
  const failures: Failure[] = [];
  const faults = {
    latencyMs: 0,
    maintenance: false,
    fail(status: number, code: string, message: string, count = 1, pathPrefix = "/") {
      failures.push({ status, code, message, pathPrefix, remaining: count });
    },
  };

  const answer = (request: Request, address: string): { response: Response; user?: string } => {
    const url = new URL(request.url);
    const blocked = lockout.blockedUntil(address);
    if (blocked !== undefined) {
      const until = new Date(blocked).toISOString();
      return { response: robotError(401, "UNAUTHORIZED", `too many failed logins; blocked until ${until}`) };
    }
    const user = authenticated(request.headers.get("authorization"), users);
    if (user === undefined) {
      lockout.failed(address);
      return { response: robotError(401, "UNAUTHORIZED", "Unauthorized") };
    }
    lockout.succeeded(address);
    if (faults.maintenance) return { response: robotError(503, "MAINTENANCE", "Service Unavailable"), user };
    const failure = failures.find((f) => f.remaining > 0 && url.pathname.startsWith(f.pathPrefix));
    if (failure) {
      failure.remaining--;
      return { response: robotError(failure.status, failure.code, failure.message), user };
    }
    const group = limitGroup(url.pathname);
    if (request.method !== "GET") {
      return { response: robotError(405, "METHOD_NOT_ALLOWED", `the emulator serves reads only`), user };
    }
    const broken = group ? limits.take(user, group) : undefined;
    if (broken) return { response: rateLimited(broken), user };
    return { response: route(state, url.pathname), user };
  };

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request, srv) {
      const url = new URL(request.url);
      if (faults.latencyMs > 0) await Bun.sleep(faults.latencyMs);
      const { response, user } = answer(request, srv.requestIP(request)?.address ?? "unknown");
      calls.push({
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        ...(user !== undefined && { user }),
      });
      return response;
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    state,
    calls,
    limits,
    lockout,
    faults,
    stop: () => server.stop(true),
  };
}

/** The user of a valid `Basic` header, or `undefined`. */
function authenticated(header: string | null, users: ReadonlyMap<string, string>): string | undefined {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] ?? "", "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  return users.get(user) === decoded.slice(colon + 1) ? user : undefined;
}

function limitGroup(path: string): LimitGroup | undefined {
  if (path === "/server" || path.startsWith("/server/")) return "server";
  if (path === "/reset" || path.startsWith("/reset/")) return "reset";
  return undefined;
}

function route(state: RobotState, path: string): Response {
  if (path === "/server") {
    const servers = state.listServers();
    if (servers.length === 0) return robotError(404, "SERVER_NOT_FOUND", "No server found");
    return Response.json(servers.map((s) => ({ server: summary(s) })));
  }
  if (path === "/reset") {
    const servers = state.listServers();
    if (servers.length === 0) return robotError(404, "SERVER_NOT_FOUND", "No server found");
    return Response.json(servers.map((s) => ({ reset: reset(s) })));
  }
  const m = /^\/(server|reset)\/([^/]+)$/.exec(path);
  if (!m) return robotError(404, "NOT_FOUND", "Not Found");
  const [, what, key = ""] = m;
  const found = /^[0-9]+$/.test(key)
    ? state.getServer(Number(key))
    : what === "server" && /^[0-9.]+$/.test(key)
      ? state.findByIP(key)
      : undefined;
  if (!found) return robotError(404, "SERVER_NOT_FOUND", "server not found");
  return Response.json(what === "server" ? { server: detail(found) } : { reset: reset(found) });
}

/** What `GET /server` lists of a server. */
function summary(s: EmulatedRobotServer) {
  return {
    server_ip: s.ip,
    server_ipv6_net: s.ipv6Net,
    server_number: s.number,
    server_name: s.name,
    product: s.product,
    dc: s.dc,
    traffic: s.traffic,
    status: s.status,
    cancelled: s.cancelled,
    paid_until: s.paidUntil,
    ip: [s.ip],
    subnet: s.subnets.length === 0 ? null : s.subnets.map((n) => ({ ip: n.ip, mask: n.mask })),
  };
}

/** `GET /server/{number}`: the summary and the detail-only flags. */
function detail(s: EmulatedRobotServer) {
  const reset = s.resetTypes.length > 0;
  return {
    ...summary(s),
    reset,
    rescue: true,
    vnc: true,
    windows: false,
    plesk: false,
    cpanel: false,
    wol: true,
    hot_swap: false,
    linked_storagebox: null,
  };
}

function reset(s: EmulatedRobotServer) {
  return {
    server_ip: s.ip,
    server_ipv6_net: s.ipv6Net,
    server_number: s.number,
    type: s.resetTypes,
    operating_status: s.operatingStatus,
  };
}

function rateLimited(limit: RequestLimit): Response {
  const error = {
    status: 403,
    code: "RATE_LIMIT_EXCEEDED",
    max_request: limit.maxRequests,
    interval: limit.intervalSeconds,
    message: "Rate limit exceeded",
  };
  return Response.json({ error }, { status: 403 });
}

function robotError(status: number, code: string, message: string): Response {
  return Response.json({ error: { status, code, message } }, { status });
}
