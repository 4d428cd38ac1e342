/**
 * `/v2/tags`: create (201; creating a tag that exists answers it again), get, and tagging resources (204). Only
 * Droplets can be tagged here; a tag names resources by `resource_id` and `resource_type`, as the API document's
 * `resources` array does.
 */
import * as v from "valibot";
import { notFound, unprocessable } from "../errors.ts";
import type { World } from "../state/world.ts";
import { bodyOf, type Call, type Endpoint, json, noContent, tagName } from "./endpoint.ts";

const resources = v.object({
  resources: v.pipe(
    v.array(
      v.object({
        resource_id: v.pipe(v.string(), v.nonEmpty()),
        resource_type: v.picklist(["droplet", "image", "volume", "volume_snapshot"]),
      }),
    ),
    v.minLength(1, "needs at least one resource"),
  ),
});

function view(world: World, name: string): object {
  const droplets = [...world.droplets.values()].filter((d) => d.tags.includes(name));
  const last = droplets.at(-1);
  const uri = last ? `https://api.digitalocean.com/v2/droplets/${last.id}` : "";
  return {
    name,
    resources: {
      count: droplets.length,
      last_tagged_uri: uri,
      droplets: { count: droplets.length, last_tagged_uri: uri },
    },
  };
}

function tagParam(call: Call): string {
  const name = call.params.tag ?? "";
  if (!call.world.tags.has(name)) throw notFound();
  return name;
}

function droplets(call: Call, body: v.InferOutput<typeof resources>) {
  return body.resources.map((r) => {
    if (r.resource_type !== "droplet") throw unprocessable(`the emulator tags Droplets only, not ${r.resource_type}`);
    const droplet = call.world.droplets.get(Number(r.resource_id));
    if (!droplet) throw notFound();
    return droplet;
  });
}

export const tagEndpoints: readonly Endpoint[] = [
  {
    method: "POST",
    route: "/tags",
    handle: async (call) => {
      const { name } = await bodyOf(call, v.object({ name: tagName }));
      call.world.tags.add(name);
      return json({ tag: view(call.world, name) }, 201);
    },
  },
  { method: "GET", route: "/tags/:tag", handle: (call) => json({ tag: view(call.world, tagParam(call)) }) },
  {
    method: "POST",
    route: "/tags/:tag/resources",
    handle: async (call) => {
      const name = tagParam(call);
      for (const d of droplets(call, await bodyOf(call, resources))) if (!d.tags.includes(name)) d.tags.push(name);
      return noContent();
    },
  },
  {
    method: "DELETE",
    route: "/tags/:tag/resources",
    handle: async (call) => {
      const name = tagParam(call);
      for (const d of droplets(call, await bodyOf(call, resources))) d.tags = d.tags.filter((t) => t !== name);
      return noContent();
    },
  },
];
