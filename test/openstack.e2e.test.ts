/**
 * End to end: the compiled `openstack-cloud-controller-manager`, run with the flags of OCCM's DaemonSet
 * (`manifests/controller-manager/openstack-cloud-controller-manager-ds.yaml`) and a real-shaped `cloud.conf`, against
 * the API emulator and the OpenStack emulator: server nodes initialised as OCCM initialises them, a SHUTOFF server's
 * NotReady node tainted, a deleted one's node deleted; `doctor` proving password auth, an application credential
 * from a clouds.yaml, and naming `[Global]` when refused; a bad `cloud.conf` stopping it naming the key.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../kube/client-types.ts";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { type OpenStackEmulator, startOpenStackEmulator } from "../sandbox/openstack/server.ts";
import { addAppCredential, createServer, deleteServer, networkNamed } from "../sandbox/openstack/state.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { registerNode } from "./support/hcloud.ts";
import { poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";
import { runSandboxPrintedCommand } from "./support/sandbox-cloud.ts";

const PASSWORD = "e2e-password-0123456789";

let api: ApiServer;
let client: KubeClient;
let emulator: OpenStackEmulator;
let dir = "";
let manager: RunningProcess | undefined;
const tail = () => manager?.output().slice(-3000) ?? "";

/** A password cloud.conf as OCCM's docs write it; `extra` lines end [Global] or add sections. */
const passwordConf = (password = PASSWORD, extra = "") => `[Global]
auth-url = ${emulator.authUrl}
username = admin
password = "${password}"
user-domain-name = Default
tenant-name = k8s
tenant-domain-name = Default
region = RegionOne
${extra}
[Networking]
public-network-name = public

[LoadBalancer]
floating-network-id = ${networkNamed(emulator.world, "public").id}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-openstack-"));
  emulator = startOpenStackEmulator({ username: "admin", password: PASSWORD, project: "k8s" });
  ({ api, client } = await startE2eApiServer(dir));
  await writeFile(join(dir, "cloud.conf"), passwordConf());
}, 60_000);

afterAll(() => tearDown(manager, [api, emulator], dir));

/** OCCM's DaemonSet arguments, with CLUSTER_NAME and CLOUD_CONFIG filled in; then what a test needs. */
const occmFlags = (cloudConfig: string) => [
  "--v=1",
  "--cluster-name=kubernetes",
  `--cloud-config=${cloudConfig}`,
  "--cloud-provider=openstack",
  "--use-service-account-credentials=false",
  "--bind-address=127.0.0.1",
];

async function until(what: string, check: () => boolean, timeoutMs = 60_000) {
  await poll(check, { timeoutMs, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });
}

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};
const untilNode = (name: string, what: string, check: (n: Node | undefined) => boolean) =>
  until(`${name}: ${what}; node: ${JSON.stringify(nodeNamed(name))}`, () => check(nodeNamed(name)));
const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown);

test("server nodes initialised with OCCM's provider IDs, labels and addresses, from OCCM's flags", async () => {
  const one = createServer(emulator.world, { name: "worker-1", flavor: "m1.large", availabilityZone: "az-1" });
  createServer(emulator.world, { name: "worker-2", floatingIP: true });
  for (const name of ["worker-1", "worker-2"]) await registerNode(client, name);
  manager = spawnCollecting([
    await executable("openstack"),
    ...occmFlags(join(dir, "cloud.conf")),
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    "--secure-port=0",
    "--leader-elect-lease-duration=4s",
    "--leader-elect-renew-deadline=3s",
    "--leader-elect-retry-period=1s",
    "--node-monitor-period=1s",
    "--node-status-update-frequency=1s",
  ]);
  for (const name of ["worker-1", "worker-2"]) await untilNode(name, "initialised", initialised);

  const n = nodeNamed("worker-1");
  expect(n?.spec?.providerID).toBe(`openstack:///${one.id}`);
  expect(n?.metadata?.labels).toMatchObject({
    "node.kubernetes.io/instance-type": "m1.large",
    "topology.kubernetes.io/zone": "az-1",
    "topology.kubernetes.io/region": "RegionOne",
  });
  await untilNode("worker-2", "addresses", (x) => (x?.status?.addresses ?? []).length === 2);
  expect(nodeNamed("worker-2")?.status?.addresses).toEqual([
    { type: "InternalIP", address: expect.stringMatching(/^10\.0\.0\./) },
    { type: "ExternalIP", address: expect.stringMatching(/^203\.0\.113\./) },
  ]);
  expect(manager.output()).not.toContain(PASSWORD);
}, 180_000);

test("a SHUTOFF server's NotReady node gets the shutdown taint; a deleted server's node is deleted", async () => {
  const two = [...emulator.world.servers.values()].find((s) => s.name === "worker-2");
  if (!two) throw new Error("worker-2 is missing");
  two.status = "SHUTOFF";
  await setNodeReady(client, "worker-2", "Unknown");
  await untilNode("worker-2", "tainted shut down", tainted);
  deleteServer(emulator.world, two.id);
  await until("worker-2 deleted", () => nodeNamed("worker-2") === undefined);
  expect(nodeNamed("worker-1")).toBeDefined();
}, 120_000);

test("doctor proves an application credential read from a clouds.yaml", async () => {
  const c = addAppCredential(emulator.world, {
    name: "ccm",
    userID: emulator.user.id,
    projectID: emulator.project.id,
    secret: "e2e-app-credential-secret",
  });
  await writeFile(
    join(dir, "clouds.yaml"),
    `clouds:
  openstack:
    auth:
      auth_url: ${emulator.authUrl}
      application_credential_id: ${c.id}
      application_credential_secret: e2e-app-credential-secret
    region_name: RegionOne
    interface: public
    identity_api_version: 3
    auth_type: v3applicationcredential
`,
  );
  await writeFile(
    join(dir, "clouds.conf"),
    `[Global]\nuse-clouds = true\nclouds-file = ${join(dir, "clouds.yaml")}\ncloud = openstack\n`,
  );
  const r = await runExecutable(await executable("openstack"), [
    "doctor",
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    `--cloud-config=${join(dir, "clouds.conf")}`,
  ]);
  expect({ code: r.code, out: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, out: "" });
}, 60_000);

test("doctor with a refused password names [Global], never the password", async () => {
  await writeFile(join(dir, "wrong.conf"), passwordConf("wrong-e2e-password-value"));
  const r = await runExecutable(await executable("openstack"), [
    "doctor",
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    `--cloud-config=${join(dir, "wrong.conf")}`,
  ]);
  const out = r.stdout + r.stderr;
  expect({ code: r.code === 0 ? 0 : "non-zero", named: out.includes("[Global]") }).toEqual({
    code: "non-zero",
    named: true,
  });
  expect(out).not.toContain("wrong-e2e-password-value");
}, 60_000);

test("a cloud.conf with a misspelt key stops it naming the section and key", async () => {
  await writeFile(join(dir, "typo.conf"), passwordConf(PASSWORD, "tenant-nam = k8s"));
  const r = await runExecutable(await executable("openstack"), [
    ...occmFlags(join(dir, "typo.conf")),
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    "--secure-port=0",
  ]);
  const out = r.stdout + r.stderr;
  expect({ code: r.code === 0 ? 0 : "non-zero", named: out.includes("[Global] tenant-nam") }).toEqual({
    code: "non-zero",
    named: true,
  });
  expect(out).toContain("did you mean tenant-name?");
}, 60_000);

test("the all-in-one takes --cloud-provider=openstack: its doctor passes on OCCM's cloud.conf", async () => {
  const r = await runExecutable(await executable(), [
    "doctor",
    "--cloud-provider=openstack",
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    `--cloud-config=${join(dir, "cloud.conf")}`,
  ]);
  expect({ code: r.code, out: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, out: "" });
}, 60_000);

test("sandbox --cloud=openstack --controllers=false prints a command with its cloud.conf that plans, then, run as printed, initialises its servers", async () => {
  const out = await runSandboxPrintedCommand("openstack", {
    nodes: 2,
    plan: /Node node-2\n {2}~ initialize [^\n]*\n {6}spec\.providerID openstack:\/\/\/[\s\S]*Nothing was written\./,
    printed: /^cloud-controller-manager --cloud-provider=openstack --cloud-config=\S+\/cloud\.conf /,
  });
  for (const n of [1, 2])
    expect(out).toMatch(new RegExp(`node node-${n}: initialised openstack:///[0-9a-f-]{36} zone=nova type=m1.large`));
}, 180_000);
