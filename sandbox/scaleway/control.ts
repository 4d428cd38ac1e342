/**
 * The emulator's control API under `/_emulator` (not part of Scaleway's): the kit's faults and call counters, and
 * the resources a CCM only reads, made, changed and deleted here: Instance servers, Elastic Metal servers, and
 * projects. It needs the same secret key, is never faulted or counted, so a test can always reach it.
 */
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { commonControlEndpoints } from "../kit/control.ts";
import { json, noContent } from "../kit/router.ts";
import { type Faults, faultsSchema } from "./faults.ts";
import type { Endpoint } from "./routes/endpoint.ts";
import {
  baremetalServerView,
  baremetalStatuses,
  createBaremetalServer,
  deleteBaremetalServer,
  getBaremetalServer,
} from "./state/baremetal.ts";
import {
  createInstanceServer,
  deleteInstanceServer,
  getInstanceServer,
  instanceServerView,
  instanceStates,
} from "./state/instance.ts";
import { baremetalZones, instanceZones, iso } from "./state/world.ts";

const name = v.pipe(v.string(), v.nonEmpty("must not be empty"), v.maxLength(255));
const tags = v.exactOptional(v.array(v.string()));
const project = v.exactOptional(v.pipe(v.string(), v.uuid("must be a project's UUID")));

const instanceSchema = v.strictObject({
  name,
  zone: v.exactOptional(v.picklist(instanceZones)),
  commercial_type: v.exactOptional(v.pipe(v.string(), v.nonEmpty())),
  state: v.exactOptional(v.picklist(instanceStates)),
  project,
  tags,
  public_ipv4: v.exactOptional(v.boolean()),
  public_ipv6: v.exactOptional(v.boolean()),
  private_networks: v.exactOptional(v.array(v.pipe(v.string(), v.uuid("must be a private network's UUID")))),
  private_ip: v.exactOptional(v.pipe(v.string(), v.ip())),
});

const baremetalSchema = v.strictObject({
  name,
  zone: v.exactOptional(v.picklist(baremetalZones)),
  offer_name: v.exactOptional(v.pipe(v.string(), v.nonEmpty())),
  status: v.exactOptional(v.picklist(baremetalStatuses)),
  project,
  tags,
});

const instanceChange = v.strictObject({
  state: v.exactOptional(v.picklist(instanceStates)),
  name: v.exactOptional(name),
});
const baremetalChange = v.strictObject({
  status: v.exactOptional(v.picklist(baremetalStatuses)),
  name: v.exactOptional(name),
});

export interface ControlDeps {
  readonly faults: Faults;
  readonly calls: CallCounter;
}

export function controlEndpoints({ faults, calls }: ControlDeps): Endpoint[] {
  return [
    ...commonControlEndpoints({ faults, faultsSchema, calls }),
    {
      method: "POST",
      route: "/instance/servers",
      handle: async (call) =>
        json({ server: instanceServerView(createInstanceServer(call.world, await call.bodyOf(instanceSchema))) }, 201),
    },
    {
      method: "PATCH",
      route: "/instance/servers/:id",
      async handle(call) {
        const found = call.world.instances.get(call.params.id ?? "");
        const server = getInstanceServer(call.world, found?.zone ?? "", call.params.id ?? "");
        const change = await call.bodyOf(instanceChange);
        if (change.state !== undefined) server.state = change.state;
        if (change.name !== undefined) server.name = change.name;
        server.modified = call.world.now();
        return json({ server: instanceServerView(server) });
      },
    },
    {
      method: "DELETE",
      route: "/instance/servers/:id",
      handle(call) {
        deleteInstanceServer(call.world, call.params.id ?? "");
        return noContent();
      },
    },
    {
      method: "POST",
      route: "/baremetal/servers",
      handle: async (call) =>
        json(
          { server: baremetalServerView(createBaremetalServer(call.world, await call.bodyOf(baremetalSchema))) },
          201,
        ),
    },
    {
      method: "PATCH",
      route: "/baremetal/servers/:id",
      async handle(call) {
        const found = call.world.baremetal.get(call.params.id ?? "");
        const server = getBaremetalServer(call.world, found?.zone ?? "", call.params.id ?? "");
        const change = await call.bodyOf(baremetalChange);
        if (change.status !== undefined) server.status = change.status;
        if (change.name !== undefined) server.name = change.name;
        server.updated = call.world.now();
        return json({ server: baremetalServerView(server) });
      },
    },
    {
      method: "DELETE",
      route: "/baremetal/servers/:id",
      handle(call) {
        deleteBaremetalServer(call.world, call.params.id ?? "");
        return noContent();
      },
    },
    {
      method: "POST",
      route: "/projects",
      async handle(call) {
        const body = await call.bodyOf(v.strictObject({ name }));
        const p = call.world.addProject(body.name);
        return json(
          { project: { id: p.id, name: p.name, organization_id: p.organizationId, created_at: iso(p.created) } },
          201,
        );
      },
    },
  ];
}
