/**
 * The emulator's control API under `/_emulator` (not part of DigitalOcean's): the kit's faults, rate-limit bucket
 * and call counters (sandbox/kit/control.ts), and DigitalOcean's settings (how long a load balancer stays `new`)
 * and Droplets (the provider only reads them, so they are made here). It needs the same token, is never faulted, rate limited or counted, so a test can always
 * reach it.
 */
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { commonControlEndpoints } from "../kit/control.ts";
import type { RateLimitBucket } from "../kit/rate-limit.ts";
import { DoError } from "./errors.ts";
import { type Faults, faultsSchema } from "./faults.ts";
import { bodyOf, type Endpoint, json, noContent, tagName } from "./routes/endpoint.ts";
import { createDroplet, deleteDroplet, dropletStatuses, dropletView, getDroplet } from "./state/droplets.ts";
import type { World } from "./state/world.ts";

export const settingsSchema = v.strictObject({
  lbActiveDelayMs: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000))),
});

const dropletSchema = v.strictObject({
  name: v.pipe(v.string(), v.nonEmpty()),
  region: v.exactOptional(v.string()),
  size: v.exactOptional(v.string()),
  status: v.exactOptional(v.picklist(dropletStatuses)),
  tags: v.exactOptional(v.array(tagName)),
});

const dropletChange = v.strictObject({ status: v.picklist(dropletStatuses) });

export interface ControlDeps {
  readonly world: World;
  readonly faults: Faults;
  readonly bucket: RateLimitBucket;
  readonly calls: CallCounter;
}

function dropletParam(params: Readonly<Record<string, string>>): number {
  const id = Number(params.id);
  if (!Number.isInteger(id)) throw new DoError("not_found", `'${params.id}' is not a Droplet ID`);
  return id;
}

export function controlEndpoints({ world, faults, bucket, calls }: ControlDeps): Endpoint[] {
  const settings = () => ({ lbActiveDelayMs: world.lbActiveDelayMs });
  return [
    ...commonControlEndpoints({ faults, faultsSchema, calls, bucket }),
    { method: "GET", route: "/settings", handle: () => json({ settings: settings() }) },
    {
      method: "PUT",
      route: "/settings",
      handle: async (call) => {
        const body = await bodyOf(call, settingsSchema);
        if (body.lbActiveDelayMs !== undefined) world.lbActiveDelayMs = body.lbActiveDelayMs;
        return json({ settings: settings() });
      },
    },
    {
      method: "POST",
      route: "/droplets",
      handle: async (call) =>
        json({ droplet: dropletView(world, createDroplet(world, await bodyOf(call, dropletSchema))) }, 201),
    },
    {
      method: "PUT",
      route: "/droplets/:id",
      handle: async (call) => {
        const droplet = getDroplet(world, dropletParam(call.params));
        droplet.status = (await bodyOf(call, dropletChange)).status;
        return json({ droplet: dropletView(world, droplet) });
      },
    },
    {
      method: "DELETE",
      route: "/droplets/:id",
      handle: (call) => {
        deleteDroplet(world, dropletParam(call.params));
        return noContent();
      },
    },
  ];
}
