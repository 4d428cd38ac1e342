/**
 * The Load Balancer API's certificates and private-network attachments, zoned. An attachment books the load
 * balancer's address on the network in IPAM (resource `lb_server`), as Scaleway's API does.
 */
import * as v from "valibot";
import { json, noContent } from "../../kit/router.ts";
import { invalidArguments, notFound } from "../errors.ts";
import { pageAnswer, regionalPages } from "../listing.ts";
import { allocatePrivateIp } from "../state/ipam.ts";
import { getLb, type PrivateNetworkAttachment, requireReady } from "../state/lb.ts";
import { certificateView, privateNetworkView } from "../state/lb-views.ts";
import { regionOf } from "../state/world.ts";
import { type Endpoint, uuidParam } from "./endpoint.ts";
import { uuid, Z, zoneOf } from "./lb-common.ts";

export const extraEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/certificates`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const items = [...call.world.lb.certificates.values()].filter((c) => c.lbId === lb.id);
      return pageAnswer("certificates", items, call.url, regionalPages, (c) => certificateView(call.world, c));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/certificates`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(
        v.object({
          name: v.pipe(v.string(), v.nonEmpty()),
          letsencrypt: v.optional(v.object({ common_name: v.string() })),
          custom_certificate: v.optional(v.object({ certificate_chain: v.string() })),
        }),
      );
      if (!body.letsencrypt === !body.custom_certificate) {
        throw invalidArguments({ letsencrypt: "give exactly one of letsencrypt and custom_certificate" });
      }
      const c = {
        id: call.world.uuid(),
        lbId: lb.id,
        created: call.world.now(),
        type: body.letsencrypt ? ("letsencryt" as const) : ("custom" as const),
        name: body.name,
        commonName: body.letsencrypt?.common_name ?? "custom",
      };
      call.world.lb.certificates.set(c.id, c);
      return json(certificateView(call.world, c));
    },
  },
  {
    method: "GET",
    route: `${Z}/certificates/:certificate_id`,
    handle(call) {
      const id = uuidParam(call, "certificate_id");
      const c = call.world.lb.certificates.get(id);
      if (!c || call.world.lb.lbs.get(c.lbId)?.zone !== zoneOf(call)) throw notFound("certificate", id);
      return json(certificateView(call.world, c));
    },
  },
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/private-networks`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const items = call.world.lb.privateNetworks.filter((a) => a.lbId === lb.id);
      return pageAnswer("private_network", items, call.url, regionalPages, (a) => privateNetworkView(call.world, a));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/attach-private-network`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(
        v.object({
          private_network_id: uuid("a private network"),
          ipam_ids: v.optional(v.array(uuid("an IPAM IP")), []),
        }),
      );
      requireReady(call.world, lb);
      const pns = call.world.lb.privateNetworks;
      if (pns.some((a) => a.lbId === lb.id && a.privateNetworkId === body.private_network_id)) {
        throw invalidArguments({ private_network_id: "already attached" });
      }
      const a: PrivateNetworkAttachment = {
        lbId: lb.id,
        privateNetworkId: body.private_network_id,
        created: call.world.now(),
        ipamIds: body.ipam_ids,
      };
      pns.push(a);
      // The load balancer's address on the network, booked in IPAM as the real API does (resource `lb_server`).
      if (body.ipam_ids.length === 0) {
        const ips = allocatePrivateIp(call.world, {
          region: regionOf(lb.zone),
          project: lb.project,
          privateNetworkId: body.private_network_id,
          resource: { type: "lb_server", id: lb.id, macAddress: "02:00:00:00:00:01", name: lb.name },
        });
        a.ipamIds = ips.map((ip) => ip.id);
      }
      return json(privateNetworkView(call.world, a));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/detach-private-network`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(v.object({ private_network_id: uuid("a private network") }));
      requireReady(call.world, lb);
      const pns = call.world.lb.privateNetworks;
      const i = pns.findIndex((a) => a.lbId === lb.id && a.privateNetworkId === body.private_network_id);
      if (i < 0) throw notFound("private_network", body.private_network_id);
      for (const id of pns[i]?.ipamIds ?? []) call.world.ips.delete(id);
      pns.splice(i, 1);
      return noContent();
    },
  },
];
