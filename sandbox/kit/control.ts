/**
 * The control endpoints every emulator has under `/_emulator` (not part of any cloud's API): `GET`/`PUT /faults`,
 * `GET`/`PUT /rate-limit` when the cloud has a rate limit, and the call counters (`GET /calls`,
 * `GET /calls/writes`, `DELETE /calls`). An emulator adds its own (`/settings`, resources the provider only reads).
 */
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { type Endpoint, json, noContent } from "./router.ts";

const count = v.pipe(v.number(), v.integer(), v.minValue(1));

export const rateLimitSchema = v.strictObject({
  limit: count,
  /** Default: `limit` (the whole bucket refills in an hour). */
  perHour: v.exactOptional(count),
});

export interface RateLimitControl {
  readonly config: unknown;
  peek(): unknown;
  set(config: { limit: number; perHour: number }): void;
}

export interface CommonControlDeps<C> {
  readonly faults: { get(): C; set(config: C): C };
  readonly faultsSchema: v.GenericSchema<unknown, C>;
  readonly calls: CallCounter;
  readonly bucket?: RateLimitControl | undefined;
}

export function commonControlEndpoints<C>(deps: CommonControlDeps<C>): Endpoint<unknown>[] {
  const { faults, faultsSchema, calls, bucket } = deps;
  const limits: Endpoint<unknown>[] = bucket
    ? [
        {
          method: "GET",
          route: "/rate-limit",
          handle: () => json({ rateLimit: bucket.config, headers: bucket.peek() }),
        },
        {
          method: "PUT",
          route: "/rate-limit",
          handle: async (call) => {
            const body = await call.bodyOf(rateLimitSchema);
            bucket.set({ limit: body.limit, perHour: body.perHour ?? body.limit });
            return json({ rateLimit: bucket.config, headers: bucket.peek() });
          },
        },
      ]
    : [];
  return [
    { method: "GET", route: "/faults", handle: () => json({ faults: faults.get() }) },
    {
      method: "PUT",
      route: "/faults",
      handle: async (call) => json({ faults: faults.set(await call.bodyOf(faultsSchema)) }),
    },
    ...limits,
    { method: "GET", route: "/calls", handle: () => json({ calls: calls.snapshot() }) },
    { method: "GET", route: "/calls/writes", handle: () => json({ writes: calls.writes() }) },
    {
      method: "DELETE",
      route: "/calls",
      handle: () => {
        calls.reset();
        return noContent();
      },
    },
  ];
}
