/**
 * Neutron (Networking API v2.0): ports, networks and subnets (by `network_id`), read-only; a trunk's parent port carries `trunk_details`. Ports filter by `device_id`, `network_id` and
 * `status`; with `limit` a full page carries `ports_links` with `rel: next` and its `marker`, as Neutron's native
 * pagination does. An unknown port is 404 `PortNotFound`, an unknown network 404 `NetworkNotFound`.
 */
import { OsError } from "./errors.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import type { Network, Port } from "./state.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function portBody(call: Call, p: Port) {
  const network = call.world.networks.get(p.networkID);
  const project = call.emulator.project.id;
  const at = iso(call.world.now());
  return {
    id: p.id,
    name: "",
    network_id: p.networkID,
    tenant_id: project,
    project_id: project,
    mac_address: p.macAddress,
    admin_state_up: true,
    status: p.status,
    device_id: p.deviceID,
    device_owner: p.deviceID === "" ? "" : p.deviceID.startsWith("trunk-") ? "trunk:subport" : "compute:nova",
    fixed_ips: p.fixedIPs.map((ip_address) => ({ subnet_id: network?.subnetID ?? "", ip_address })),
    allowed_address_pairs: [],
    extra_dhcp_opts: [],
    security_groups: [],
    description: "",
    "binding:vnic_type": "normal",
    port_security_enabled: true,
    tags: [],
    created_at: at,
    updated_at: at,
    revision_number: 1,
    ...(p.subPorts && {
      trunk_details: {
        trunk_id: `trunk-${p.id}`,
        sub_ports: p.subPorts.map((id, i) => ({
          port_id: id,
          segmentation_type: "vlan",
          segmentation_id: 100 + i,
          mac_address: p.macAddress,
        })),
      },
    }),
  };
}

function networkBody(call: Call, n: Network) {
  const project = call.emulator.project.id;
  return {
    id: n.id,
    name: n.name,
    admin_state_up: true,
    status: "ACTIVE",
    subnets: [n.subnetID],
    shared: false,
    "router:external": n.external,
    tenant_id: project,
    project_id: project,
    mtu: 1450,
    description: "",
    tags: [],
  };
}

function listPorts(call: Call): Response {
  const q = call.url.searchParams;
  let ports = [...call.world.ports.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const [param, field] of [
    ["device_id", "deviceID"],
    ["network_id", "networkID"],
    ["status", "status"],
  ] as const) {
    const wanted = q.getAll(param);
    if (wanted.length > 0) ports = ports.filter((p) => wanted.includes(p[field]));
  }
  const marker = q.get("marker");
  if (marker !== null) {
    const at = ports.findIndex((p) => p.id === marker);
    if (at < 0) throw new OsError(404, `Port ${marker} could not be found.`, "PortNotFound");
    ports = ports.slice(at + 1);
  }
  const limitText = q.get("limit");
  const links: unknown[] = [];
  if (limitText !== null) {
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1) throw new OsError(400, `Bad limit request: limit must be an integer.`);
    const full = ports.length > limit;
    ports = ports.slice(0, limit);
    const last = ports.at(-1);
    if (full && last) {
      const next = new URL(`${call.base}/networking/v2.0/ports`);
      for (const [k, v] of q) if (k !== "marker") next.searchParams.append(k, v);
      next.searchParams.set("marker", last.id);
      links.push({ href: next.toString(), rel: "next" });
    }
  }
  return json({ ports: ports.map((p) => portBody(call, p)), ...(links.length > 0 && { ports_links: links }) });
}

function subnetBody(call: Call, n: Network) {
  const project = call.emulator.project.id;
  const v6 = n.prefix.includes(":");
  return {
    id: n.subnetID,
    name: n.subnetName,
    network_id: n.id,
    ip_version: v6 ? 6 : 4,
    cidr: v6 ? `${n.prefix}/64` : `${n.prefix}0/24`,
    gateway_ip: `${n.prefix}1`,
    enable_dhcp: true,
    allocation_pools: [],
    tenant_id: project,
    project_id: project,
    description: "",
    tags: [...n.subnetTags],
  };
}

export const neutronEndpoints: readonly Endpoint[] = [
  {
    service: "network",
    method: "GET",
    route: "/networking/v2.0/subnets",
    handle: (call) => {
      const network = call.url.searchParams.get("network_id");
      const list = [...call.world.networks.values()].filter((n) => network === null || n.id === network);
      return json({ subnets: list.map((n) => subnetBody(call, n)) });
    },
  },
  {
    service: "network",
    method: "GET",
    route: "/networking/v2.0/subnets/:id",
    handle: (call) => {
      const network = [...call.world.networks.values()].find((n) => n.subnetID === call.params.id);
      if (!network) throw new OsError(404, `Subnet ${call.params.id} could not be found.`, "SubnetNotFound");
      return json({ subnet: subnetBody(call, network) });
    },
  },
  { service: "network", method: "GET", route: "/networking/v2.0/ports", handle: listPorts },
  {
    service: "network",
    method: "GET",
    route: "/networking/v2.0/ports/:id",
    handle: (call) => {
      const port = call.world.ports.get(call.params.id ?? "");
      if (!port) throw new OsError(404, `Port ${call.params.id} could not be found.`, "PortNotFound");
      return json({ port: portBody(call, port) });
    },
  },
  {
    service: "network",
    method: "GET",
    route: "/networking/v2.0/networks",
    handle: (call) => json({ networks: [...call.world.networks.values()].map((n) => networkBody(call, n)) }),
  },
  {
    service: "network",
    method: "GET",
    route: "/networking/v2.0/networks/:id",
    handle: (call) => {
      const network = call.world.networks.get(call.params.id ?? "");
      if (!network) throw new OsError(404, `Network ${call.params.id} could not be found.`, "NetworkNotFound");
      return json({ network: networkBody(call, network) });
    },
  },
];
