/**
 * `doctor`, compiled, against the sandbox's API emulator and simulated cloud started in this process
 * (so the test decides tokens, authorisation and cloud credentials).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { createMachines } from "../sandbox/cloud/fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../sandbox/cloud/server.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { executable, runExecutable } from "./support/executables.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

const quiet = createConsola({ level: -999 });
let api: ApiServer;
let cloud: SimulatedCloud;
let dir: string;

beforeAll(async () => {
  api = await startApiServer({
    logger: quiet,
    tokens: { "admin-token": { user: "admin", groups: ["system:masters"] }, "ccm-token": { user: "ccm" } },
    // The "ccm" identity lacks one rule the cloud-node controller needs: patch nodes/status.
    authorizer: (a) =>
      a.user === "ccm" && a.resource === "nodes" && a.subresource === "status" && a.verb === "patch"
        ? { allowed: false, reason: "not granted" }
        : { allowed: true },
  });
  cloud = startSimulatedCloud({ token: "cloud-token", logger: quiet });
  dir = await mkdtemp(join(tmpdir(), "ccm-doctor-"));
  await api.writeKubeconfig(join(dir, "admin.kubeconfig"), { user: "admin", https: false });
  await api.writeKubeconfig(join(dir, "ccm.kubeconfig"), { user: "ccm", https: false });
  await writeFile(join(dir, "cloud.yaml"), `url: ${cloud.url}\ntoken: cloud-token\n`);
  await writeFile(join(dir, "wrong-token.yaml"), `url: ${cloud.url}\ntoken: not-the-token\n`);
  // Two machines with initialised nodes, as a healthy cluster has them.
  for (const m of createMachines(cloud.state, 2)) {
    const node = registrationOf(m, new Date());
    node.spec = { providerID: m.providerID };
    api.store.create(Resources.nodes, node);
  }
});

afterAll(async () => {
  await cloud?.stop();
  await api?.stop();
});

const doctor = async (kubeconfig: string, cloudConfig: string) =>
  runExecutable(await executable(), [
    "doctor",
    "--cloud-provider=sandbox",
    `--cloud-config=${join(dir, cloudConfig)}`,
    `--kubeconfig=${join(dir, kubeconfig)}`,
  ]);

describe("doctor", () => {
  test("passes on a healthy sandbox", async () => {
    const r = await doctor("admin.kubeconfig", "cloud.yaml");
    expect(r.stdout).toContain("ok   Kubernetes API at");
    expect(r.stdout).toMatch(/ok {3}RBAC: all \d+ permissions the enabled controllers need are granted/);
    expect(r.stdout).toContain('ok   cloud provider "sandbox": configuration and credentials work');
    expect(r.stdout).toContain("ok   nodes: all 2 initialised");
    expect(r.stdout).toContain("all checks passed");
    expect(r.code).toBe(0);
  });

  test("names a missing RBAC rule and how to grant it", async () => {
    const r = await doctor("ccm.kubeconfig", "cloud.yaml");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL RBAC: 1 permission(s) missing for these credentials:");
    expect(r.stdout).toContain("- patch nodes/status (used for: node addresses; the NetworkUnavailable condition)");
    expect(r.stdout).toContain("fix: apply deploy/kubernetes/");
  });

  test("says the cloud credential is wrong", async () => {
    const r = await doctor("admin.kubeconfig", "wrong-token.yaml");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL cloud provider "sandbox": .*401/);
    expect(r.stdout).toContain("fix: check the cloud API address and the credentials");
  });

  test("explains a node that stays uninitialised because the cloud has no such machine", async () => {
    const stray: Node = registrationOf(
      {
        id: "m-none",
        name: "stray-1",
        providerID: "",
        zone: "",
        region: "",
        instanceType: "",
        addresses: [],
        state: "running",
      },
      new Date(),
    );
    api.store.create(Resources.nodes, stray);
    try {
      const r = await doctor("admin.kubeconfig", "cloud.yaml");
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("FAIL nodes: 1 of 3 still carry node.cloudprovider.kubernetes.io/uninitialized:");
      expect(r.stdout).toMatch(/- stray-1: CloudInstanceNotFound: .+/);
    } finally {
      api.store.delete(Resources.nodes, "stray-1");
    }
  });

  test("says the API cannot be reached, and what to check", async () => {
    await writeFile(
      join(dir, "nowhere.kubeconfig"),
      (await Bun.file(join(dir, "admin.kubeconfig")).text()).replace(api.url, "http://127.0.0.1:1"),
    );
    const r = await doctor("nowhere.kubeconfig", "cloud.yaml");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL Kubernetes API at http://127.0.0.1:1");
    expect(r.stdout).toContain("fix: check that the API server runs and is reachable");
  });
});
