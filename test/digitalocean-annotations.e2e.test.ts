/**
 * DO CCM's annotations on the compiled `digitalocean-cloud-controller-manager`: one row per annotation
 * (providers/digitalocean/lb/testdata/annotation-rows.ts) set on a Service changes the emulated load balancer as
 * documented, in place; rows read only at creation get a Service of their own. Then faults: under 429s and 5xx the
 * manager ends with exactly one load balancer per Service and none after the Service is deleted.
 */
import { beforeAll, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { DigitalOceanAnnotations } from "../providers/digitalocean/annotations.ts";
import { type AnnotationRow, annotationRows } from "../providers/digitalocean/lb/testdata/annotation-rows.ts";
import { ID_ANNOTATION, ns, useDoLbE2e } from "./support/digitalocean-lb.ts";
import { spawnCollecting } from "./support/processes.ts";

const e2e = useDoLbE2e("ccm-do-annotations-", 0);
let certID = "";

/** The rows' Service: ports 80 and 443; `web` on node ports 30080 and 30443 as the rows expect, others allocated. */
const spec = (name: string, annotations: Record<string, string>): Service => {
  const fixed = name === "web";
  return {
    metadata: { name, namespace: "default", annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, targetPort: 8080, ...(fixed && { nodePort: 30080 }), protocol: "TCP" },
        { name: "https", port: 443, targetPort: 8443, ...(fixed && { nodePort: 30443 }), protocol: "TCP" },
      ],
    },
  };
};

/** The Service's load balancer, by the tag the provider gives it. */
const lbOf = (name: string) => {
  const uid = e2e.service(name)?.metadata?.uid;
  return e2e.lbs().find((l) => uid !== undefined && l.spec.tags.includes(`ccm-service:${uid}`));
};

/** Whether the row's check holds now (its `expect`s throw until it does). */
const holds = (row: AnnotationRow, name: string) => () => {
  const lb = lbOf(name);
  const status = e2e.service(name)?.status?.loadBalancer;
  if (!lb || !status) return false;
  try {
    row.check(lb, status, { certID });
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  const answer = await fetch(`${e2e.emulator.endpoint}/v2/certificates`, {
    method: "POST",
    headers: { authorization: `Bearer ${e2e.env().DO_ACCESS_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "web-cert", private_key: "-----BEGIN KEY-----", leaf_certificate: "-----BEGIN-----" }),
  });
  certID = ((await answer.json()) as { certificate: { id: string } }).certificate.id;
  // REGIONAL, as the rows assume (DO CCM's own default is REGIONAL_NETWORK): ports forward to node ports.
  e2e.manager = spawnCollecting(await e2e.command(), e2e.env({ DEFAULT_LB_TYPE: "REGIONAL" }));
  await e2e.client.create(Resources.services, spec("web", {}), ns);
  await e2e.until("web's ingress", () => (e2e.service("web")?.status?.loadBalancer?.ingress ?? []).length > 0);
}, 180_000);

const inPlace = annotationRows.filter((r) => !r.atCreation);
const atCreation = annotationRows.filter((r) => r.atCreation);
const declared = DigitalOceanAnnotations.list.map((a) => a.key);

test.each(inPlace.map((r) => [r.key, r] as const))(
  "%s changes web's load balancer in place",
  async (_key, row) => {
    const id = lbOf("web")?.id;
    const wanted = row.annotations({ certID });
    // Exactly the row's annotations: the others of the set are removed (null in a merge patch); the ID stays.
    const annotations = Object.fromEntries(declared.map((k) => [k, wanted[k] ?? null]));
    await e2e.client.patch(Resources.services, "web", "merge", { metadata: { annotations } }, ns);
    await e2e.until(`${row.key} applied`, holds(row, "web"));
    expect(lbOf("web")?.id).toBe(id);
    expect(e2e.service("web")?.metadata?.annotations?.[ID_ANNOTATION]).toBe(id);
  },
  180_000,
);

test.each(atCreation.map((r, i) => [r.key, r, i] as const))(
  "%s applies at creation",
  async (_key, row, i) => {
    const name = `created-${i}`;
    await e2e.client.create(Resources.services, spec(name, row.annotations({ certID })), ns);
    await e2e.until(`${row.key} at creation`, holds(row, name));
    await e2e.client.delete(Resources.services, name, ns);
    await e2e.until(`${name}'s load balancer gone`, () => lbOf(name) === undefined && e2e.service(name) === undefined);
  },
  180_000,
);

test("under 429s and 5xx: one load balancer for a new Service, and none once it is deleted", async () => {
  const before = e2e.lbs().length;
  const fail = (
    method: "GET" | "POST" | "PUT" | "DELETE",
    id: "too_many_requests" | "server_error" | "service_unavailable",
  ) => ({ method, pathPrefix: "/load_balancers", id, count: 2 });
  e2e.emulator.faults.set({
    latencyMs: 0,
    errorRate: 0,
    failNext: [fail("POST", "too_many_requests"), fail("GET", "server_error"), fail("PUT", "service_unavailable")],
  });
  await e2e.client.create(Resources.services, spec("faulty", {}), ns);
  await e2e.until("faulty's ingress", () => (e2e.service("faulty")?.status?.loadBalancer?.ingress ?? []).length > 0);
  expect(e2e.lbs()).toHaveLength(before + 1);
  e2e.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [fail("DELETE", "server_error")] });
  await e2e.client.delete(Resources.services, "faulty", ns);
  await e2e.until("faulty gone", () => e2e.service("faulty") === undefined);
  expect(e2e.lbs()).toHaveLength(before);
}, 180_000);
