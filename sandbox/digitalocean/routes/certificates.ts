/**
 * `/v2/certificates`: list (`name` filters), get, create (201), delete. A create needs `name`; a `custom` one also
 * `private_key` and `leaf_certificate`, a `lets_encrypt` one `dns_names`, as the API document's two request shapes
 * say. The PEM text is not parsed: the emulator keeps only what the API answers with.
 */
import { createHash } from "node:crypto";
import * as v from "valibot";
import { notFound, unprocessable } from "../errors.ts";
import { page } from "../listing.ts";
import type { Certificate } from "../state/certificates.ts";
import type { World } from "../state/world.ts";
import { bodyOf, type Call, type Endpoint, json, noContent } from "./endpoint.ts";

const text = v.pipe(v.string(), v.nonEmpty("must not be empty"));

export const certificateBody = v.variant("type", [
  v.object({
    name: text,
    type: v.literal("lets_encrypt"),
    dns_names: v.pipe(v.array(text), v.minLength(1, "needs at least one name")),
  }),
  v.object({
    name: text,
    type: v.optional(v.literal("custom"), "custom"),
    private_key: text,
    leaf_certificate: text,
    certificate_chain: v.optional(v.string()),
  }),
]);

function view(world: World, c: Certificate): object {
  return {
    id: c.id,
    name: c.name,
    not_after: world.iso(c.createdAt + 90 * 86_400_000),
    sha1_fingerprint: c.fingerprint,
    created_at: world.iso(c.createdAt),
    dns_names: [...c.dnsNames],
    state: "verified",
    type: c.type,
  };
}

function one(call: Call): Certificate {
  const cert = call.world.certificates.get(call.params.id ?? "");
  if (!cert) throw notFound();
  return cert;
}

export const certificateEndpoints: readonly Endpoint[] = [
  {
    method: "GET",
    route: "/certificates",
    handle: ({ world, url }) => {
      const name = url.searchParams.get("name");
      const certs = [...world.certificates.values()].filter((c) => name === null || c.name === name);
      return json(page("certificates", certs, url, (c) => view(world, c)));
    },
  },
  {
    method: "POST",
    route: "/certificates",
    handle: async (call) => {
      const { world } = call;
      // Absent `type` means custom; `variant` needs the key, so fill it before parsing.
      const raw = await call.body();
      const body = await bodyOf(
        {
          ...call,
          body: async () => (raw && typeof raw === "object" && !("type" in raw) ? { ...raw, type: "custom" } : raw),
        },
        certificateBody,
      );
      if ([...world.certificates.values()].some((c) => c.name === body.name)) {
        throw unprocessable(`a certificate named '${body.name}' already exists`);
      }
      const cert: Certificate = {
        id: world.uuid(),
        name: body.name,
        type: body.type,
        dnsNames: body.type === "lets_encrypt" ? body.dns_names : [],
        createdAt: world.now(),
        fingerprint: createHash("sha1").update(body.name).digest("hex"),
      };
      world.certificates.set(cert.id, cert);
      return json({ certificate: view(world, cert) }, 201);
    },
  },
  { method: "GET", route: "/certificates/:id", handle: (call) => json({ certificate: view(call.world, one(call)) }) },
  {
    method: "DELETE",
    route: "/certificates/:id",
    handle: (call) => {
      call.world.certificates.delete(one(call).id);
      return noContent();
    },
  },
];
