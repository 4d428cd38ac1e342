/**
 * The certificate IDs of a Service's https listeners, as hccm finds them: `http-certificates` by ID or by name, or,
 * with `certificate-type: managed`, the one managed certificate carrying the Service's `hcloud-ccm/service-uid`
 * label (created for `http-managed-certificate-domains` when there is none, unless only previewing).
 */
import type { CallContext } from "../../cloud.ts";
import { type HcloudAnnotationValues, annotationKey as key } from "../annotations.ts";
import { SERVICE_UID_LABEL } from "../api/load-balancers.ts";
import { LoadBalancerSpecError } from "./desired.ts";

/** Certificates as the https listeners need them (`HcloudCertificates` has these). */
export interface HcloudCertificatesApi {
  /** The ID of the certificate named `name`, or `undefined`. */
  idByName(ctx: CallContext, name: string): Promise<number | undefined>;
  /** The ID of the managed certificate labelled with the Service's UID, or `undefined`. Reads only. */
  managedID(ctx: CallContext, uid: string): Promise<number | undefined>;
  /** That certificate's ID, created for `domains` when missing. */
  ensureManaged(
    ctx: CallContext,
    spec: {
      readonly name: string;
      readonly domains: readonly string[];
      readonly labels: Readonly<Record<string, string>>;
    },
  ): Promise<number>;
}

export interface CertificateIDs {
  /** `undefined`: the listeners' certificates are left as they are (none asked for, or one still to be made). */
  readonly ids?: readonly number[];
  /** When previewing: the managed certificate `ensure` would create first. */
  readonly wouldCreate?: string;
}

/** With `write: false` nothing is created: a missing managed certificate is reported in `wouldCreate`. */
export async function certificateIDs(
  ctx: CallContext,
  api: HcloudCertificatesApi | undefined,
  uid: string,
  v: HcloudAnnotationValues,
  write: boolean,
): Promise<CertificateIDs> {
  const need = (): HcloudCertificatesApi => {
    if (api) return api;
    throw new Error("certificates by name and managed certificates need the certificates API, which was not given");
  };
  if (v.certificateType === "managed") {
    const domains = v.managedCertificateDomains ?? [];
    if (domains.length === 0) {
      throw new LoadBalancerSpecError(
        `${key("certificate-type")}=managed needs ${key("http-managed-certificate-domains")}`,
      );
    }
    const name = v.managedCertificateName ?? `ccm-managed-certificate-${uid}`;
    if (!write) {
      const id = await need().managedID(ctx, uid);
      return id === undefined
        ? { wouldCreate: `create managed certificate ${name} for ${domains.join(", ")}` }
        : { ids: [id] };
    }
    const labels = {
      [SERVICE_UID_LABEL]: uid,
      ...(v.managedCertificateACMEStaging ? { "HC-Use-Staging-CA": "true" } : {}),
    };
    return { ids: [await need().ensureManaged(ctx, { name, domains, labels })] };
  }
  if (v.certificates === undefined) return {};
  const ids: number[] = [];
  for (const ref of v.certificates) {
    const id = "id" in ref ? ref.id : await need().idByName(ctx, ref.name);
    if (id === undefined) {
      throw new LoadBalancerSpecError(
        `${key("http-certificates")} names the certificate ${"name" in ref ? ref.name : ""}, which the project does not have (hcloud certificate list)`,
      );
    }
    ids.push(id);
  }
  return { ids };
}
