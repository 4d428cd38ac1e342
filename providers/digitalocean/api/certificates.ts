/**
 * The certificates the provider reads (`/v2/certificates`): by name, for `do-loadbalancer-certificate-name`, and by
 * ID, to follow a Let's Encrypt renewal as DO CCM does. Schemas ask only for what is used.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";

export interface Certificate {
  readonly id: string;
  readonly name: string;
  /** `custom` or `lets_encrypt`. */
  readonly type: string;
}

export interface CertificatesApi {
  /** The ID of the certificate named `name`, or `undefined` when there is none. */
  idByName(ctx: CallContext, name: string): Promise<string | undefined>;
  /** One certificate, or `undefined` when the API answers 404. */
  get(ctx: CallContext, id: string): Promise<Certificate | undefined>;
}

const certificateSchema = v.object({ id: v.string(), name: v.string(), type: v.optional(v.string(), "custom") });

export class HttpCertificatesApi implements CertificatesApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  async idByName(ctx: CallContext, name: string): Promise<string | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "listCertificates",
      method: "GET",
      path: "/certificates",
      query: { name, per_page: 1 },
      answer: v.object({ certificates: v.array(certificateSchema) }),
    });
    return answer.certificates.find((c) => c.name === name)?.id;
  }

  async get(ctx: CallContext, id: string): Promise<Certificate | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "getCertificate",
      method: "GET",
      path: `/certificates/${encodeURIComponent(id)}`,
      answer: v.object({ certificate: certificateSchema }),
      notFound: true,
    });
    return answer?.certificate;
  }
}
