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
import { baremetalZones, instanceZones, iso, type World } from "./state/world.ts";

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

interface ServerKind<S, B, C> {
  /** `instance` → `/_emulator/instance/servers`. */
  readonly product: "instance" | "baremetal";
  readonly body: v.GenericSchema<unknown, B>;
  readonly change: v.GenericSchema<unknown, C>;
  create(world: World, body: B): S;
  /** The server whatever its zone; not found otherwise. */
  find(world: World, id: string): S;
  apply(server: S, change: C, now: number): void;
  remove(world: World, id: string): void;
  view(server: S): unknown;
}

/** `POST /<product>/servers`, `PATCH` and `DELETE /<product>/servers/:id`. */
function serverControl<S, B, C>(kind: ServerKind<S, B, C>): Endpoint[] {
  const route = `/${kind.product}/servers`;
  return [
    {
      method: "POST",
      route,
      handle: async (call) => json({ server: kind.view(kind.create(call.world, await call.bodyOf(kind.body))) }, 201),
    },
    {
      method: "PATCH",
      route: `${route}/:id`,
      async handle(call) {
        const server = kind.find(call.world, call.params.id ?? "");
        kind.apply(server, await call.bodyOf(kind.change), call.world.now());
        return json({ server: kind.view(server) });
      },
    },
    {
      method: "DELETE",
      route: `${route}/:id`,
      handle(call) {
        kind.remove(call.world, call.params.id ?? "");
        return noContent();
      },
    },
  ];
}

export function controlEndpoints({ faults, calls }: ControlDeps): Endpoint[] {
  return [
    ...commonControlEndpoints({ faults, faultsSchema, calls }),
    ...serverControl({
      product: "instance",
      body: instanceSchema,
      change: instanceChange,
      create: createInstanceServer,
      find: (world, id) => getInstanceServer(world, world.instances.get(id)?.zone ?? "", id),
      apply(server, change, now) {
        if (change.state !== undefined) server.state = change.state;
        if (change.name !== undefined) server.name = change.name;
        server.modified = now;
      },
      remove: deleteInstanceServer,
      view: instanceServerView,
    }),
    ...serverControl({
      product: "baremetal",
      body: baremetalSchema,
      change: baremetalChange,
      create: createBaremetalServer,
      find: (world, id) => getBaremetalServer(world, world.baremetal.get(id)?.zone ?? "", id),
      apply(server, change, now) {
        if (change.status !== undefined) server.status = change.status;
        if (change.name !== undefined) server.name = change.name;
        server.updated = now;
      },
      remove: deleteBaremetalServer,
      view: baremetalServerView,
    }),
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
