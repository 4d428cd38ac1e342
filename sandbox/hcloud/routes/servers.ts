/** `/servers`: list (name, label_selector, status, sort, pages), create, get, update, delete, and server actions. */
import * as v from "valibot";
import { checkLabels } from "../labels.ts";
import { list } from "../listing.ts";
import {
  attachServer,
  createServer,
  deleteServer,
  detachServer,
  power,
  serverView,
  settle,
  updateServer,
} from "../state/servers.ts";
import type { Server } from "../state/types.ts";
import { resourceActionEndpoints } from "./actions.ts";
import { bodyOf, type Endpoint, idOrName, idParam, json, labelsSchema, listAnswer, resourceId } from "./endpoint.ts";

/** RFC 1123 host names, as the API wants server names. */
const hostname = v.pipe(
  v.string(),
  v.regex(
    /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/,
    "must be a valid host name (RFC 1123)",
  ),
);

const createSchema = v.object({
  name: hostname,
  server_type: idOrName,
  image: idOrName,
  location: v.exactOptional(idOrName),
  datacenter: v.exactOptional(idOrName),
  labels: v.exactOptional(labelsSchema),
  networks: v.exactOptional(v.array(resourceId)),
  public_net: v.exactOptional(
    v.object({ enable_ipv4: v.exactOptional(v.boolean()), enable_ipv6: v.exactOptional(v.boolean()) }),
  ),
  start_after_create: v.exactOptional(v.boolean()),
});

const updateSchema = v.object({ name: v.exactOptional(hostname), labels: v.exactOptional(labelsSchema) });
const attachSchema = v.object({
  network: resourceId,
  ip: v.exactOptional(v.string()),
  alias_ips: v.exactOptional(v.array(v.string())),
});
const detachSchema = v.object({ network: resourceId });

const sortable = {
  id: (s: Server) => s.id,
  name: (s: Server) => s.name,
  created: (s: Server) => s.created,
};

export const serverEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/servers",
    handle: ({ world, url }) => {
      const all = [...world.servers.values()].map((s) => settle(world, s));
      const statuses = url.searchParams.getAll("status");
      const filter = (s: Server) => statuses.length === 0 || statuses.includes(s.status);
      const listed = list(all, url, { sortable, name: (s) => s.name, labels: (s) => s.labels, filter });
      return listAnswer("servers", listed, (s) => serverView(world, s));
    },
  },
  {
    method: "POST",
    route: "/servers",
    handle: async (call) => {
      const body = await bodyOf(call, createSchema);
      if (body.labels) checkLabels(body.labels);
      const { server, action } = createServer(call.world, body);
      return json({ server: serverView(call.world, server), action, next_actions: [], root_password: null }, 201);
    },
  },
  {
    method: "GET",
    route: "/servers/:id",
    handle: (call) => json({ server: serverView(call.world, call.world.server(idParam(call))) }),
  },
  {
    method: "PUT",
    route: "/servers/:id",
    handle: async (call) => {
      const server = call.world.server(idParam(call));
      const body = await bodyOf(call, updateSchema);
      if (body.labels) checkLabels(body.labels);
      updateServer(call.world, server, body);
      return json({ server: serverView(call.world, server) });
    },
  },
  {
    method: "DELETE",
    route: "/servers/:id",
    handle: (call) => json({ action: deleteServer(call.world, call.world.server(idParam(call))) }),
  },
  ...(["poweron", "poweroff", "shutdown", "reboot"] as const).map(
    (command): Endpoint => ({
      method: "POST",
      route: `/servers/:id/actions/${command}`,
      handle: (call) => json({ action: power(call.world, call.world.server(idParam(call)), command) }, 201),
    }),
  ),
  {
    method: "POST",
    route: "/servers/:id/actions/attach_to_network",
    handle: async (call) => {
      const server = call.world.server(idParam(call));
      const body = await bodyOf(call, attachSchema);
      return json({ action: attachServer(call.world, server, body.network, body.ip, body.alias_ips) }, 201);
    },
  },
  {
    method: "POST",
    route: "/servers/:id/actions/detach_from_network",
    handle: async (call) => {
      const server = call.world.server(idParam(call));
      const body = await bodyOf(call, detachSchema);
      return json({ action: detachServer(call.world, server, body.network) }, 201);
    },
  },
  ...resourceActionEndpoints("servers", "server", (id, call) => call.world.server(id)),
];
