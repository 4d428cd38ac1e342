import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import type { AdmissionRequest } from "../admission.ts";
import type { CloudProvider, LoadBalancer } from "../cloud.ts";
import { annotation, defineAnnotations } from "./annotations/declare.ts";
import { int, oneOf } from "./annotations/readers.ts";
import { serviceAnnotationsWebhook } from "./webhooks.ts";

const Example = defineAnnotations({
  algorithm: annotation("example.com/algorithm", oneOf(["round-robin", "least-connections"]), {
    description: "How connections are spread.",
    example: "least-connections",
  }),
  retries: annotation("example.com/retries", int({ min: 1, max: 10 }), { description: "Retries.", example: "3" }),
});

const lbs = { classes: undefined } as unknown as LoadBalancer;
const provider = (loadBalancer: LoadBalancer | undefined): CloudProvider =>
  ({ providerName: "example", hasClusterID: () => true, ...(loadBalancer && { loadBalancer }) }) as CloudProvider;

type Tweak = (s: Service) => Service;
const annotated =
  (annotations: Record<string, string>): Tweak =>
  (s) => ({ ...s, metadata: { ...s.metadata, annotations } });
const type =
  (t: string): Tweak =>
  (s) => ({ ...s, spec: { ...s.spec, type: t } });
const cls =
  (c: string): Tweak =>
  (s) => ({ ...s, spec: { ...s.spec, loadBalancerClass: c } });
const service = (...tweaks: Tweak[]): Service =>
  tweaks.reduce<Service>((s, t) => t(s), {
    metadata: { name: "web", namespace: "shop" },
    spec: { type: "LoadBalancer" },
  });

const SERVICE = { group: "", version: "v1", kind: "Service" };
const request = (r: Partial<AdmissionRequest>): AdmissionRequest => ({
  uid: "u1",
  kind: SERVICE,
  operation: "CREATE",
  ...r,
});

const webhook = (p = provider(lbs)) => serviceAnnotationsWebhook((s) => Example.read(s).problems)(p);
const bad = { "example.com/retries": "eleven" };

describe("the Service-annotation webhook", () => {
  test("refuses a Service with an invalid annotation, naming the annotation, its value and what it accepts", () => {
    const verdict = webhook().admit(request({ object: service(annotated(bad)) }));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.code).toBe(400);
    expect(verdict.status?.message).toBe(
      'Service shop/web: 1 invalid load-balancer annotation: example.com/retries="eleven": expected an integer from 1 to 10. Set it to a value as expected, or remove it.',
    );
  });

  test("names every invalid annotation in one refusal", () => {
    const both = annotated({ ...bad, "example.com/algorithm": "random" });
    const message = webhook().admit(request({ object: service(both) })).status?.message ?? "";
    expect(message).toContain("2 invalid load-balancer annotations");
    expect(message).toContain('example.com/algorithm="random"');
    expect(message).toContain('example.com/retries="eleven"');
  });

  test.each<[string, Partial<AdmissionRequest>]>([
    ["a Service whose annotations are valid", { object: service(annotated({ "example.com/retries": "3" })) }],
    ["a Service without annotations", { object: service() }],
    ["a Service that is not of type LoadBalancer", { object: service(type("ClusterIP"), annotated(bad)) }],
    ["a Service of a class another implementation serves", { object: service(cls("other.io/lb"), annotated(bad)) }],
    ["an object that is not a Service", { kind: { group: "", version: "v1", kind: "ConfigMap" }, object: {} }],
    [
      "a Service of another API group",
      { kind: { ...SERVICE, group: "serving.knative.dev" }, object: service(annotated(bad)) },
    ],
    ["a deletion", { operation: "DELETE", oldObject: service(annotated(bad)) }],
    [
      "an update that leaves an invalid value stored before as it was",
      { operation: "UPDATE", object: service(annotated(bad)), oldObject: service(annotated(bad)) },
    ],
  ])("allows %s", (_, r) => {
    expect(webhook().admit(request(r))).toEqual({ allowed: true });
  });

  test.each<[string, Service]>([
    ["changes an annotation to an invalid value", service(annotated({ "example.com/retries": "3" }))],
    ["turns a Service with an invalid value into a LoadBalancer", service(type("ClusterIP"), annotated(bad))],
  ])("refuses an update that %s", (_, old) => {
    const verdict = webhook().admit(request({ operation: "UPDATE", object: service(annotated(bad)), oldObject: old }));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toContain('example.com/retries="eleven"');
  });

  test("allows every Service when the provider serves no load balancers", () => {
    expect(webhook(provider(undefined)).admit(request({ object: service(annotated(bad)) }))).toEqual({ allowed: true });
  });
});
