/** `/certificates`: list (name, label_selector, type), create (uploaded or managed), get, update, delete, retry. */
import * as v from "valibot";
import { checkLabels } from "../labels.ts";
import { list } from "../listing.ts";
import {
  certificateView,
  createCertificate,
  deleteCertificate,
  retryIssuance,
  updateCertificate,
} from "../state/certificates.ts";
import type { Certificate } from "../state/types.ts";
import { resourceActionEndpoints } from "./actions.ts";
import { bodyOf, type Endpoint, idParam, json, labelsSchema, listAnswer, nameSchema } from "./endpoint.ts";

const createSchema = v.variant("type", [
  v.object({
    name: nameSchema,
    type: v.exactOptional(v.literal("uploaded")),
    certificate: v.pipe(v.string(), v.nonEmpty()),
    private_key: v.pipe(v.string(), v.nonEmpty()),
    labels: v.exactOptional(labelsSchema),
  }),
  v.object({
    name: nameSchema,
    type: v.literal("managed"),
    domain_names: v.pipe(v.array(v.pipe(v.string(), v.nonEmpty())), v.minLength(1, "needs at least one domain name")),
    labels: v.exactOptional(labelsSchema),
  }),
]);
const updateSchema = v.object({ name: v.exactOptional(nameSchema), labels: v.exactOptional(labelsSchema) });

const sortable = {
  id: (c: Certificate) => c.id,
  name: (c: Certificate) => c.name,
  created: (c: Certificate) => c.created,
};

export const certificateEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/certificates",
    handle: ({ world, url }) => {
      const types = url.searchParams.getAll("type");
      const filter = (c: Certificate) => types.length === 0 || types.includes(c.type);
      const listed = list([...world.certificates.values()], url, {
        sortable,
        name: (c) => c.name,
        labels: (c) => c.labels,
        filter,
      });
      return listAnswer("certificates", listed, (c) => certificateView(world, c));
    },
  },
  {
    method: "POST",
    route: "/certificates",
    handle: async (call) => {
      const body = await bodyOf(call, createSchema);
      if (body.labels) checkLabels(body.labels);
      const { certificate, action } = createCertificate(call.world, body);
      return json({ certificate: certificateView(call.world, certificate), action }, 201);
    },
  },
  {
    method: "GET",
    route: "/certificates/:id",
    handle: (call) => json({ certificate: certificateView(call.world, call.world.certificate(idParam(call))) }),
  },
  {
    method: "PUT",
    route: "/certificates/:id",
    handle: async (call) => {
      const certificate = call.world.certificate(idParam(call));
      const body = await bodyOf(call, updateSchema);
      if (body.labels) checkLabels(body.labels);
      updateCertificate(call.world, certificate, body);
      return json({ certificate: certificateView(call.world, certificate) });
    },
  },
  {
    method: "DELETE",
    route: "/certificates/:id",
    handle: (call) => {
      deleteCertificate(call.world, call.world.certificate(idParam(call)));
      return new Response(null, { status: 204 });
    },
  },
  {
    method: "POST",
    route: "/certificates/:id/actions/retry",
    handle: (call) => json({ action: retryIssuance(call.world, call.world.certificate(idParam(call))) }, 201),
  },
  ...resourceActionEndpoints("certificates", "certificate", (id, call) => call.world.certificate(id)),
];
