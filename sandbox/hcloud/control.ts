/**
 * The emulator's control API under `/_emulator` (not part of Hetzner's): faults, the rate-limit bucket, settings
 * (action duration, the legacy `datacenter` field, load balancer types' deprecation) and the call counters. It needs the same token, is never
 * faulted, rate limited or counted, so a test can always reach it.
 */
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { type Faults, faultsSchema } from "./faults.ts";
import type { RateLimitBucket } from "./rate-limit.ts";
import { bodyOf, type Endpoint, json } from "./routes/endpoint.ts";
import type { World } from "./state/world.ts";

const count = v.pipe(v.number(), v.integer(), v.minValue(1));

export const rateLimitSchema = v.strictObject({
  limit: count,
  /** Default: `limit` (the whole bucket refills in an hour). */
  perHour: v.exactOptional(count),
});

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
    { method: "GET", route: "/faults", handle: () => json({ faults: faults.get() }) },
    {
      method: "PUT",
      route: "/faults",
      handle: async (call) => json({ faults: faults.set(await bodyOf(call, faultsSchema)) }),
    },
    { method: "GET", route: "/rate-limit", handle: () => json({ rateLimit: bucket.config, headers: bucket.peek() }) },
    {
      method: "PUT",
      route: "/rate-limit",
      handle: async (call) => {
        const body = await bodyOf(call, rateLimitSchema);
        bucket.set({ limit: body.limit, perHour: body.perHour ?? body.limit });
        return json({ rateLimit: bucket.config, headers: bucket.peek() });
      },
    },
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
    { method: "GET", route: "/calls", handle: () => json({ calls: calls.snapshot() }) },
    { method: "GET", route: "/calls/writes", handle: () => json({ writes: calls.writes() }) },
    {
      method: "DELETE",
      route: "/calls",
      handle: () => {
        calls.reset();
        return new Response(null, { status: 204 });
      },
    },
  ];
}
