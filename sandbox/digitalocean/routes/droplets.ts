/** `GET /v2/droplets` (`tag_name`, `name`, paged) and `GET /v2/droplets/:id`; `GET /v2/account` and `/v2/regions`. */
import { DoError } from "../errors.ts";
import { page } from "../listing.ts";
import { dropletView, getDroplet, listDroplets } from "../state/droplets.ts";
import { regions, regionView } from "../state/regions.ts";
import { type Call, type Endpoint, json } from "./endpoint.ts";

function idParam(call: Call): number {
  const text = call.params.id ?? "";
  if (!/^[1-9]\d{0,15}$/.test(text)) throw new DoError("not_found", `'${text}' is not a Droplet ID`);
  return Number(text);
}

export const dropletEndpoints: readonly Endpoint[] = [
  {
    method: "GET",
    route: "/droplets",
    handle: ({ world, url }) => {
      const tag = url.searchParams.get("tag_name");
      const name = url.searchParams.get("name");
      if (tag !== null && name !== null) {
        throw new DoError("unprocessable_entity", "tag_name and name cannot be used together");
      }
      const droplets = listDroplets(world, tag).filter((d) => name === null || d.name === name);
      return json(page("droplets", droplets, url, (d) => dropletView(world, d)));
    },
  },
  {
    method: "GET",
    route: "/droplets/:id",
    handle: (call) => json({ droplet: dropletView(call.world, getDroplet(call.world, idParam(call))) }),
  },
  {
    method: "GET",
    route: "/regions",
    handle: ({ url }) => json(page("regions", regions, url, (r) => regionView(r.slug))),
  },
  {
    method: "GET",
    route: "/account",
    handle: () =>
      json({
        account: {
          droplet_limit: 25,
          floating_ip_limit: 5,
          email: "sammy@example.com",
          name: "Sammy the Shark",
          uuid: "b6fc48dbf6d9906cace5f3c78dc9851e757381ef",
          email_verified: true,
          status: "active",
          status_message: "",
          team: { uuid: "5df3e3004a17e242b7c20ca6c9fc25b701a47ece", name: "Emulated team" },
        },
      }),
  },
];
