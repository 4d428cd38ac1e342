/**
 * Neutron's floating IPs (Networking API v2.0, "Floating IPs"): list filtered by `port_id`, `floating_ip_address`,
 * `floating_network_id` and `description`; create on an external network (optionally bound to a port), associate
 * or disassociate with `PUT port_id`, delete. An unknown one is 404 `FloatingIPNotFound`; a network that is not
 * external is 400 `ExternalGatewayForFloatingIPNotFound`; a port already holding another floating IP is 409
 * `FloatingIPPortAlreadyAssociated`.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import type { FloatingIP } from "./octavia-state.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import { nextAddress } from "./state.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const ROUTE = "/networking/v2.0/floatingips";

function fipBody(call: Call, f: FloatingIP) {
  const project = call.emulator.project.id;
  return {
    id: f.id,
    floating_ip_address: f.address,
    floating_network_id: f.networkID,
    port_id: f.portID,
    fixed_ip_address: f.fixedIP,
    router_id: f.portID ? "router-1" : null,
    status: f.portID ? "ACTIVE" : "DOWN",
    description: f.description,
    tenant_id: project,
    project_id: project,
    tags: f.tags,
    dns_name: "",
    dns_domain: "",
    qos_policy_id: null,
    port_details: null,
    created_at: iso(f.created),
    updated_at: iso(call.world.now()),
    revision_number: 1,
  };
}

function found(call: Call): FloatingIP {
  const fip = call.world.octavia.floatingIPs.get(call.params.id ?? "");
  if (!fip) throw new OsError(404, `Floating IP ${call.params.id} could not be found.`, "FloatingIPNotFound");
  return fip;
}

function bind(call: Call, fip: FloatingIP, portID: string | null): void {
  if (portID === null) {
    fip.portID = null;
    fip.fixedIP = null;
    return;
  }
  const port = call.world.ports.get(portID);
  if (!port) throw new OsError(404, `Port ${portID} could not be found.`, "PortNotFound");
  const other = [...call.world.octavia.floatingIPs.values()].find((f) => f.portID === portID && f.id !== fip.id);
  if (other) {
    throw new OsError(
      409,
      `Cannot associate floating IP ${fip.address} (${fip.id}) with port ${portID} using fixed IP ${port.fixedIPs[0]}, as that fixed IP already has a floating IP on external network ${other.networkID}.`,
      "FloatingIPPortAlreadyAssociated",
    );
  }
  fip.portID = portID;
  fip.fixedIP = port.fixedIPs[0] ?? null;
}

const createIn = v.object({
  floating_network_id: v.string(),
  port_id: v.optional(v.nullable(v.string()), null),
  floating_ip_address: v.optional(v.string()),
  subnet_id: v.optional(v.string()),
  description: v.optional(v.string(), ""),
});

export const floatingIPEndpoints: readonly Endpoint[] = [
  {
    service: "network",
    method: "GET",
    route: ROUTE,
    handle(call) {
      const q = call.url.searchParams;
      const filters: [string, (f: FloatingIP) => string | null][] = [
        ["port_id", (f) => f.portID],
        ["floating_ip_address", (f) => f.address],
        ["floating_network_id", (f) => f.networkID],
        ["description", (f) => f.description],
      ];
      const list = [...call.world.octavia.floatingIPs.values()].filter((f) =>
        filters.every(([param, of]) => !q.has(param) || of(f) === q.get(param)),
      );
      return json({ floatingips: list.map((f) => fipBody(call, f)) });
    },
  },
  {
    service: "network",
    method: "POST",
    route: ROUTE,
    async handle(call) {
      const raw = (await call.body()) as Record<string, unknown>;
      const parsed = v.safeParse(createIn, raw?.floatingip);
      if (!parsed.success) throw new OsError(400, `Invalid input for operation: ${parsed.issues[0]?.message}`);
      const spec = parsed.output;
      const network = call.world.networks.get(spec.floating_network_id);
      if (!network)
        throw new OsError(404, `Network ${spec.floating_network_id} could not be found.`, "NetworkNotFound");
      if (!network.external) {
        throw new OsError(
          400,
          `Bad floatingip request: Network ${network.id} is not a valid external network.`,
          "ExternalGatewayForFloatingIPNotFound",
        );
      }
      if (spec.subnet_id !== undefined && spec.subnet_id !== network.subnetID) {
        throw new OsError(400, `Bad floatingip request: Subnet ${spec.subnet_id} is not on network ${network.id}.`);
      }
      const fip: FloatingIP = {
        id: call.world.uuid(),
        address: spec.floating_ip_address ?? nextAddress(network),
        networkID: network.id,
        portID: null,
        fixedIP: null,
        description: spec.description,
        tags: [],
        created: call.world.now(),
      };
      bind(call, fip, spec.port_id);
      call.world.octavia.floatingIPs.set(fip.id, fip);
      return json({ floatingip: fipBody(call, fip) }, 201);
    },
  },
  {
    service: "network",
    method: "GET",
    route: `${ROUTE}/:id`,
    handle: (call) => json({ floatingip: fipBody(call, found(call)) }),
  },
  {
    service: "network",
    method: "PUT",
    route: `${ROUTE}/:id`,
    async handle(call) {
      const fip = found(call);
      const raw = (await call.body()) as Record<string, unknown>;
      const parsed = v.safeParse(
        v.object({ port_id: v.optional(v.nullable(v.string())), description: v.optional(v.string()) }),
        raw?.floatingip,
      );
      if (!parsed.success) throw new OsError(400, `Invalid input for operation: ${parsed.issues[0]?.message}`);
      if (parsed.output.port_id !== undefined) bind(call, fip, parsed.output.port_id);
      if (parsed.output.description !== undefined) fip.description = parsed.output.description;
      return json({ floatingip: fipBody(call, fip) });
    },
  },
  {
    service: "network",
    method: "DELETE",
    route: `${ROUTE}/:id`,
    handle(call) {
      const fip = found(call);
      call.world.octavia.floatingIPs.delete(fip.id);
      return new Response(null, { status: 204 });
    },
  },
];
