/**
 * Instance servers (`/instance/v1/zones/{zone}/servers`) and Elastic Metal servers
 * (`/baremetal/v1/zones/{zone}/servers`): list with the filters a CCM uses, and get by ID. Writes are the control
 * API's (a CCM never makes servers).
 */
import { json } from "../../kit/router.ts";
import { instancePages, pageAnswer, regionalPages } from "../listing.ts";
import { baremetalServerView, getBaremetalServer } from "../state/baremetal.ts";
import { getInstanceServer, instanceServerView } from "../state/instance.ts";
import { baremetalZones, instanceZones } from "../state/world.ts";
import { type Endpoint, hasTags, locality, nameContains, uuidParam } from "./endpoint.ts";

/** Oldest first; servers made at the same instant keep the order they were made in. */
const byCreation = <T extends { created: number }>(a: T, b: T) => a.created - b.created;

export const serverEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/instance/v1/zones/:zone/servers",
    handle(call) {
      const zone = locality(call, "zone", instanceZones);
      const q = call.url.searchParams;
      const servers = [...call.world.instances.values()]
        .filter(
          (s) =>
            s.zone === zone &&
            nameContains(q, s.name) &&
            hasTags(q, s.tags) &&
            (q.get("project") ?? s.project) === s.project &&
            (q.get("state") ?? s.state) === s.state &&
            (q.get("commercial_type") ?? s.commercialType) === s.commercialType &&
            (q.get("private_network") === null ||
              s.privateNics.some((nic) => nic.privateNetworkId === q.get("private_network"))),
        )
        .sort(byCreation);
      return pageAnswer("servers", servers, call.url, instancePages, instanceServerView);
    },
  },
  {
    method: "GET",
    route: "/instance/v1/zones/:zone/servers/:server_id",
    handle(call) {
      const zone = locality(call, "zone", instanceZones);
      const server = getInstanceServer(call.world, zone, uuidParam(call, "server_id"));
      return json({ server: instanceServerView(server) });
    },
  },
  {
    method: "GET",
    route: "/baremetal/v1/zones/:zone/servers",
    handle(call) {
      const zone = locality(call, "zone", baremetalZones);
      const q = call.url.searchParams;
      const servers = [...call.world.baremetal.values()]
        .filter(
          (s) =>
            s.zone === zone &&
            nameContains(q, s.name) &&
            hasTags(q, s.tags) &&
            (q.get("project_id") ?? s.project) === s.project &&
            (q.getAll("status").length === 0 || q.getAll("status").includes(s.status)),
        )
        .sort(byCreation);
      return pageAnswer("servers", servers, call.url, regionalPages, baremetalServerView);
    },
  },
  {
    method: "GET",
    route: "/baremetal/v1/zones/:zone/servers/:server_id",
    handle(call) {
      const zone = locality(call, "zone", baremetalZones);
      // Elastic Metal answers the server itself, not wrapped in `{"server": …}`.
      return json(baremetalServerView(getBaremetalServer(call.world, zone, uuidParam(call, "server_id"))));
    },
  },
];
