/**
 * Hetzner Cloud certificates, as far as load balancers need them: an uploaded certificate's ID from its name (the
 * `http-certificates` annotation may name one), and the Service's managed (Let's Encrypt) certificate, found by the
 * `hcloud-ccm/service-uid` label hccm puts on it, created when missing.
 *
 * Creation is not repeated by the client (a lost answer may have created it); the next sync finds it by its label.
 * Issuance is not waited for: the API takes a pending managed certificate on a listener, as hccm relies on.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { type HcloudTransport, listAll } from "./client.ts";
import { SERVICE_UID_LABEL } from "./load-balancers.ts";

const certificateSchema = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  name: v.string(),
  type: v.optional(v.string(), "uploaded"),
  labels: v.pipe(
    v.optional(v.nullable(v.record(v.string(), v.string())), null),
    v.transform((x) => x ?? {}),
  ),
});

export type CloudCertificate = v.InferOutput<typeof certificateSchema>;

export interface ManagedCertificateSpec {
  readonly name: string;
  readonly domains: readonly string[];
  /** Must hold `hcloud-ccm/service-uid`: that is how it is found again. */
  readonly labels: Readonly<Record<string, string>>;
}

export class HcloudCertificates {
  readonly #t: HcloudTransport;

  constructor(transport: HcloudTransport) {
    this.#t = transport;
  }

  /** The ID of the certificate named `name`, or `undefined` when the project has none. */
  async idByName(ctx: CallContext, name: string): Promise<number | undefined> {
    const found = await this.#list(ctx, { name });
    return found.find((c) => c.name === name)?.id;
  }

  /** The ID of the certificate labelled as the Service's with `uid`, or `undefined`. */
  async managedID(ctx: CallContext, uid: string): Promise<number | undefined> {
    const [owned] = await this.#list(ctx, { label_selector: `${SERVICE_UID_LABEL}=${uid}` });
    return owned?.id;
  }

  /** The managed certificate carrying `spec.labels`' service UID; created for `spec.domains` when there is none. */
  async ensureManaged(ctx: CallContext, spec: ManagedCertificateSpec): Promise<number> {
    const uid = spec.labels[SERVICE_UID_LABEL];
    if (uid === undefined) throw new Error(`a managed certificate needs the ${SERVICE_UID_LABEL} label`);
    const owned = await this.managedID(ctx, uid);
    if (owned !== undefined) return owned;
    try {
      const answer = await this.#t.client.request(ctx, {
        operation: "createCertificate",
        method: "POST",
        path: "/certificates",
        body: { name: spec.name, type: "managed", domain_names: spec.domains, labels: spec.labels },
        answer: v.object({ certificate: certificateSchema }),
        idempotent: false,
      });
      return answer.certificate.id;
    } catch (err) {
      if (!(err instanceof CloudApiError && err.code === "uniqueness_error")) throw err;
      throw new Error(
        `a certificate named ${spec.name} already exists and is not this Service's (no ${SERVICE_UID_LABEL}=${uid}); choose another name with load-balancer.hetzner.cloud/http-managed-certificate-name`,
        { cause: err },
      );
    }
  }

  #list(ctx: CallContext, query: Record<string, string>): Promise<CloudCertificate[]> {
    return listAll(this.#t, ctx, {
      operation: "listCertificates",
      path: "/certificates",
      key: "certificates",
      item: certificateSchema,
      query,
    });
  }
}
