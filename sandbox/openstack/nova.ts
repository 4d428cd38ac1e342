/**
 * Nova (Compute API v2.1): servers (list, detail, show) with `addresses`, status and availability zone, and
 * flavors. What the API reference documents and the emulator follows:
 *
 * - Microversions: `OpenStack-API-Version: compute X.Y` (or `X-OpenStack-Nova-API-Version`), 2.1 to 2.96 (or the
 *   emulator's `novaMaxMicroversion`), `latest` the highest; another is 406. The answer names the version used. From 2.47 a server's `flavor` embeds the
 *   flavor (`original_name`, `vcpus`, …) instead of its `id` and `links`.
 * - Lists sort newest first (`created_at`, then `id`, descending); `limit` (at most 1000, Nova's `max_limit`) and
 *   `marker` page them, and a full page carries `servers_links` with `rel: next`. An unknown marker is 400.
 * - `name` filters by regular expression (`^node-1$` for an exact name); `status` by status.
 */
import { OsError } from "./errors.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import type { Flavor, Server, World } from "./state.ts";

const MIN = [2, 1] as const;
const MAX_LIMIT = 1000;

type Version = readonly [number, number];

function versionOf(call: Call): Version {
  const { request } = call;
  const MAX = call.emulator.novaMaxMicroversion;
  const modern = request.headers.get("openstack-api-version");
  const legacy = request.headers.get("x-openstack-nova-api-version");
  const text = modern ? /^\s*compute\s+(\S+)\s*$/i.exec(modern)?.[1] : legacy?.trim();
  if (!text) return MIN;
  if (text === "latest") return MAX;
  const m = /^(\d+)\.(\d+)$/.exec(text);
  const v: Version = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || below(v, MIN) || below(MAX, v)) {
    throw new OsError(
      406,
      `Version ${text} is not supported by the API. Minimum is 2.1 and maximum is ${MAX[0]}.${MAX[1]}.`,
    );
  }
  return v;
}

const below = (a: Version, b: Version) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
const atLeast = (v: Version, minor: number) => !below(v, [2, minor]);

function answer(body: unknown, v: Version, status = 200): Response {
  return json(body, status, {
    "openstack-api-version": `compute ${v[0]}.${v[1]}`,
    "x-openstack-nova-api-version": `${v[0]}.${v[1]}`,
    vary: "OpenStack-API-Version, X-OpenStack-Nova-API-Version",
  });
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

const VM_STATES: Readonly<Record<string, [string, number]>> = {
  ACTIVE: ["active", 1],
  SHUTOFF: ["stopped", 4],
  ERROR: ["error", 0],
  BUILD: ["building", 0],
  PAUSED: ["paused", 3],
  SUSPENDED: ["suspended", 7],
};

function addressesOf(world: World, server: Server) {
  const out: Record<string, unknown[]> = {};
  for (const port of world.ports.values()) {
    if (port.deviceID !== server.id) continue;
    const network = world.networks.get(port.networkID);
    if (!network) continue;
    const list = out[network.name] ?? [];
    out[network.name] = list;
    for (const addr of port.fixedIPs) {
      list.push({
        version: addr.includes(":") ? 6 : 4,
        addr,
        "OS-EXT-IPS:type": "fixed",
        "OS-EXT-IPS-MAC:mac_addr": port.macAddress,
      });
    }
    for (const f of server.floating.filter((x) => x.network === network.name)) {
      list.push({
        version: 4,
        addr: f.addr,
        "OS-EXT-IPS:type": "floating",
        "OS-EXT-IPS-MAC:mac_addr": port.macAddress,
      });
    }
  }
  return out;
}

function flavorRef(call: Call, flavor: Flavor | undefined, id: string, v: Version) {
  if (!atLeast(v, 47)) {
    return { id, links: [{ href: `${call.base}/compute/flavors/${id}`, rel: "bookmark" }] };
  }
  return {
    vcpus: flavor?.vcpus ?? 0,
    ram: flavor?.ram ?? 0,
    disk: flavor?.disk ?? 0,
    ephemeral: 0,
    swap: 0,
    original_name: flavor?.name ?? "",
    extra_specs: {},
  };
}

function serverDetail(call: Call, s: Server, v: Version) {
  const world = call.world;
  const [vmState, power] = VM_STATES[s.status] ?? ["error", 0];
  const self = `${call.base}/compute/v2.1/servers/${s.id}`;
  return {
    id: s.id,
    name: s.name,
    status: s.status,
    tenant_id: call.emulator.project.id,
    user_id: call.emulator.user.id,
    metadata: s.metadata,
    hostId: "c7a9e1b4f0d2",
    image: { id: "70a599e0-31e7-49b7-b260-868f441e862b", links: [] },
    flavor: flavorRef(call, world.flavors.get(s.flavorID), s.flavorID, v),
    created: iso(s.created),
    updated: iso(s.created),
    addresses: addressesOf(world, s),
    accessIPv4: s.accessIPv4,
    accessIPv6: s.accessIPv6,
    links: [
      { href: self, rel: "self" },
      { href: `${call.base}/compute/servers/${s.id}`, rel: "bookmark" },
    ],
    "OS-DCF:diskConfig": "MANUAL",
    "OS-EXT-AZ:availability_zone": s.availabilityZone,
    config_drive: "",
    key_name: null,
    "OS-SRV-USG:launched_at": iso(s.created),
    "OS-SRV-USG:terminated_at": null,
    "OS-EXT-STS:task_state": null,
    "OS-EXT-STS:vm_state": vmState,
    "OS-EXT-STS:power_state": power,
    "os-extended-volumes:volumes_attached": [],
    security_groups: [{ name: "default" }],
    ...(s.status === "ERROR" && { fault: { code: 500, created: iso(s.created), message: "emulated fault" } }),
    ...(atLeast(v, 9) && { locked: false }),
    ...(atLeast(v, 19) && { description: null }),
    ...(atLeast(v, 26) && { tags: [] }),
  };
}

/** The servers the query selects, newest first, one page of them, and the next page's link when it is full. */
function page(call: Call, detail: boolean) {
  const q = call.url.searchParams;
  let servers = [...call.world.servers.values()].sort((a, b) =>
    a.created !== b.created ? b.created - a.created : a.id < b.id ? 1 : -1,
  );
  const name = q.get("name");
  if (name !== null) {
    let re: RegExp;
    try {
      re = new RegExp(name);
    } catch {
      throw new OsError(400, `Invalid regular expression in the name filter: ${name}`);
    }
    servers = servers.filter((s) => re.test(s.name));
  }
  const status = q.get("status");
  if (status !== null) servers = servers.filter((s) => s.status === status.toUpperCase());
  const marker = q.get("marker");
  if (marker !== null) {
    const at = servers.findIndex((s) => s.id === marker);
    if (at < 0) throw new OsError(400, `marker [${marker}] not found`);
    servers = servers.slice(at + 1);
  }
  const limitText = q.get("limit");
  const asked = limitText === null ? MAX_LIMIT : Number(limitText);
  if (!Number.isInteger(asked) || asked < 0) throw new OsError(400, `Invalid input for query parameters limit.`);
  const limit = Math.min(asked, MAX_LIMIT);
  const items = servers.slice(0, limit);
  const links: unknown[] = [];
  const last = items.at(-1);
  if (last && items.length === limit) {
    const next = new URL(`${call.base}/compute/v2.1/servers${detail ? "/detail" : ""}`);
    for (const [k, val] of q) if (k !== "marker") next.searchParams.set(k, val);
    next.searchParams.set("limit", String(limit));
    next.searchParams.set("marker", last.id);
    links.push({ href: next.toString(), rel: "next" });
  }
  return { items, links };
}

function listServers(detail: boolean) {
  return (call: Call) => {
    const v = versionOf(call);
    const { items, links } = page(call, detail);
    const servers = items.map((s) =>
      detail
        ? serverDetail(call, s, v)
        : { id: s.id, name: s.name, links: [{ href: `${call.base}/compute/v2.1/servers/${s.id}`, rel: "self" }] },
    );
    return answer({ servers, ...(links.length > 0 && { servers_links: links }) }, v);
  };
}

function showServer(call: Call): Response {
  const v = versionOf(call);
  const id = call.params.id ?? "";
  const server = call.world.servers.get(id);
  if (!server) throw new OsError(404, `Instance ${id} could not be found.`);
  return answer({ server: serverDetail(call, server, v) }, v);
}

function flavorBody(call: Call, f: Flavor, detail: boolean) {
  const links = [{ href: `${call.base}/compute/v2.1/flavors/${f.id}`, rel: "self" }];
  if (!detail) return { id: f.id, name: f.name, links };
  return {
    id: f.id,
    name: f.name,
    ram: f.ram,
    vcpus: f.vcpus,
    disk: f.disk,
    "OS-FLV-EXT-DATA:ephemeral": 0,
    swap: 0,
    rxtx_factor: 1.0,
    "os-flavor-access:is_public": true,
    "OS-FLV-DISABLED:disabled": false,
    links,
  };
}

export const novaEndpoints: readonly Endpoint[] = [
  { service: "compute", method: "GET", route: "/compute/v2.1/servers/detail", handle: listServers(true) },
  { service: "compute", method: "GET", route: "/compute/v2.1/servers", handle: listServers(false) },
  { service: "compute", method: "GET", route: "/compute/v2.1/servers/:id", handle: showServer },
  {
    service: "compute",
    method: "GET",
    route: "/compute/v2.1/flavors",
    handle: (call) =>
      answer({ flavors: [...call.world.flavors.values()].map((f) => flavorBody(call, f, false)) }, versionOf(call)),
  },
  {
    service: "compute",
    method: "GET",
    route: "/compute/v2.1/flavors/detail",
    handle: (call) =>
      answer({ flavors: [...call.world.flavors.values()].map((f) => flavorBody(call, f, true)) }, versionOf(call)),
  },
  {
    service: "compute",
    method: "GET",
    route: "/compute/v2.1/flavors/:id",
    handle: (call) => {
      const v = versionOf(call);
      const flavor = call.world.flavors.get(call.params.id ?? "");
      if (!flavor) throw new OsError(404, `Flavor ${call.params.id} could not be found.`);
      return answer({ flavor: flavorBody(call, flavor, true) }, v);
    },
  },
];
