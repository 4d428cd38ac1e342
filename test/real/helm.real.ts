/**
 * The chart on a real kube-apiserver: `helm install` creates its objects through the API server's validation,
 * admission and RBAC, and the manager then runs from what the API server stores (test/real/pod-process.ts: this
 * tier has no kubelet, so the Deployment's container runs as a host process with its args, env, Secret volumes and
 * ServiceAccount token) to ready: its readinessProbe answers, it holds the chart's Lease and does its work.
 *
 * - The all-in-one with default values, the sandbox provider and `config` as its cloud-config: the nodes of the
 *   simulated cloud are initialised.
 * - The switch from hccm: a release named hccm holding hccm's object names (a stand-in chart of the test's own)
 *   with a load balancer hccm made for a Service (its name and label, in the hcloud emulator); `helm upgrade hccm
 *   <this chart> -f <hccm's values>` (test/helm-values/hccm.yaml), and the manager adopts that load balancer:
 *   the same ID and IP, none created or deleted.
 * - The switch from the Proxmox CCM: its release (a stand-in) upgraded with its chart's values
 *   (test/helm-values/proxmox.yaml), `config` becoming the cloud-config Secret: a VM's node in the Proxmox VE
 *   emulator is initialised.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../../kube/client.ts";
import { Resources } from "../../kube/client-types.ts";
import type { Lease, Node, Service } from "../../kube/objects.ts";
import { loadTransport } from "../../kube/transport.ts";
import { Taints } from "../../kube/well-known.ts";
import { createLoadBalancer } from "../../sandbox/hcloud/state/load-balancers.ts";
import type { ProxmoxEmulator } from "../../sandbox/proxmox/server.ts";
import { noHelm } from "../../scripts/lib/helm.ts";
import { hcloudToken, registerNode, startHcloudWorld } from "../support/hcloud.ts";
import { CHART, type HelmSession, helmSession, ROOT } from "../support/helm-chart.ts";
import { poll } from "../support/processes.ts";
import { proxmoxToken, registerVMNode, startProxmoxClusters } from "../support/proxmox.ts";
import { allNodesInitialised, START_TIMEOUT_MS, startRealCluster, startRealServer } from "./cluster.ts";
import { type PodProcess, startPodAsProcess } from "./pod-process.ts";

const HCCM_VALUES = join(ROOT, "test", "helm-values", "hccm.yaml");
const PROXMOX_VALUES = join(ROOT, "test", "helm-values", "proxmox.yaml");
const WORKLOAD = { kind: "Deployment", namespace: "kube-system", name: "cloud-controller-manager" } as const;

let helm: HelmSession;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  helm = await helmSession("ccm-real-helm-");
  cleanups.push(() => helm.close());
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Helm against `kubeconfig`; a failure throws with Helm's output. */
function helmAt(kubeconfig: string, ...args: string[]): string {
  const r = helm.run(...args, "--kubeconfig", kubeconfig);
  if (r.code !== 0) throw new Error(`helm ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Values for this tier's kube-apiserver: 1.20 serves no policy/v1, so no PodDisruptionBudget there. */
async function tierValues(request: (m: string, p: string) => Promise<Response>, dir: string): Promise<string> {
  const policyV1 = (await request("GET", "/apis/policy/v1")).status === 200;
  const file = join(dir, "tier.yaml");
  await writeFile(file, `podDisruptionBudget: { enabled: ${policyV1} }\n`);
  return file;
}

/**
 * A peer's release as Helm knows it (its chart's name, a Deployment and ServiceAccount by the peer's names): a
 * stand-in chart written into `dir`, since this tier runs no peer. Returns its folder.
 */
async function standInChart(dir: string, chart: string, workload: string): Promise<string> {
  const folder = join(dir, `${chart}-stand-in`);
  await mkdir(join(folder, "templates"), { recursive: true });
  await writeFile(join(folder, "Chart.yaml"), `apiVersion: v2\nname: ${chart}\nversion: 1.0.0\n`);
  const meta = `{ name: ${workload}, namespace: kube-system }`;
  await writeFile(
    join(folder, "templates", "objects.yaml"),
    `apiVersion: v1
kind: ServiceAccount
metadata: ${meta}
---
apiVersion: apps/v1
kind: Deployment
metadata: ${meta}
spec:
  replicas: 1
  selector: { matchLabels: { app: peer } }
  template:
    metadata: { labels: { app: peer } }
    spec: { serviceAccountName: ${workload}, containers: [{ name: peer, image: peer }] }
`,
  );
  return folder;
}

async function leaseHolder(client: ReturnType<typeof createKubeClient>): Promise<string | undefined> {
  const lease = await client
    .get<Lease>(Resources.leases, WORKLOAD.name, { namespace: WORKLOAD.namespace })
    .catch(() => undefined);
  return lease?.spec?.holderIdentity;
}

describe.skipIf(noHelm() !== undefined)("the chart installed with Helm on a real API server", () => {
  test(
    "the all-in-one with default values and config as its cloud-config runs to ready and initialises the nodes",
    async () => {
      const cluster = await startRealCluster({ nodes: 3 });
      cleanups.push(() => cluster.stop());
      const cloud = Bun.YAML.parse(await Bun.file(cluster.cloudConfig).text()) as { url: string; token: string };
      const values = join(cluster.dir, "values.yaml");
      await writeFile(values, `cloudProvider: sandbox\nconfig: ${JSON.stringify(cloud)}\n`);
      helmAt(
        cluster.kubeconfig,
        "install",
        "ccm",
        CHART,
        "--namespace",
        "kube-system",
        "-f",
        values,
        "-f",
        await tierValues(cluster.server.request, cluster.dir),
      );

      const podDir = await mkdtemp(join(cluster.dir, "pod-"));
      const pod = await startPodAsProcess(cluster.server, podDir, WORKLOAD);
      cleanups.push(async () => {
        pod.process.proc.kill("SIGKILL");
        await pod.process.exited;
      });
      // The chart's Secret, written from `config`, read where the pod mounts it.
      expect(pod.args).toContain(`--cloud-config=${podDir}/volumes/cloud-config/cloud.yaml`);
      await pod.ready();
      await poll(() => allNodesInitialised(cluster), { timeoutMs: 90_000, message: "every node initialised" });
      expect(await leaseHolder(cluster.client)).toBeTruthy();
      // The chart's RBAC, as the API server enforces it, grants all the work.
      expect(pod.process.output()).not.toContain("forbidden");
    },
    START_TIMEOUT_MS,
  );

  test(
    "helm upgrade of an hccm release with hccm's values switches it, adopting its load balancer in place",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "ccm-real-helm-hccm-"));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const server = await startRealServer();
      cleanups.push(() => server.stop());
      const client = createKubeClient(loadTransport({ kubeconfig: server.kubeconfig }), {
        qps: 0,
        burst: 0,
        userAgent: "e2e",
      });
      const world = startHcloudWorld();
      cleanups.push(() => world.stop());

      // hccm's release: its workload's name and ServiceAccount (a stand-in chart: this tier runs no hccm).
      const standIn = await standInChart(dir, "hcloud-cloud-controller-manager", "hcloud-cloud-controller-manager");
      helmAt(server.kubeconfig, "install", "hccm", standIn, "--namespace", "kube-system");

      // What hccm left: the Secret its values read, nodes it initialised, a load balancer for a Service.
      const secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "hcloud", namespace: "kube-system" },
        stringData: { token: hcloudToken, network: "k8s" },
      };
      expect((await server.request("POST", "/api/v1/namespaces/kube-system/secrets", secret)).status).toBe(201);
      const servers = ["hccm-node-1", "hccm-node-2"].map((n) => world.addServer(n));
      for (const s of servers) await registerNode(client, s.name);
      const ns = { namespace: "default" };
      const service = await client.create<Service>(
        Resources.services,
        {
          metadata: { name: "web", namespace: "default" },
          spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
        },
        ns,
      );
      const uid = service.metadata?.uid as string;
      const { loadBalancer: before } = createLoadBalancer(world.hcloud.world, {
        name: `a${uid.replaceAll("-", "")}`.slice(0, 32),
        load_balancer_type: "lb11",
        location: "fsn1",
        labels: { "hcloud-ccm/service-uid": uid },
        services: [
          { protocol: "tcp", listen_port: 80, destination_port: service.spec?.ports?.[0]?.nodePort as number },
        ],
        targets: servers.map((s) => ({ type: "server" as const, server: { id: s.id } })),
      });
      world.hcloud.calls.reset();

      // The switch: hccm's values file as it is, plus where this test's emulator is (a user's cluster needs neither).
      const emulator = join(dir, "emulator.yaml");
      const env = world.env();
      await writeFile(
        emulator,
        `env:\n${["HCLOUD_ENDPOINT", "HCLOUD_RATE_LIMIT_QPS", "HCLOUD_RATE_LIMIT_BURST"]
          .map((k) => `  ${k}: { value: ${JSON.stringify(env[k])} }`)
          .join("\n")}\n`,
      );
      helmAt(
        server.kubeconfig,
        "upgrade",
        "hccm",
        CHART,
        "--namespace",
        "kube-system",
        "-f",
        HCCM_VALUES,
        "-f",
        emulator,
        "-f",
        await tierValues(server.request, dir),
      );
      const gone = await server.request(
        "GET",
        "/apis/apps/v1/namespaces/kube-system/deployments/hcloud-cloud-controller-manager",
      );
      expect(gone.status).toBe(404);

      const pod: PodProcess = await startPodAsProcess(server, await mkdtemp(join(dir, "pod-")), WORKLOAD);
      cleanups.push(async () => {
        pod.process.proc.kill("SIGKILL");
        await pod.process.exited;
      });
      expect(pod.env.HCLOUD_TOKEN).toBe(hcloudToken);
      await pod.ready();
      const web = () => client.get<Service>(Resources.services, "web", ns);
      await poll(async () => ((await web()).status?.loadBalancer?.ingress ?? []).length > 0, {
        timeoutMs: 90_000,
        message: "the Service's ingress",
      }).catch((e: Error) => {
        throw new Error(`${e.message}\n${pod.process.output().slice(-4000)}`);
      });
      expect([...world.hcloud.world.loadBalancers.values()].map((l) => l.id)).toEqual([before.id]);
      expect(((await web()).status?.loadBalancer?.ingress ?? []).map((i) => i.ip)).toContain(before.public_net.ipv4.ip);
      const writes = world.hcloud.calls.writes().map((w) => `${w.method} ${w.path}`);
      expect(writes.filter((w) => /^(POST|DELETE) \/v1\/load_balancers(\/\d+)?$/.test(w))).toEqual([]);
      expect(await leaseHolder(client)).toBeTruthy();
      expect(pod.process.output()).not.toContain("forbidden");
    },
    START_TIMEOUT_MS,
  );

  test(
    "helm upgrade of a Proxmox CCM release with its chart's values switches it, initialising the VMs' nodes",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "ccm-real-helm-pve-"));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const server = await startRealServer();
      cleanups.push(() => server.stop());
      const client = createKubeClient(loadTransport({ kubeconfig: server.kubeconfig }), {
        qps: 0,
        burst: 0,
        userAgent: "e2e",
      });
      const pve = await startProxmoxClusters(dir, [{ region: "cluster-1", nodes: ["pve-a"] }]);
      cleanups.push(() => pve.stop());
      const emulator = pve.byRegion.get("cluster-1") as ProxmoxEmulator;
      const vm = emulator.state.addVM({ name: "vm-1", node: "pve-a" });
      await registerVMNode(client, "vm-1", vm.uuid);

      const standIn = await standInChart(dir, "proxmox-cloud-controller-manager", "proxmox-ccm");
      helmAt(server.kubeconfig, "install", "proxmox-ccm", standIn, "--namespace", "kube-system");
      // The peer's values file as it is; its config's cluster pointed at the emulator (self-signed: insecure), and
      // the provider named, which the peer's chart has fixed.
      const emulatorValues = join(dir, "emulator.yaml");
      const cluster = {
        url: emulator.url,
        insecure: true,
        token_id: proxmoxToken.id,
        token_secret: proxmoxToken.secret,
        region: "cluster-1",
      };
      await writeFile(emulatorValues, `cloudProvider: proxmox\nconfig: { clusters: [${JSON.stringify(cluster)}] }\n`);
      helmAt(
        server.kubeconfig,
        "upgrade",
        "proxmox-ccm",
        CHART,
        "--namespace",
        "kube-system",
        "-f",
        PROXMOX_VALUES,
        "-f",
        emulatorValues,
        "-f",
        await tierValues(server.request, dir),
      );
      const gone = await server.request("GET", "/apis/apps/v1/namespaces/kube-system/deployments/proxmox-ccm");
      expect(gone.status).toBe(404);

      const pod = await startPodAsProcess(server, await mkdtemp(join(dir, "pod-")), WORKLOAD);
      cleanups.push(async () => {
        pod.process.proc.kill("SIGKILL");
        await pod.process.exited;
      });
      expect(pod.args).toContain("--controllers=cloud-node,cloud-node-lifecycle");
      await pod.ready();
      const node = () => client.get<Node>(Resources.nodes, "vm-1");
      await poll(async () => (await node()).spec?.providerID === `proxmox://cluster-1/${vm.vmid}`, {
        timeoutMs: 90_000,
        message: "vm-1's provider ID",
      }).catch((e: Error) => {
        throw new Error(`${e.message}\n${pod.process.output().slice(-4000)}`);
      });
      expect((await node()).spec?.taints ?? []).not.toContainEqual(
        expect.objectContaining({ key: Taints.uninitialized }),
      );
      expect(await leaseHolder(client)).toBeTruthy();
      expect(pod.process.output()).not.toContain("forbidden");
    },
    START_TIMEOUT_MS,
  );
});
