/**
 * What the Load Balancer API's route modules share: the zoned path prefix, the zone check (the SDK's LB zones), and
 * lookups of backends and frontends that answer `not_found` for one in another zone.
 */
import * as v from "valibot";
import { notFound } from "../errors.ts";
import { type Backend, type Frontend, lbZones } from "../state/lb.ts";
import type { World } from "../state/world.ts";
import { type Call, locality } from "./endpoint.ts";

export const Z = "/lb/v1/zones/:zone";
export const zoneOf = (call: Call) => locality(call, "zone", lbZones);
export const uuid = (what: string) => v.pipe(v.string(), v.uuid(`must be ${what}'s UUID`));

export function getBackend(world: World, zone: string, id: string): Backend {
  const b = world.lb.backends.get(id);
  if (!b || world.lb.lbs.get(b.lbId)?.zone !== zone) throw notFound("backend", id);
  return b;
}

export function getFrontend(world: World, zone: string, id: string): Frontend {
  const f = world.lb.frontends.get(id);
  if (!f || world.lb.lbs.get(f.lbId)?.zone !== zone) throw notFound("frontend", id);
  return f;
}

/** The certificates must be this load balancer's. */
export function checkCertificates(world: World, lbId: string, ids: readonly string[]): void {
  for (const id of ids) {
    if (world.lb.certificates.get(id)?.lbId !== lbId) throw notFound("certificate", id);
  }
}
