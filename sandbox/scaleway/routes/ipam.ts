/**
 * IPAM (`/ipam/v1/regions/{region}/ips`): the private-network addresses of the region, filtered as the API does by
 * project, private network, resource (type, ID, MAC, name) and `is_ipv6`; and the Account API's project read
 * (`/account/v3/projects/{project_id}`), the cheap call that proves the keys and the project.
 */
import { json } from "../../kit/router.ts";
import { notFound } from "../errors.ts";
import { pageAnswer, regionalPages } from "../listing.ts";
import { ipamIpView, ipMatches } from "../state/ipam.ts";
import { ipamRegions, iso } from "../state/world.ts";
import { type Endpoint, locality, uuidParam } from "./endpoint.ts";

export const ipamEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/ipam/v1/regions/:region/ips",
    handle(call) {
      const region = locality(call, "region", ipamRegions);
      const q = call.url.searchParams;
      const ips = [...call.world.ips.values()]
        .filter((ip) => ip.region === region && ipMatches(ip, q))
        .sort((a, b) => a.created - b.created);
      return pageAnswer("ips", ips, call.url, regionalPages, ipamIpView);
    },
  },
  {
    method: "GET",
    route: "/account/v3/projects/:project_id",
    handle(call) {
      const id = uuidParam(call, "project_id");
      const project = call.world.projects.get(id);
      if (!project) throw notFound("project", id);
      return json({
        id: project.id,
        name: project.name,
        organization_id: project.organizationId,
        created_at: iso(project.created),
        updated_at: iso(project.created),
        description: "",
      });
    },
  },
];
