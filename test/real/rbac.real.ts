/**
 * deploy/kubernetes' RBAC on a real kube-apiserver (1.20.2, `--authorization-mode=Node,RBAC`): the ServiceAccount
 * kube-system/cloud-controller-manager gets a token from the TokenRequest API, and the compiled manager runs with
 * nothing but that token — every controller, leader election and delegated /metrics authorisation. Before the
 * ClusterRole and Role are applied, `doctor` with that token fails naming what is missing; after `kubectl apply -k
 * deploy/kubernetes/base`, `doctor` passes and the manager does all its work without a single "forbidden".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { Resources } from "../../kube/client-types.ts";
import type { Lease, Node, Service } from "../../kube/objects.ts";
import { executable, runExecutable } from "../support/executables.ts";
import { freePort, poll, type RunningProcess } from "../support/processes.ts";
import { allNodesInitialised, type RealCluster, START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

const BASE = resolve(import.meta.dir, "..", "..", "deploy", "kubernetes", "base");
const SA = { namespace: "kube-system", name: "cloud-controller-manager" };
const NOBODY_TOKEN = crypto.randomUUID();
const RBAC_OK = /ok {3}RBAC: all \d+ permissions the enabled controllers need are granted/;

let cluster: RealCluster;
let saKubeconfig: string;
let manager: RunningProcess;

const kubectl = (...args: string[]) => {
  const r = Bun.spawnSync(["kubectl", `--kubeconfig=${cluster.kubeconfig}`, ...args]);
  if (r.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};

/**
 * `kubectl apply -k` of the base. The PodDisruptionBudget is `policy/v1`, which kube-apiserver serves from 1.21; on
 * this tier's 1.20 it is left out (it grants nothing, so the RBAC checks below are unchanged).
 */
const applyBase = () => {
  if (kubectl("api-versions").split("\n").includes("policy/v1")) {
    kubectl("apply", "-k", BASE);
    return;
  }
  const docs = kubectl("kustomize", BASE).split(/^---$/m);
  const kept = docs.filter((d) => !/^kind: PodDisruptionBudget$/m.test(d));
  expect(kept.length).toBe(docs.length - 1);
  const r = Bun.spawnSync(["kubectl", `--kubeconfig=${cluster.kubeconfig}`, "apply", "-f", "-"], {
    stdin: new TextEncoder().encode(kept.join("---\n")),
  });
  if (r.exitCode !== 0) throw new Error(`kubectl apply -f -: ${r.stderr.toString()}`);
};

const doctor = async () =>
  runExecutable(await executable(), [
    "doctor",
    "--cloud-provider=sandbox",
    `--cloud-config=${cluster.cloudConfig}`,
    `--kubeconfig=${saKubeconfig}`,
  ]);

beforeAll(async () => {
  cluster = await startRealCluster({ nodes: 3, tokens: [{ token: NOBODY_TOKEN, user: "nobody" }] });
  kubectl("apply", "-f", join(BASE, "serviceaccount.yaml"));
  const res = await cluster.server.request(
    "POST",
    `/api/v1/namespaces/${SA.namespace}/serviceaccounts/${SA.name}/token`,
    { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  );
  if (res.status !== 201) throw new Error(`TokenRequest: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { status: { token: string } }).status.token;
  saKubeconfig = await cluster.server.writeKubeconfig(join(cluster.dir, "sa.kubeconfig"), { name: SA.name, token });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
});

const initialised = () => allNodesInitialised(cluster);

describe("the RBAC of deploy/kubernetes on a real API server", () => {
  test("without the ClusterRole, doctor with the service account's token names the missing permissions", async () => {
    const r = await doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('User "system:serviceaccount:kube-system:cloud-controller-manager" cannot list');
    expect(r.stdout).toContain("apply deploy/kubernetes");
  });

  test("with deploy/kubernetes/base applied, doctor with the service account's token finds every permission", async () => {
    applyBase();
    // RBAC changes reach the authorizer through its informers: wait for doctor to see them.
    let last = await doctor();
    await poll(
      async () => {
        last = await doctor();
        return RBAC_OK.test(last.stdout);
      },
      { message: "doctor to find the permissions", everyMs: 500 },
    ).catch(() => {
      throw new Error(`doctor kept failing:\n${last.stdout}\n${last.stderr}`);
    });
    // The nodes are not initialised yet (no manager runs): doctor says so, and only that.
    expect(last.stdout).toContain("FAIL nodes: 3 of 3 still carry");
    expect(last.stdout.match(/^FAIL/gm)).toHaveLength(1);
  });

  test("as the service account, the manager initialises nodes, serves a load balancer, routes and leads", async () => {
    const port = freePort();
    manager = await cluster.startManagerAs(saKubeconfig, [
      "--leader-elect=true",
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
    ]);
    await poll(initialised, { timeoutMs: 60_000, message: `nodes initialised; manager said:\n${manager.output()}` });
    const svc: Service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { type: "LoadBalancer", selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
    };
    await cluster.client.create(Resources.services, svc, { namespace: "default" });
    const ingress = async () =>
      (await cluster.client.get<Service>(Resources.services, "web", { namespace: "default" })).status?.loadBalancer
        ?.ingress ?? [];
    await poll(async () => (await ingress()).length === 1, { message: `web's ingress; ${manager.output()}` });
    await poll(async () => (await cluster.cloud.routes()).length === 3, { message: `routes; ${manager.output()}` });
    const lease = await cluster.client.get<Lease>(Resources.leases, SA.name, { namespace: SA.namespace });
    expect(lease.spec?.holderIdentity).toBeTruthy();

    const metrics = (token?: string) =>
      fetch(`https://127.0.0.1:${port}/metrics`, {
        keepalive: false,
        tls: { rejectUnauthorized: false },
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }).then((r) => r.status);
    await poll(() => manager.output().includes("serving health and metrics"), { message: manager.output() });
    expect(await metrics(cluster.server.adminToken)).toBe(200);
    expect(await metrics(NOBODY_TOKEN)).toBe(403);
    expect(await metrics("not-a-token")).toBe(401);
    const after = await doctor();
    expect(after.stdout).toMatch(RBAC_OK);
    expect(after.code).toBe(0);
  });

  test("as the service account, the manager deletes the node of a machine that is gone and the Service's load balancer", async () => {
    await cluster.cloud.call("DELETE", `/v1/machines/${await cluster.cloud.machineId("node-3")}`);
    await poll(
      async () => !(await cluster.client.list<Node>(Resources.nodes)).items.some((n) => n.metadata?.name === "node-3"),
      {
        message: `node-3 deleted; manager said:\n${manager.output()}`,
      },
    );
    await cluster.client.delete(Resources.services, "web", { namespace: "default" });
    await poll(async () => (await cluster.cloud.loadBalancers()).length === 0, {
      message: `the load balancer deleted; manager said:\n${manager.output()}`,
    });
    expect(manager.output().toLowerCase()).not.toContain("forbidden");
  });
});
