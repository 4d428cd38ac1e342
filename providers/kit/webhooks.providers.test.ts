import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import type { Service } from "../../kube/objects.ts";
import type { AdmissionRequest } from "../admission.ts";
import type { CloudProvider } from "../cloud.ts";
import { hcloud } from "../hcloud/provider.ts";
import { metal } from "../metal/provider.ts";
import { openstack } from "../openstack/provider.ts";
import { scaleway } from "../scaleway/provider.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK } from "./webhooks.ts";

// The shipped declarations, built as the command builds them (no cloud call is made), each handing its own
// annotation set to the kit's Service-annotation webhook.
const providers: [string, () => Promise<CloudProvider>, string, string][] = [
  [
    "hcloud",
    () =>
      hcloud.build(
        {
          env: { HCLOUD_TOKEN: "t".repeat(64), HCLOUD_ENDPOINT: "http://127.0.0.1:9/v1" },
          config: undefined,
          configSource: undefined,
          metrics: new Registry(),
        },
        { retry: { maxRetries: 0 } },
      ),
    "load-balancer.hetzner.cloud/health-check-port",
    "8080",
  ],
  [
    "metal",
    () =>
      metal.build({
        config: "loadBalancer:\n  global: { addresses: [192.0.2.0/24] }\n",
        configSource: "test",
        env: {},
      }),
    "kube-vip.io/loadbalancerIPs",
    "192.0.2.10",
  ],
  [
    "openstack",
    () =>
      openstack.build({
        config:
          '[Global]\nauth-url = http://127.0.0.1:9/v3\nusername = u\npassword = "p"\nuser-domain-name = Default\ntenant-name = k8s\ntenant-domain-id = default\n',
        configSource: "cloud.conf",
        env: {},
      }),
    "loadbalancer.openstack.org/connection-limit",
    "1000",
  ],
  [
    "scaleway",
    () =>
      scaleway.build(
        {
          env: {
            SCW_ACCESS_KEY: "SCWAAAAAAAAAAAAAAAAA",
            SCW_SECRET_KEY: "00000000-0000-4000-8000-000000000001",
            SCW_DEFAULT_REGION: "fr-par",
            SCW_API_URL: "http://127.0.0.1:9",
            DISABLE_TAGS_SYNC: "true",
          },
          config: undefined,
          configSource: undefined,
          metrics: new Registry(),
        },
        { retry: { maxRetries: 0 } },
      ),
    "service.beta.kubernetes.io/scw-loadbalancer-health-check-max-retries",
    "3",
  ],
];

const declarations = { hcloud, metal, openstack, scaleway } as const;

const review = (annotations: Record<string, string>): AdmissionRequest => ({
  uid: "u1",
  kind: { group: "", version: "v1", kind: "Service" },
  operation: "CREATE",
  object: {
    metadata: { name: "web", namespace: "default", annotations },
    spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
  } satisfies Service,
});

describe.each(providers)("%s's Service-annotation webhook", (name, build, key, valid) => {
  test("is declared under the shared name", async () => {
    expect(Object.keys((await build()).webhooks ?? {})).toEqual([SERVICE_ANNOTATIONS_WEBHOOK]);
    expect(declarations[name as keyof typeof declarations].webhookNames).toEqual([SERVICE_ANNOTATIONS_WEBHOOK]);
  });

  test("refuses an invalid value of the provider's annotation, naming it", async () => {
    const webhook = (await build()).webhooks?.[SERVICE_ANNOTATIONS_WEBHOOK];
    const verdict = webhook?.admit(review({ [key]: "banana" }));
    expect(verdict?.allowed).toBe(false);
    expect(verdict?.status?.message).toContain(`${key}="banana"`);
  });

  test("allows a valid value", async () => {
    const webhook = (await build()).webhooks?.[SERVICE_ANNOTATIONS_WEBHOOK];
    expect(webhook?.admit(review({ [key]: valid }))).toEqual({ allowed: true });
  });
});
