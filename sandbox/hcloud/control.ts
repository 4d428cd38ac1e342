/**
 * The emulator's control API under `/_emulator` (not part of Hetzner's): the kit's faults, rate-limit bucket and
 * call counters (sandbox/kit/control.ts), and Hetzner's settings (action duration, the legacy `datacenter` field,
 * load balancer types' deprecation). It needs the same token, is never faulted, rate limited or counted, so a test
 * can always reach it.
 */
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { commonControlEndpoints } from "../kit/control.ts";
import type { RateLimitBucket } from "../kit/rate-limit.ts";
import { type Faults, faultsSchema } from "./faults.ts";
import { bodyOf, type Endpoint, json } from "./routes/endpoint.ts";
import type { World } from "./state/world.ts";

const isoTime = v.pipe(v.string(), v.isoTimestamp("must be an ISO-8601 time such as 2026-01-01T00:00:00+00:00"));

export const settingsSchema = v.strictObject({
  actionDurationMs: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000))),
  legacyDatacenter: v.exactOptional(v.boolean()),
  /** By type name: the `deprecation` the API sends for it from now on; null ends it. Other types are left as they are. */
  loadBalancerTypeDeprecations: v.exactOptional(
    v.record(v.string(), v.nullable(v.strictObject({ announced: isoTime, unavailable_after: isoTime }))),
  ),
});

export interface ControlDeps {
  readonly world: World;
  readonly faults: Faults;
  readonly bucket: RateLimitBucket;
  readonly calls: CallCounter;
}

export function controlEndpoints({ world, faults, bucket, calls }: ControlDeps): Endpoint[] {
  const settings = () => ({
    actionDurationMs: world.actions.durationMs,
    legacyDatacenter: world.legacyDatacenter,
    loadBalancerTypeDeprecations: Object.fromEntries(world.loadBalancerTypeDeprecations),
  });
  return [
    ...commonControlEndpoints({ faults, faultsSchema, calls, bucket }),
    { method: "GET", route: "/settings", handle: () => json({ settings: settings() }) },
    {
      method: "PUT",
      route: "/settings",
      handle: async (call) => {
        const body = await bodyOf(call, settingsSchema);
        if (body.actionDurationMs !== undefined) world.actions.durationMs = body.actionDurationMs;
        if (body.legacyDatacenter !== undefined) world.legacyDatacenter = body.legacyDatacenter;
        for (const [name, deprecation] of Object.entries(body.loadBalancerTypeDeprecations ?? {})) {
          if (deprecation === null) world.loadBalancerTypeDeprecations.delete(name);
          else world.loadBalancerTypeDeprecations.set(name, deprecation);
        }
        return json({ settings: settings() });
      },
    },
  ];
}
