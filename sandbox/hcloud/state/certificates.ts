/**
 * Certificates: uploaded (a PEM certificate and its key, read for validity, names and fingerprint) or managed
 * (Let's Encrypt for `domain_names`, issued when the issuance action ends — or failed, when a fault ends it in
 * error, until `retry`). A managed certificate's PEM is not emulated: `certificate` stays null.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { Action } from "../actions.ts";
import { HcloudError, invalidInput, notUnique } from "../errors.ts";
import type { Labels } from "../labels.ts";
import type { Certificate } from "./types.ts";
import type { World } from "./world.ts";

export type CertificateSpec =
  | {
      name: string;
      type?: "uploaded" | undefined;
      certificate: string;
      private_key: string;
      labels?: Labels | undefined;
    }
  | { name: string; type: "managed"; domain_names: string[]; labels?: Labels | undefined };

/** The action issuing each managed certificate: its status is the certificate's issuance status. */
const issuance = new WeakMap<Certificate, number>();

export function createCertificate(
  world: World,
  spec: CertificateSpec,
): { certificate: Certificate; action: Action | null } {
  if ([...world.certificates.values()].some((c) => c.name === spec.name)) throw notUnique("name", spec.name);
  const base = { id: world.nextId(), name: spec.name, labels: spec.labels ?? {}, created: world.createdAt() };
  if (spec.type !== "managed") {
    const certificate: Certificate = { ...base, ...readUploaded(spec.certificate, spec.private_key), status: null };
    world.certificates.set(certificate.id, certificate);
    return { certificate, action: null };
  }
  const certificate: Certificate = {
    ...base,
    type: "managed",
    certificate: null,
    not_valid_before: null,
    not_valid_after: null,
    domain_names: spec.domain_names,
    fingerprint: null,
    status: { issuance: "pending", renewal: "unavailable", error: null },
  };
  world.certificates.set(certificate.id, certificate);
  const action = world.act("create_certificate", [{ id: certificate.id, type: "certificate" }], () => {});
  issuance.set(certificate, action.id);
  return { certificate, action };
}

/** `POST /certificates/{id}/actions/retry`: only a managed certificate whose issuance failed. */
export function retryIssuance(world: World, certificate: Certificate): Action {
  if (certificate.type !== "managed" || certificateView(world, certificate).status?.issuance !== "failed") {
    throw new HcloudError(
      "conflict",
      `certificate ${certificate.id} is not a managed certificate whose issuance failed`,
    );
  }
  const action = world.act("issue_certificate", [{ id: certificate.id, type: "certificate" }], () => {});
  issuance.set(certificate, action.id);
  return action;
}

export function deleteCertificate(world: World, certificate: Certificate): void {
  world.actions.assertUnlocked({ id: certificate.id, type: "certificate" });
  const users = usedBy(world, certificate);
  if (users.length > 0) {
    throw new HcloudError(
      "conflict",
      `certificate ${certificate.id} is used by load balancer ${users.map((u) => u.id).join(", ")}`,
    );
  }
  world.certificates.delete(certificate.id);
}

export function updateCertificate(
  world: World,
  certificate: Certificate,
  change: { name?: string | undefined; labels?: Labels | undefined },
): void {
  if (
    change.name !== undefined &&
    [...world.certificates.values()].some((c) => c.name === change.name && c.id !== certificate.id)
  ) {
    throw notUnique("name", change.name);
  }
  if (change.name !== undefined) certificate.name = change.name;
  if (change.labels !== undefined) certificate.labels = change.labels;
}

export function certificateView(
  world: World,
  certificate: Certificate,
): Certificate & { used_by: { id: number; type: string }[] } {
  const fields = structuredClone(certificate);
  const actionId = issuance.get(certificate);
  const action = actionId === undefined ? undefined : world.actions.get(actionId);
  if (fields.type === "managed" && action) {
    if (action.status === "success") {
      const from = Date.parse(action.finished ?? action.started);
      fields.status = { issuance: "completed", renewal: "scheduled", error: null };
      fields.not_valid_before = new Date(from).toISOString();
      fields.not_valid_after = new Date(from + 90 * 86_400_000).toISOString();
    } else if (action.status === "error") {
      fields.status = { issuance: "failed", renewal: "unavailable", error: action.error };
    }
  }
  return { ...fields, used_by: usedBy(world, certificate) };
}

function usedBy(world: World, certificate: Certificate): { id: number; type: string }[] {
  return [...world.loadBalancers.values()]
    .filter((lb) => lb.services.some((s) => s.http?.certificates.includes(certificate.id)))
    .map((lb) => ({ id: lb.id, type: "load_balancer" }));
}

function readUploaded(pem: string, key: string) {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pem);
  } catch (err) {
    throw invalidInput({ certificate: [`is not a PEM certificate (${err instanceof Error ? err.message : err})`] });
  }
  try {
    createPrivateKey(key);
  } catch (err) {
    throw invalidInput({ private_key: [`is not a PEM private key (${err instanceof Error ? err.message : err})`] });
  }
  const names = (x509.subjectAltName ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.startsWith("DNS:"))
    .map((s) => s.slice(4));
  return {
    type: "uploaded" as const,
    certificate: pem,
    not_valid_before: new Date(x509.validFrom).toISOString(),
    not_valid_after: new Date(x509.validTo).toISOString(),
    domain_names: names,
    fingerprint: x509.fingerprint256,
  };
}
