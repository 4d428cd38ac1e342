/**
 * deploy/kubernetes/'s workloads (Deployment, DaemonSet) run the executable as the rest of the project expects:
 * flags the command accepts, probes on its serving port, leader election on the Lease the Role grants, the
 * ServiceAccount the RBAC binds, tolerations for nodes the CCM has yet to initialise; and every kustomization
 * renders. The RBAC itself: test/deploy-kubernetes-rbac.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgv } from "../cmd/argv.ts";
import { buildOptions } from "../cmd/options.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK } from "../providers/kit/webhooks.ts";
import { documentedOverlays, kustomize, localOverlay, noKubectl } from "./support/kustomize.ts";

const DIR = resolve(import.meta.dir, "..", "deploy", "kubernetes");

interface Rule {
  readonly resourceNames?: string[];
}
// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Doc = any;

const yamlDocs = async (file: string): Promise<Doc[]> =>
  (await readFile(join(DIR, file), "utf8"))
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d) as Doc)
    .filter((d) => d);
const rbac = await yamlDocs("base/rbac.yaml");
const serviceAccount = (await yamlDocs("base/serviceaccount.yaml"))[0];
const workloads = [...(await yamlDocs("deployment/deployment.yaml")), ...(await yamlDocs("daemonset/daemonset.yaml"))];
const byKind = (kind: string) => rbac.filter((d) => d.kind === kind);

describe.each(workloads.map((w) => [w.kind, w] as const))("the %s", (_kind, w: Doc) => {
  const pod = w.spec.template.spec;
  const container = pod.containers[0];

  test("runs as the ServiceAccount the RBAC binds", () => {
    expect(pod.serviceAccountName).toBe(serviceAccount.metadata.name);
    for (const b of rbac.filter((d) => d.kind.endsWith("Binding")))
      expect(b.subjects).toContainEqual({
        kind: "ServiceAccount",
        name: pod.serviceAccountName,
        namespace: w.metadata.namespace,
      });
  });

  test("runs with flags the command accepts, leader election on the Lease the Role grants", () => {
    const parsed = parseArgv(container.args);
    expect(parsed.errors).toEqual([]);
    const built = buildOptions(parsed.values);
    if (!built.ok) throw new Error(built.errors.join("; "));
    const role = byKind("Role")[0];
    expect(built.options.leaderElection).toMatchObject({
      enabled: true,
      name: role.rules.find((r: Rule) => r.resourceNames)?.resourceNames[0],
      namespace: role.metadata.namespace,
    });
    expect(container.args).toContain("--cloud-config=/etc/kubernetes/cloud-config/cloud.yaml");
    // docs/install.md's overlay example replaces args/0 to set the provider.
    expect(container.args[0]).toStartWith("--cloud-provider=");
    expect(container.volumeMounts).toContainEqual({
      name: "cloud-config",
      mountPath: "/etc/kubernetes/cloud-config",
      readOnly: true,
    });
  });

  test("probes /healthz over HTTPS on the serving port", () => {
    const port = buildOptions(parseArgv(container.args).values);
    const securePort = port.ok ? port.options.serving.securePort : -1;
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      expect(probe.httpGet).toEqual({ path: "/healthz", port: securePort, scheme: "HTTPS" });
    }
  });

  test("uses the host network and the node's DNS, and tolerates nodes not yet initialised", () => {
    expect(pod.hostNetwork).toBe(true);
    expect(pod.dnsPolicy).toBe("Default");
    const tolerated = pod.tolerations.map((t: Doc) => `${t.key}:${t.effect ?? "*"}`);
    for (const taint of [
      "node.cloudprovider.kubernetes.io/uninitialized:NoSchedule",
      "node-role.kubernetes.io/control-plane:NoSchedule",
      "node.kubernetes.io/not-ready:NoSchedule",
      "node.kubernetes.io/network-unavailable:NoSchedule",
      "CriticalAddonsOnly:*",
    ])
      expect(tolerated).toContain(taint);
  });

  test("is not evicted during a cluster-wide NotReady: not-ready:NoExecute tolerated with no time limit", () => {
    const noExecute = pod.tolerations.filter(
      (t: Doc) => t.key === "node.kubernetes.io/not-ready" && t.effect === "NoExecute",
    );
    expect(noExecute).toEqual([{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" }]);
  });

  test("is cluster-critical: system-cluster-critical priority, memory requested above the measured peak", () => {
    expect(pod.priorityClassName).toBe("system-cluster-critical");
    const mib = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? Number.NaN);
    // docs/performance.md: a 195 MiB peak while 5000 Nodes join at once (issue 37).
    expect(mib(container.resources.requests.memory)).toBeGreaterThanOrEqual(195);
    expect(mib(container.resources.limits.memory)).toBeGreaterThan(mib(container.resources.requests.memory));
    expect(container.resources.limits.cpu).toBeUndefined();
  });

  test("runs as non-root on a read-only root with no capabilities, and has resources set", () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    // Not toMatchObject with expect.any: in Bun 1.4.5 that writes the matcher into the object it checks.
    const { requests, limits } = container.resources;
    expect([typeof requests.cpu, typeof requests.memory, typeof limits.memory]).toEqual(["string", "string", "string"]);
  });
});

test("the Deployment runs two replicas; the DaemonSet only control-plane nodes; their pods are otherwise the same", () => {
  const [deployment, daemonset] = ["Deployment", "DaemonSet"].map((k) => workloads.find((w) => w.kind === k));
  expect(deployment.spec.replicas).toBe(2);
  expect(daemonset.spec.template.spec.nodeSelector).toEqual({ "node-role.kubernetes.io/control-plane": "" });
  const { affinity: _a, ...deploymentPod } = deployment.spec.template.spec;
  const { nodeSelector: _n, ...daemonsetPod } = daemonset.spec.template.spec;
  expect(daemonsetPod).toEqual(deploymentPod);
});

test.skipIf(noKubectl !== undefined)(
  `every kustomization renders with kubectl kustomize${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  () => {
    for (const variant of ["deployment", "daemonset"]) {
      const { code, stderr, docs } = kustomize(join(DIR, variant));
      expect({ variant, code, stderr }).toEqual({ variant, code: 0, stderr: "" });
      expect(docs.map((d) => d.kind).sort()).toEqual(
        [
          "ClusterRole",
          "ClusterRoleBinding",
          "PodDisruptionBudget",
          "Role",
          "RoleBinding",
          "ServiceAccount",
          variant === "deployment" ? "Deployment" : "DaemonSet",
        ].sort(),
      );
      const workload = docs.find((d) => d.kind === "Deployment" || d.kind === "DaemonSet");
      expect(workload.spec.template.spec.containers[0].image).toBe(
        "registry.example.com/cloud-controller-manager:v0.1.0",
      );
      for (const d of docs.filter((x) => x.metadata.namespace)) expect(d.metadata.namespace).toBe("kube-system");
      // The budget covers the workload's pods, and leaves room for one voluntary disruption at a time.
      const pdb = docs.find((d) => d.kind === "PodDisruptionBudget");
      expect(pdb.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: workload.spec.selector.matchLabels } });
      const tolerations = workload.spec.template.spec.tolerations.map((t: Doc) => `${t.key}:${t.effect ?? "*"}`);
      expect(tolerations).toContain("node.kubernetes.io/not-ready:NoExecute");
      expect(workload.spec.template.spec.priorityClassName).toBe("system-cluster-critical");
    }
  },
);

test.skipIf(noKubectl !== undefined)(
  `every provider component renders on top of the Deployment${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  async () => {
    const providers = join(DIR, "providers");
    for (const name of existsSync(providers) ? await readdir(providers) : []) {
      const overlay = await mkdtemp(join(tmpdir(), "ccm-overlay-"));
      try {
        // kustomize takes only relative paths to other kustomizations.
        const rel = (p: string) => relative(overlay, join(DIR, p));
        await writeFile(
          join(overlay, "kustomization.yaml"),
          `resources: [${rel("deployment")}]\ncomponents: [${rel(join("providers", name))}]\n`,
        );
        const { code, stderr, docs } = kustomize(overlay);
        expect({ name, code, stderr }).toEqual({ name, code: 0, stderr: "" });
        const names = docs.map((d) => `${d.kind}/${d.metadata.name}`);
        expect(names).toContain("Deployment/cloud-controller-manager");
        if (existsSync(join(providers, name, "rbac.yaml")))
          expect(names.some((n) => n.endsWith(`:${name}`))).toBe(true);
        else expect(mountedCloudConfig(name, docs)).toEqual({ name, found: true });
      } finally {
        await rm(overlay, { recursive: true, force: true });
      }
    }
  },
);

/**
 * Whether the file `--cloud-config` names is in the output: the Secret of the volume mounted over its folder exists
 * and holds a key of the file's name (OCCM's `cloud-config`/`cloud.conf` as much as the base's own Secret).
 */
function mountedCloudConfig(name: string, docs: Doc[]): { name: string; found: boolean } {
  const workload = docs.find((d) => d.kind === "Deployment" || d.kind === "DaemonSet");
  const pod = workload.spec.template.spec;
  const flag: string = pod.containers[0].args.find((a: string) => a.startsWith("--cloud-config="));
  const file = flag.slice("--cloud-config=".length);
  const mount = pod.containers[0].volumeMounts.find((m: Doc) => file.startsWith(`${m.mountPath}/`));
  const secretName = pod.volumes.find((v: Doc) => v.name === mount?.name)?.secret?.secretName;
  const secret = docs.find((d) => d.kind === "Secret" && d.metadata.name === secretName);
  const key = file.slice(`${mount?.mountPath}/`.length);
  return { name, found: secret?.stringData?.[key] !== undefined || secret?.data?.[key] !== undefined };
}

const ROOT = resolve(import.meta.dir, "..");
const documented = (
  await Promise.all(
    ["README.md", ...new Bun.Glob("docs/**/*.md").scanSync(ROOT)]
      .sort()
      .map(async (doc) => documentedOverlays(doc, await readFile(join(ROOT, doc), "utf8"))),
  )
).flat();

test("the documentation holds the overlays this file renders", () => {
  expect(documented.map((o) => o.where.replace(/:\d+$/, ""))).toEqual(
    expect.arrayContaining(["docs/install.md", "docs/providers/hcloud.md", "docs/providers/digitalocean.md"]),
  );
});

describe.skipIf(noKubectl !== undefined).each(documented.map((o) => [o.where, o] as const))(
  `the overlay at %s${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  (_where, overlay) => {
    test("renders, and deploys the image it names rather than the base's placeholder", async () => {
      const dir = await mkdtemp(join(tmpdir(), "ccm-doc-overlay-"));
      try {
        await writeFile(join(dir, "kustomization.yaml"), localOverlay(overlay.text, dir, DIR));
        const { code, stderr, docs } = kustomize(dir);
        expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
        const images: Doc[] = (Bun.YAML.parse(overlay.text) as Doc).images ?? [];
        expect(images).toHaveLength(1);
        const wanted = `${images[0].newName}:${images[0].newTag}`;
        expect(wanted).not.toStartWith("registry.example.com/");
        const workload = docs.find((d) => d.kind === "Deployment" || d.kind === "DaemonSet");
        expect(workload.spec.template.spec.containers[0].image).toBe(wanted);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);

test.skipIf(noKubectl !== undefined)(
  `the webhooks component serves what its configuration calls, after a provider's flags${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  async () => {
    const overlay = await mkdtemp(join(tmpdir(), "ccm-overlay-webhooks-"));
    try {
      const rel = (p: string) => relative(overlay, join(DIR, p));
      const components = ["providers/hcloud", "webhooks", "webhooks/cert-manager"].map(rel).join(", ");
      await writeFile(
        join(overlay, "kustomization.yaml"),
        `resources: [${rel("deployment")}]\ncomponents: [${components}]\n`,
      );
      const { code, stderr, docs } = kustomize(overlay);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const find = (kind: string) => docs.find((d) => d.kind === kind);
      const pod = find("Deployment").spec.template.spec;
      const container = pod.containers[0];
      const built = buildOptions(parseArgv(container.args).values);
      if (!built.ok) throw new Error(built.errors.join("; "));
      const { options } = built;
      // hccm's component turns the port off; this one, listed after it, turns it on again.
      expect(options.webhookSecurePort).toBe(10260);
      expect(options.webhooks).toEqual(["*"]);
      expect(options.featureGates.get("CloudControllerManagerWebhook")).toBe(true);
      expect(options.featureGates.get("CloudControllerManagerWatchBasedRoutesReconciliation")).toBe(true);
      const mount = container.volumeMounts.find((m: Doc) => m.name === "webhook-tls");
      expect(options.webhookServing.certFile).toBe(`${mount.mountPath}/tls.crt`);
      expect(options.webhookServing.keyFile).toBe(`${mount.mountPath}/tls.key`);
      const secretName = pod.volumes.find((v: Doc) => v.name === "webhook-tls").secret.secretName;
      expect(find("Certificate").spec.secretName).toBe(secretName);

      const service = find("Service");
      const configuration = find("ValidatingWebhookConfiguration");
      const [webhook] = configuration.webhooks;
      expect(webhook.failurePolicy).toBe("Ignore");
      expect(webhook.rules).toEqual([
        {
          apiGroups: [""],
          apiVersions: ["v1"],
          operations: ["CREATE", "UPDATE"],
          resources: ["services"],
          scope: "Namespaced",
        },
      ]);
      expect(webhook.clientConfig.service).toEqual({
        name: service.metadata.name,
        namespace: service.metadata.namespace,
        path: `/${SERVICE_ANNOTATIONS_WEBHOOK}`,
        port: service.spec.ports[0].port,
      });
      expect(service.spec.ports[0].targetPort).toBe(options.webhookSecurePort);
      expect(container.ports).toContainEqual({ name: "webhook", containerPort: 10260, protocol: "TCP" });
      expect(service.spec.selector).toEqual(find("Deployment").spec.selector.matchLabels);
      expect(find("Certificate").spec.dnsNames).toContain(`${service.metadata.name}.kube-system.svc`);
      expect(configuration.metadata.annotations["cert-manager.io/inject-ca-from"]).toBe(
        `kube-system/${find("Certificate").metadata.name}`,
      );
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  },
);
