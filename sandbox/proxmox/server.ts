/**
 * A local emulator of the Proxmox VE API parts the proxmox provider uses (/work/shared/reference/proxmox-api.md):
 * HTTPS on 127.0.0.1 with a self-signed certificate that is its own CA, everything under `/api2/json`, API-token
 * auth (`Authorization: PVEAPIToken=<user>@<realm>!<token>=<secret>`), the `{"data": …}` envelope, and errors as
 * Proxmox VE gives them: the reason phrase says why (so the server is http1.ts, which writes its own status line),
 * and so does the body's `message` unless `errors: "reason-only"` (Proxmox VE before January 2025); `data` is null.
 * A 401 has no body, and is sent after `unauthorizedDelayMs`.
 *
 * Endpoints: `GET /version`, `/nodes`, `/cluster/resources[?type=vm|node]`, `/cluster/ha/groups`,
 * `/nodes/{node}/qemu/{vmid}/status/current`, `…/config`, `…/agent/network-get-interfaces`.
 *
 * Fault injection: `faults.latencyMs` before every answer, `faults.fail(…)` for the next answers (optionally of
 * one path), and `setDown(true)` (the listener closes, so connections are refused, until `setDown(false)`).
 */
import { selfSignedTls, type TlsMaterial } from "../apiserver/tls.ts";
import { type Http1Server, type RawAnswer, serveHttp1 } from "./http1.ts";
import { type EmulatedVM, ProxmoxState } from "./state.ts";

export interface ProxmoxToken {
  /** `user@realm!tokenname`. */
  readonly id: string;
  readonly secret: string;
}

export interface ProxmoxEmulatorOptions {
  readonly tokens: readonly ProxmoxToken[];
  readonly state?: ProxmoxState;
  /** Share one certificate between emulators; default a fresh one. */
  readonly tls?: TlsMaterial;
  /** The Proxmox VE version `/version` reports; `9.0.3` also turns HA groups off. */
  readonly version?: string;
  /**
   * Where an error's text is besides the reason phrase. `message` (default): also the body's `message`, as
   * libpve-http-server-perl 5.2.0 and later send it (Proxmox VE releases from January 2025); `reason-only`: the
   * body is `{"data":null}` alone, as the releases before send it.
   */
  readonly errors?: "message" | "reason-only";
  /** How long a 401 waits before it is sent, as Proxmox VE delays refused logins (about 3 s); default 0. */
  readonly unauthorizedDelayMs?: number;
}

interface Failure {
  readonly status: number;
  readonly message: string;
  /** Only requests whose path contains this. */
  readonly pathIncludes?: string;
  remaining: number;
}

export interface ProxmoxEmulator {
  /** `https://127.0.0.1:<port>/api2/json`: what a cluster's `url` is. */
  readonly url: string;
  /** PEM of the CA to trust (the certificate itself). */
  readonly ca: string;
  readonly state: ProxmoxState;
  /** Every request received: method, path and query (no headers: they hold the token). */
  readonly calls: { method: string; path: string }[];
  readonly faults: {
    latencyMs: number;
    /** The next `count` requests (of paths containing `pathIncludes`) answer `status` with `message`. */
    fail(status: number, message: string, count?: number, pathIncludes?: string): void;
  };
  /** Down: the port refuses connections; up again on the same port. */
  setDown(down: boolean): Promise<void>;
  stop(): Promise<void>;
}

const BASE = "/api2/json";

export async function startProxmoxEmulator(options: ProxmoxEmulatorOptions): Promise<ProxmoxEmulator> {
  const state = options.state ?? new ProxmoxState();
  const tls = options.tls ?? (await selfSignedTls(Date.now));
  const version = options.version ?? "8.2.4";
  const calls: { method: string; path: string }[] = [];
  const failures: Failure[] = [];
  const faults = {
    latencyMs: 0,
    fail(status: number, message: string, count = 1, pathIncludes?: string) {
      failures.push({ status, message, remaining: count, ...(pathIncludes !== undefined && { pathIncludes }) });
    },
  };
  const tokens = new Map(options.tokens.map((t) => [t.id, t.secret]));

  const reasonOnly = options.errors === "reason-only";
  const answer = (a: Answer): RawAnswer => {
    if ("data" in a) return { status: 200, reason: "OK", headers: JSON_TYPE, body: JSON.stringify({ data: a.data }) };
    // Proxmox VE's 401 carries no body at all.
    if (a.status === 401) return { status: 401, reason: a.message, body: "" };
    const body = reasonOnly
      ? { data: null }
      : { data: null, message: `${a.message}\n`, ...(a.errors && { errors: a.errors }) };
    return { status: a.status, reason: a.message, headers: JSON_TYPE, body: JSON.stringify(body) };
  };

  const handle = async (request: Request): Promise<Answer> => {
    const url = new URL(request.url);
    calls.push({ method: request.method, path: url.pathname + url.search });
    if (faults.latencyMs > 0) await Bun.sleep(faults.latencyMs);
    if (!url.pathname.startsWith(`${BASE}/`)) return pveError(404, "Not Found");
    const denied = authFailure(request.headers.get("authorization"), tokens);
    if (denied) {
      if (options.unauthorizedDelayMs) await Bun.sleep(options.unauthorizedDelayMs);
      return pveError(401, denied);
    }
    const failure = failures.find((f) => f.remaining > 0 && (!f.pathIncludes || url.pathname.includes(f.pathIncludes)));
    if (failure) {
      failure.remaining--;
      return pveError(failure.status, failure.message);
    }
    if (request.method !== "GET") return pveError(501, `Method '${request.method} ${url.pathname}' not implemented`);
    return route(state, version, url.pathname.slice(BASE.length), url.searchParams);
  };

  const listen = (port: number) =>
    serveHttp1({ port, tls: { cert: tls.cert, key: tls.key }, handle: async (r) => answer(await handle(r)) });
  let server: Http1Server | undefined = await listen(0);
  const port = server.port;

  return {
    url: `https://127.0.0.1:${port}${BASE}`,
    ca: tls.ca ?? tls.cert,
    state,
    calls,
    faults,
    async setDown(down) {
      if (down && server) {
        const stopping = server;
        server = undefined;
        await stopping.close();
      } else if (!down && !server) {
        server = await listen(port);
      }
    },
    async stop() {
      const stopping = server;
      server = undefined;
      await stopping?.close();
    },
  };
}

/** Why a request is refused, or `undefined` when its token is one of `tokens`. */
function authFailure(header: string | null, tokens: ReadonlyMap<string, string>): string | undefined {
  if (!header) return "No ticket";
  const m = /^PVEAPIToken=([^=\s]+)=(\S+)$/.exec(header);
  if (!m) return "invalid token value!";
  const secret = tokens.get(m[1]!);
  if (secret === undefined) return `no such token '${m[1]!.split("!")[1] ?? ""}' for user '${m[1]!.split("!")[0]}'`;
  if (secret !== m[2]) return "invalid token value!";
  return undefined;
}

function route(state: ProxmoxState, version: string, path: string, query: URLSearchParams): Answer {
  if (path === "/version")
    return data({ version, release: version.split(".").slice(0, 2).join("."), repoid: "emulated" });
  if (path === "/nodes") return data(state.nodes.map((n) => nodeResource(state, n)));
  if (path === "/cluster/resources") {
    const type = query.get("type");
    if (type !== null && !["vm", "node", "storage", "sdn"].includes(type)) {
      return pveError(400, "Parameter verification failed.", {
        type: `value '${type}' does not have a value in the enumeration 'vm, storage, node, sdn'`,
      });
    }
    const vms = type === null || type === "vm" ? state.listVMs().map((vm) => vmResource(state, vm)) : [];
    const nodes = type === null || type === "node" ? state.nodes.map((n) => nodeResource(state, n)) : [];
    return data([...nodes, ...vms]);
  }
  if (path === "/cluster/ha/groups") {
    if (!state.haGroups || version.startsWith("9."))
      return pveError(500, "cannot index groups: ha groups have been migrated to rules");
    return data(
      state.haGroups.map((g) => ({
        group: g.group,
        type: "group",
        nodes: g.nodes.join(","),
        restricted: 0,
        nofailback: 0,
      })),
    );
  }
  const m = /^\/nodes\/([^/]+)\/qemu\/([^/]+)\/(status\/current|config|agent\/network-get-interfaces)$/.exec(path);
  if (!m) return pveError(501, `Method 'GET ${path}' not implemented`);
  const [, node, idText, what] = m as unknown as [string, string, string, string];
  if (!/^[0-9]+$/.test(idText)) {
    return pveError(400, "Parameter verification failed.", {
      vmid: "invalid format - value does not look like a valid VM ID",
    });
  }
  const nodeStatus = state.nodeStatus(node);
  if (nodeStatus === undefined)
    return pveError(
      500,
      `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known`,
    );
  if (nodeStatus === "offline") return pveError(595, `no route to host`);
  const vm = state.getVM(Number(idText));
  if (vm?.type !== "qemu" || vm.node !== node) {
    return pveError(500, `Configuration file 'nodes/${node}/qemu-server/${idText}.conf' does not exist`);
  }
  if (what === "config") return data(vmConfig(vm));
  if (what === "status/current") return data(vmStatus(vm));
  if (vm.status !== "running") return pveError(500, `VM ${vm.vmid} is not running`);
  if (!vm.agent) return pveError(500, "QEMU guest agent is not running");
  return data({
    result: [
      {
        name: "lo",
        "hardware-address": "00:00:00:00:00:00",
        "ip-addresses": [{ "ip-address-type": "ipv4", "ip-address": "127.0.0.1", prefix: 8 }],
      },
      ...vm.agent.map((i) => ({
        name: i.name,
        "hardware-address": "bc:24:11:00:00:01",
        "ip-addresses": i.addresses.map((a) => ({
          "ip-address-type": a.includes(":") ? "ipv6" : "ipv4",
          "ip-address": a,
          prefix: a.includes(":") ? 64 : 24,
        })),
      })),
    ],
  });
}

function vmResource(state: ProxmoxState, vm: EmulatedVM) {
  const offline = state.nodeStatus(vm.node) === "offline";
  return {
    id: `${vm.type}/${vm.vmid}`,
    type: vm.type,
    vmid: vm.vmid,
    name: vm.name,
    node: vm.node,
    status: offline ? "unknown" : vm.status,
    template: vm.template ? 1 : 0,
    maxcpu: vm.cpus,
    maxmem: vm.maxmem,
    maxdisk: 34359738368,
    cpu: 0.01,
    mem: vm.status === "running" ? Math.floor(vm.maxmem / 4) : 0,
    uptime: vm.status === "running" ? 3600 : 0,
    ...(offline ? {} : { tags: "k8s" }),
  };
}

function nodeResource(state: ProxmoxState, node: string) {
  const status = state.nodeStatus(node);
  return { id: `node/${node}`, type: "node", node, status, maxcpu: 16, maxmem: 137438953472, level: "" };
}

function vmConfig(vm: EmulatedVM) {
  const sku = vm.sku === undefined ? "" : `,sku=${Buffer.from(vm.sku).toString("base64")}`;
  return {
    name: vm.name,
    smbios1: `uuid=${vm.uuid},base64=1${sku}`,
    cores: vm.cpus,
    sockets: 1,
    memory: String(Math.floor(vm.maxmem / 2 ** 20)),
    net0: "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1",
    agent: vm.agent ? "1" : "0",
    digest: "0".repeat(40),
  };
}

function vmStatus(vm: EmulatedVM) {
  return {
    vmid: vm.vmid,
    name: vm.name,
    status: vm.status,
    qmpstatus: vm.status,
    cpus: vm.cpus,
    maxmem: vm.maxmem,
    agent: vm.agent ? 1 : 0,
  };
}

/** What a route answers; `answer` in `startProxmoxEmulator` writes it as the configured Proxmox VE would. */
type Answer =
  | { readonly data: unknown }
  | { readonly status: number; readonly message: string; readonly errors?: Record<string, string> | undefined };

const JSON_TYPE = { "content-type": "application/json;charset=UTF-8" };

const data = (payload: unknown): Answer => ({ data: payload });

/** Proxmox VE's error: the reason phrase says why (and maybe the body, with `errors` for a 400). */
const pveError = (status: number, message: string, errors?: Record<string, string>): Answer => ({
  status,
  message,
  errors,
});
