/**
 * URL paths to what they address: a discovery document, or a resource (collection, object or subresource).
 *
 * `/api/v1/namespaces/x/services` is the services in x, but `/api/v1/namespaces/x` (and `.../x/status`) is the
 * namespace x itself: the third segment decides, by being a namespaced resource or not.
 */
import type { ResourceRoute } from "./handlers.ts";
import { findResource } from "./resources.ts";

export type Route =
  | { readonly kind: "core-versions" }
  | { readonly kind: "groups" }
  | { readonly kind: "group"; readonly group: string }
  | { readonly kind: "resources"; readonly group: string; readonly version: string }
  | ({ readonly kind: "resource" } & ResourceRoute)
  | { readonly kind: "unknown" };

const UNKNOWN: Route = { kind: "unknown" };

export const parseRoute = (pathname: string): Route => {
  const segs = pathname
    .split("/")
    .filter((s) => s.length > 0)
    .map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (segs[0] === "api") {
    if (segs.length === 1) return { kind: "core-versions" };
    group = "";
    rest = segs.slice(1);
  } else if (segs[0] === "apis") {
    if (segs.length === 1) return { kind: "groups" };
    if (segs.length === 2) return { kind: "group", group: segs[1]! };
    group = segs[1]!;
    rest = segs.slice(2);
  } else return UNKNOWN;
  const version = rest[0]!;
  rest = rest.slice(1);
  if (rest.length === 0) return { kind: "resources", group, version };
  const watchPath = rest[0] === "watch";
  if (watchPath) rest = rest.slice(1);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && findResource(group, version, rest[2]!)?.namespaced) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return UNKNOWN;
  const [plural = "", name, sub] = rest;
  const def = findResource(group, version, plural);
  if (!def) return UNKNOWN;
  if (sub !== undefined && !((sub === "status" && def.statusSubresource) || (sub === "scale" && def.scaleSubresource)))
    return UNKNOWN;
  if (def.namespaced ? name !== undefined && namespace === undefined : namespace !== undefined) return UNKNOWN;
  return {
    kind: "resource",
    def,
    namespace,
    name,
    subresource: sub === "status" || sub === "scale" ? sub : undefined,
    watchPath,
  };
};
