/**
 * The part of the Cloud API's catalogue the load-balancer settings name: the locations (each in a network zone)
 * and the load balancer types. A setting the catalogue does not hold would fail only at the first load balancer
 * (or, for the type, turn into a `change_type` of every existing one), so the provider checks them at start and in
 * `doctor` against one read of each list.
 */
import * as v from "valibot";
import type { CallContext } from "../cloud.ts";
import type { HcloudTransport } from "./api/client.ts";
import type { HcloudConfig } from "./config.ts";

export interface HcloudCatalogue {
  readonly locations: readonly { readonly name: string; readonly networkZone: string }[];
  /** Only read when a setting names a type. */
  readonly loadBalancerTypes?: readonly string[];
}

/** More than Hetzner has of either (6 locations, 3 types): one page holds them all. */
const PER_PAGE = 50;
const locationsAnswer = v.object({
  locations: v.array(v.object({ name: v.string(), network_zone: v.string() })),
});
const typesAnswer = v.object({ load_balancer_types: v.array(v.object({ name: v.string() })) });

/** The locations; the load balancer types only when `withTypes`. Each is one call. */
export async function readCatalogue(
  transport: HcloudTransport,
  ctx: CallContext,
  withTypes: boolean,
): Promise<HcloudCatalogue> {
  const { locations } = await transport.client.request(ctx, {
    operation: "listLocations",
    method: "GET",
    path: "/locations",
    query: { per_page: PER_PAGE },
    answer: locationsAnswer,
  });
  const out = locations.map((l) => ({ name: l.name, networkZone: l.network_zone }));
  if (!withTypes) return { locations: out };
  const { load_balancer_types } = await transport.client.request(ctx, {
    operation: "listLoadBalancerTypes",
    method: "GET",
    path: "/load_balancer_types",
    query: { per_page: PER_PAGE },
    answer: typesAnswer,
  });
  return { locations: out, loadBalancerTypes: load_balancer_types.map((t) => t.name) };
}

/** What the `HCLOUD_LOAD_BALANCERS_*` settings name that the catalogue does not hold, one line each. */
export function catalogueIssues(lb: HcloudConfig["loadBalancers"], catalogue: HcloudCatalogue): string[] {
  const out: string[] = [];
  const locations = catalogue.locations.map((l) => l.name);
  const zones = [...new Set(catalogue.locations.map((l) => l.networkZone))];
  if (lb.location !== undefined && !locations.includes(lb.location)) {
    out.push(`HCLOUD_LOAD_BALANCERS_LOCATION=${lb.location} is not a location: ${locations.join(", ")}`);
  }
  if (lb.networkZone !== undefined && !zones.includes(lb.networkZone)) {
    out.push(`HCLOUD_LOAD_BALANCERS_NETWORK_ZONE=${lb.networkZone} is not a network zone: ${zones.join(", ")}`);
  }
  const types = catalogue.loadBalancerTypes;
  if (lb.type !== undefined && types !== undefined && !types.includes(lb.type)) {
    out.push(`HCLOUD_LOAD_BALANCERS_TYPE=${lb.type} is not a load balancer type: ${types.join(", ")}`);
  }
  return out;
}
