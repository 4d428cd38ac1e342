/**
 * The chart takes the values of the charts it replaces, so `helm upgrade <release> <this chart> -f <their values>`
 * switches an installation: hccm's (test/helm-values/hccm.yaml) and the Proxmox CCM's
 * (test/helm-values/proxmox.yaml), each file as a whole and then each value on its own, asserting what it does in
 * the rendered objects. What the chart cannot honour fails naming the value.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseArgv } from "../cmd/argv.ts";
import { parseProxmoxConfig } from "../providers/proxmox/config.ts";
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

const HCCM = join(ROOT, "test", "helm-values", "hccm.yaml");
const PROXMOX = join(ROOT, "test", "helm-values", "proxmox.yaml");
const NAME = "cloud-controller-manager";
const OUR_IMAGE = "registry.example.com/cloud-controller-manager:v0.1.0";

const skip = noHelm();
let helm: HelmSession | undefined;
beforeAll(async () => {
  if (!skip) helm = await helmSession("helm-peer-values-");
});
afterAll(async () => {
  await helm?.close();
});

/** The objects by kind/name, rendered from `file` and then `values`; a failed render fails the test. */
async function objects(file: string | undefined, values = ""): Promise<Record<string, Doc>> {
  const r = await (helm as HelmSession).template(values, { files: file ? [file] : [] });
  expect({ code: r.code, stderr: stderrProblems(r.stderr) }).toEqual({ code: 0, stderr: "" });
  return Object.fromEntries(parseManifests(r.stdout).map((d) => [`${d.kind}/${d.metadata.name}`, d]));
}
const workload = (o: Record<string, Doc>): Doc => o[`Deployment/${NAME}`] ?? o[`DaemonSet/${NAME}`];
const podOf = (o: Record<string, Doc>): Doc => workload(o).spec.template.spec;
const containerOf = (o: Record<string, Doc>): Doc => podOf(o).containers[0];
const envNamed = (o: Record<string, Doc>, name: string): Doc =>
  (containerOf(o).env ?? []).find((e: Doc) => e.name === name);

describe.skipIf(skip !== undefined)(`each peer's values file${skip ? ` [skipped: ${skip}]` : ""}`, () => {
  test.each([
    ["hccm's", HCCM],
    ["the Proxmox CCM's", PROXMOX],
  ])("%s passes helm lint with the chart", (_name, file) => {
    const r = (helm as HelmSession).run("lint", CHART, "--values", file);
    expect({ code: r.code, out: r.stdout }).toEqual({ code: 0, out: expect.stringContaining("0 chart(s) failed") });
  });
});

describe.skipIf(skip !== undefined)(`hccm's chart values${skip ? ` [skipped: ${skip}]` : ""}`, () => {
  test("its values file as a whole runs this image with hccm's flags and environment, no cloud-config", async () => {
    const o = await objects(HCCM);
    const deployment = o[`Deployment/${NAME}`];
    const container = containerOf(o);
    expect(container.image).toBe(OUR_IMAGE);
    expect(deployment.spec.replicas).toBe(1);
    expect(container.args).toEqual([
      "--cloud-provider=hcloud",
      "--leader-elect=true",
      "--leader-elect-resource-namespace=kube-system",
      `--leader-elect-resource-name=${NAME}`,
      "--bind-address=0.0.0.0",
      "--secure-port=10258",
      "--v=2",
      "--allow-untagged-cloud",
      "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true",
      "--route-reconciliation-period=30s",
      "--webhook-secure-port=0",
    ]);
    expect(parseArgv(container.args).errors).toEqual([]);
    expect(container.env.map((e: Doc) => e.name)).toEqual(["HCLOUD_TOKEN", "ROBOT_PASSWORD", "ROBOT_USER"]);
    expect(envNamed(o, "ROBOT_USER").valueFrom.secretKeyRef).toEqual({
      name: "hcloud",
      key: "robot-user",
      optional: true,
    });
    expect(container.volumeMounts).toBeUndefined();
    expect(podOf(o).volumes).toBeUndefined();
    // hccm's selectorLabels, its helper's name being this chart's.
    const selector = { "app.kubernetes.io/name": NAME, "app.kubernetes.io/instance": "ccm" };
    expect(deployment.spec.selector.matchLabels).toEqual(selector);
    expect(deployment.spec.template.metadata.labels).toEqual(selector);
    expect(o[`PodDisruptionBudget/${NAME}`].spec.selector.matchLabels).toEqual(selector);
    // Its resources and security contexts merged over the chart's, which keep what hccm's leave unsaid.
    expect(container.resources).toEqual({ requests: { cpu: "100m", memory: "50Mi" }, limits: { memory: "512Mi" } });
    expect(podOf(o).securityContext.fsGroup).toBe(65532);
    expect(o[`PodMonitor/${NAME}`]).toBeUndefined();
  });

  test.each<[string, string, (o: Record<string, Doc>) => void]>([
    [
      "networking.enabled allocates node CIDRs from clusterCIDR and names the network from the Secret",
      "networking: { enabled: true, clusterCIDR: 10.42.0.0/16 }",
      (o) => {
        expect(containerOf(o).args).toEqual(
          expect.arrayContaining(["--allocate-node-cidrs=true", "--cluster-cidr=10.42.0.0/16"]),
        );
        expect(parseArgv(containerOf(o).args).errors).toEqual([]);
        expect(envNamed(o, "HCLOUD_NETWORK")).toEqual({
          name: "HCLOUD_NETWORK",
          valueFrom: { secretKeyRef: { name: "hcloud", key: "network" } },
        });
      },
    ],
    [
      "robot.enabled sets ROBOT_ENABLED",
      "robot: { enabled: true }",
      (o) => expect(envNamed(o, "ROBOT_ENABLED")).toEqual({ name: "ROBOT_ENABLED", value: "true" }),
    ],
    [
      "kind: DaemonSet makes a DaemonSet on control-plane nodes",
      "kind: DaemonSet",
      (o) => {
        expect(o[`DaemonSet/${NAME}`]).toBeDefined();
        expect(o[`Deployment/${NAME}`]).toBeUndefined();
        expect(podOf(o).nodeSelector).toEqual({ "node-role.kubernetes.io/control-plane": "" });
      },
    ],
    [
      "monitoring.podMonitor.enabled makes the PodMonitor with its labels, scraping the https port",
      "monitoring: { podMonitor: { enabled: true, labels: { release: kube-prometheus-stack }, annotations: { a: b } } }",
      (o) => {
        const pm = o[`PodMonitor/${NAME}`];
        expect(pm.metadata.labels.release).toBe("kube-prometheus-stack");
        expect(pm.metadata.annotations).toEqual({ a: "b" });
        expect(pm.spec.podMetricsEndpoints.map((e: Doc) => [e.port, e.scheme])).toEqual([["https", "https"]]);
        expect(pm.spec.selector.matchLabels).toEqual({ "app.kubernetes.io/name": NAME });
        expect(workload(o).spec.template.metadata.labels["app.kubernetes.io/name"]).toBe(NAME);
      },
    ],
    [
      "monitoring.enabled: false leaves the monitoring objects out even with podMonitor.enabled",
      "monitoring: { enabled: false, podMonitor: { enabled: true } }",
      (o) => expect(Object.keys(o).filter((k) => /PodMonitor|PrometheusRule|metrics-reader/.test(k))).toEqual([]),
    ],
    [
      "a podMonitor.spec of its own is merged over the PodMonitor's",
      "monitoring: { podMonitor: { enabled: true, spec: { jobLabel: app, podMetricsEndpoints: [{ port: https, interval: 10s }] } } }",
      (o) => {
        expect(o[`PodMonitor/${NAME}`].spec.jobLabel).toBe("app");
        expect(o[`PodMonitor/${NAME}`].spec.podMetricsEndpoints).toEqual([{ port: "https", interval: "10s" }]);
      },
    ],
    [
      "image with its templated tag, and pullSecrets by name",
      'image: { repository: example.org/ccm, tag: "v{{ $.Chart.Version }}-rc", pullSecrets: [regcred] }',
      (o) => {
        expect(containerOf(o).image).toBe("example.org/ccm:v0.1.0-rc");
        expect(podOf(o).imagePullSecrets).toEqual([{ name: "regcred" }]);
      },
    ],
    [
      "replicaCount, strategy, priorityClassName, dnsPolicy and dnsConfig",
      "replicaCount: 3\nstrategy: { type: Recreate }\npriorityClassName: high\ndnsPolicy: ClusterFirstWithHostNet\ndnsConfig: { nameservers: [1.1.1.1] }",
      (o) => {
        expect(workload(o).spec.replicas).toBe(3);
        expect(workload(o).spec.strategy).toEqual({ type: "Recreate" });
        expect(podOf(o).priorityClassName).toBe("high");
        expect(podOf(o).dnsPolicy).toBe("ClusterFirstWithHostNet");
        expect(podOf(o).dnsConfig).toEqual({ nameservers: ["1.1.1.1"] });
      },
    ],
    [
      "podLabels, podAnnotations, nodeSelector, affinity and additionalTolerations",
      "podLabels: { team: infra }\npodAnnotations: { note: x }\nnodeSelector: { pool: cp }\naffinity: { podAntiAffinity: {} }\nadditionalTolerations: [{ key: dedicated, operator: Exists }]",
      (o) => {
        expect(workload(o).spec.template.metadata.labels.team).toBe("infra");
        expect(workload(o).spec.template.metadata.annotations).toEqual({ note: "x" });
        expect(podOf(o).nodeSelector).toEqual({ pool: "cp" });
        expect(podOf(o).affinity).toEqual({ podAntiAffinity: {} });
        expect(podOf(o).tolerations.at(-1)).toEqual({ key: "dedicated", operator: "Exists" });
      },
    ],
    [
      "a token file through extraVolumes, extraVolumeMounts and env, HCLOUD_TOKEN unset with null",
      "extraVolumes: [{ name: token, secret: { secretName: hcloud-token } }]\nextraVolumeMounts: [{ name: token, mountPath: /var/run/secrets/hcloud, readOnly: true }]\nenv: { HCLOUD_TOKEN: null, HCLOUD_TOKEN_FILE: { value: /var/run/secrets/hcloud/token } }",
      (o) => {
        expect(podOf(o).volumes).toEqual([{ name: "token", secret: { secretName: "hcloud-token" } }]);
        expect(containerOf(o).volumeMounts).toEqual([
          { name: "token", mountPath: "/var/run/secrets/hcloud", readOnly: true },
        ]);
        expect(envNamed(o, "HCLOUD_TOKEN")).toBeUndefined();
        expect(envNamed(o, "HCLOUD_TOKEN_FILE").value).toBe("/var/run/secrets/hcloud/token");
      },
    ],
    [
      "rbac.create: false leaves the RBAC out; serviceAccount.annotations annotate it",
      "rbac: { create: false }\nserviceAccount: { annotations: { owner: me } }",
      (o) => {
        expect(Object.keys(o).filter((k) => k.startsWith("ClusterRole") || k.startsWith("RoleBinding"))).toEqual([]);
        expect(o[`ServiceAccount/${NAME}`].metadata.annotations).toEqual({ owner: "me" });
      },
    ],
  ])("%s", async (_name, values, check) => {
    check(await objects(HCCM, values));
  });
});

describe.skipIf(skip !== undefined)(`the Proxmox CCM chart's values${skip ? ` [skipped: ${skip}]` : ""}`, () => {
  test("its values file as a whole writes config as the cloud-config and runs the controllers it names", async () => {
    // The Proxmox CCM chart always runs proxmox; here it is named (docs/providers/proxmox.md's switch does).
    const o = await objects(PROXMOX, "cloudProvider: proxmox");
    const secret = o[`Secret/${NAME}-cloud-config`];
    const cloudYaml = Buffer.from(secret.data["cloud.yaml"], "base64").toString();
    expect(Bun.YAML.parse(cloudYaml)).toEqual((Bun.YAML.parse(await Bun.file(PROXMOX).text()) as Doc).config);
    expect(parseProxmoxConfig(cloudYaml, "the chart's Secret").clusters.map((c) => c.region)).toEqual(["cluster-1"]);
    const container = containerOf(o);
    expect(container.image).toBe(OUR_IMAGE);
    expect(container.imagePullPolicy).toBe("IfNotPresent");
    expect(container.args).toEqual([
      "--cloud-provider=proxmox",
      "--cloud-config=/etc/kubernetes/cloud-config/cloud.yaml",
      "--leader-elect=true",
      "--leader-elect-resource-namespace=kube-system",
      `--leader-elect-resource-name=${NAME}`,
      "--bind-address=0.0.0.0",
      "--secure-port=10258",
      "--v=2",
      "--controllers=cloud-node,cloud-node-lifecycle",
    ]);
    expect(parseArgv(container.args).errors).toEqual([]);
    expect(podOf(o).volumes[0].secret.secretName).toBe(`${NAME}-cloud-config`);
    expect(workload(o).spec.template.metadata.annotations["checksum/config"]).toMatch(/^[0-9a-f]{64}$/);
    expect(workload(o).spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } });
    expect(podOf(o).securityContext).toMatchObject({ runAsUser: 10258, fsGroup: 10258 });
    expect(podOf(o).dnsPolicy).toBe("Default");
    expect(podOf(o).tolerations).toHaveLength(2);
  });

  test.each<[string, string, (o: Record<string, Doc>) => void]>([
    [
      "existingConfigSecret mounts that Secret's key as the cloud-config",
      "existingConfigSecret: pve\nexistingConfigSecretKey: pve.yaml\nconfig: { clusters: [] }",
      (o) => {
        expect(o[`Secret/${NAME}-cloud-config`]).toBeUndefined();
        expect(podOf(o).volumes[0].secret).toEqual({
          secretName: "pve",
          items: [{ key: "pve.yaml", path: "cloud.yaml" }],
          defaultMode: 288,
        });
      },
    ],
    [
      "useDaemonSet makes a DaemonSet with updateStrategy",
      "useDaemonSet: true",
      (o) => {
        expect(o[`DaemonSet/${NAME}`].spec.updateStrategy).toEqual({
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: 1 },
        });
      },
    ],
    [
      "logVerbosityLevel, extraArgs, extraEnvs, enabledControllers",
      "logVerbosityLevel: 4\nextraArgs: [--cluster-name=k1]\nextraEnvs: [{ name: A, value: b }]\nenabledControllers: ['*']",
      (o) => {
        expect(containerOf(o).args).toEqual(expect.arrayContaining(["--v=4", "--controllers=*", "--cluster-name=k1"]));
        expect(containerOf(o).args.at(-1)).toBe("--cluster-name=k1");
        expect(parseArgv(containerOf(o).args).errors).toEqual([]);
        expect(containerOf(o).env).toEqual([{ name: "A", value: "b" }]);
      },
    ],
    [
      "imagePullSecrets, initContainers and hostAliases",
      "imagePullSecrets: [{ name: regcred }]\ninitContainers: [{ name: wait, image: busybox }]\nhostAliases: [{ ip: 10.0.0.1, hostnames: [pve] }]",
      (o) => {
        expect(podOf(o).imagePullSecrets).toEqual([{ name: "regcred" }]);
        expect(podOf(o).initContainers).toEqual([{ name: "wait", image: "busybox" }]);
        expect(podOf(o).hostAliases).toEqual([{ ip: "10.0.0.1", hostnames: ["pve"] }]);
      },
    ],
  ])("%s", async (_name, values, check) => {
    check(await objects(PROXMOX, values));
  });
});

describe.skipIf(skip !== undefined)(`values the chart cannot honour${skip ? ` [skipped: ${skip}]` : ""}`, () => {
  test.each([
    ["nameOverride", "nameOverride: hccm", 'nameOverride: "hccm" is not supported'],
    ["fullnameOverride", "fullnameOverride: pve-ccm", 'fullnameOverride: "pve-ccm" is not supported'],
    ["serviceAccount.create: false", "serviceAccount: { create: false }", "serviceAccount.create: false is not"],
    ["a ServiceAccount name", "serviceAccount: { name: ccm }", 'serviceAccount.name: "ccm" is not supported'],
    ["a networking key hccm has not", "networking: { enable: true }", "additional properties 'enable' not allowed"],
  ])("%s fails at helm template, naming it", async (_name, values, message) => {
    const r = await (helm as HelmSession).template(values);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });
});
