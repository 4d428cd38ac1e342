/**
 * End to end: the compiled all-in-one with `--cloud-provider=composite` against the API emulator and the
 * simulated cloud, on one cluster of `sandbox` cloud machines (node-1, node-2, registered by the sandbox's kubelets)
 * and `metal` machines (rack-1 to rack-3, registered here as their kubelets would), plus hw-1, a Node of a provider
 * that is not configured (`hrobot://1`). Load balancers come from metal's pool. In order:
 * (a) both kinds are initialised; a NotReady metal Node and hw-1 are kept while a deleted sandbox machine's NotReady
 *     Node is deleted; (b) a Service gets a metal address and the simulated cloud gets no load balancer; (c) with the
 *     cloud answering every call with 500, metal Nodes still join and Services still get addresses, the sandbox
 *     Node is kept with a Warning saying why, and `doctor` names the failing part and who owns each stuck Node.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Node, Service } from "../kube/objects.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import { registrationOf } from "../sandbox/kubelets.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { type RunningProcess, waitFor } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

setDefaultTimeout(120_000);

let cluster: Sandbox;
let manager: RunningProcess;
let compositeConfig = "";

const metalMachine = (n: number) =>
  `{ name: rack-${n}, providerID: metal://rack-${n}, addresses: { InternalIP: 10.1.0.${n} }, zone: rack-a, region: lab, instanceType: r640 }`;

async function writeCompositeConfig(): Promise<string> {
  const sandbox = Bun.YAML.parse(await readFile(cluster.cloudConfig, "utf8")) as { url: string; token: string };
  const path = join(cluster.dir, "composite.yaml");
  await writeFile(
    path,
    `providers:
  - name: sandbox
    config: { url: ${sandbox.url}, token: ${sandbox.token} }
  - name: metal
    config:
      inventory:
        machines: [${[1, 2, 3].map(metalMachine).join(", ")}]
      loadBalancer:
        global: { addresses: [192.0.2.0/28] }
loadBalancer: metal
`,
    { mode: 0o600 },
  );
  return path;
}

/** Registers a Node as a kubelet would: tainted uninitialized, Ready, with a provider ID if its kubelet sets one. */
async function register(name: string, providerID?: string): Promise<void> {
  const node = registrationOf(
    { id: name, name, providerID: "", zone: "", region: "", instanceType: "", addresses: [], state: "running" },
    new Date(),
  );
  if (providerID) node.spec = { ...node.spec, providerID };
  await cluster.client.create(Resources.nodes, node);
}

/** Ready=Unknown, as the node lifecycle sees a kubelet that stopped posting. */
function notReady(name: string): Promise<unknown> {
  const condition = {
    type: "Ready",
    status: "Unknown",
    reason: "NodeStatusUnknown",
    lastHeartbeatTime: new Date().toISOString(),
  };
  return cluster.client.patch(
    Resources.nodes,
    name,
    "strategic",
    { status: { conditions: [condition] } },
    {
      subresource: "status",
    },
  );
}

const initialised = (node: Node | undefined) =>
  node !== undefined && !(node.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

/** `waitFor` whose failure shows the manager's last output. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  try {
    await waitFor(condition, { timeoutMs: 60_000, message: what });
  } catch (err) {
    throw new Error(`${(err as Error).message}\nmanager output:\n${manager.output().slice(-3000)}`);
  }
}

async function waitInitialised(name: string): Promise<Node> {
  let node: Node | undefined;
  await until(async () => {
    node = await cluster.node(name);
    return initialised(node);
  }, `${name} initialised`);
  return node as Node;
}

async function waitEvent(node: string, reason: string): Promise<string> {
  let message: string | undefined;
  await until(async () => {
    message = (await cluster.events(node)).find((e) => e.reason === reason)?.message;
    return message !== undefined;
  }, `a ${reason} event on ${node}`);
  return message as string;
}

async function createService(name: string): Promise<string> {
  await cluster.client.create(
    Resources.services,
    {
      metadata: { name, namespace: "default" },
      spec: { type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }] },
    },
    { namespace: "default" },
  );
  let ip = "";
  await until(async () => {
    const svc = await cluster.client.get<Service>(Resources.services, name, { namespace: "default" });
    ip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? "";
    return ip !== "";
  }, `an address for Service ${name}`);
  return ip;
}

beforeAll(async () => {
  cluster = await startSandbox({ nodes: 2 });
  compositeConfig = await writeCompositeConfig();
  await register("rack-1");
  await register("rack-2");
  await register("hw-1", "hrobot://1");
  manager = await cluster.startManager([
    "--cloud-provider=composite",
    `--cloud-config=${compositeConfig}`,
    "--controllers=cloud-node,cloud-node-lifecycle,service",
  ]);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("composite: sandbox cloud machines and metal machines in one cluster", () => {
  test("(a) both kinds are initialised, each by its own provider", async () => {
    for (const name of ["node-1", "node-2"]) {
      const node = await waitInitialised(name);
      expect(node.spec?.providerID).toStartWith("sandbox://");
    }
    for (const name of ["rack-1", "rack-2"]) {
      const node = await waitInitialised(name);
      expect(node.spec?.providerID).toBe(`metal://${name}`);
      expect(node.metadata?.labels?.[Labels.zone]).toBe("rack-a");
      expect(node.metadata?.labels?.[Labels.instanceType]).toBe("r640");
    }
  });

  test("(a) a NotReady metal Node and a Node of no configured provider are kept; a deleted sandbox machine's Node is deleted", async () => {
    const keptUIDs = [(await cluster.node("rack-2"))?.metadata?.uid, (await cluster.node("hw-1"))?.metadata?.uid];
    await notReady("rack-2");
    await notReady("hw-1");
    // Made NotReady before the machine goes: every lifecycle pass that sees node-2 NotReady sees these NotReady too.
    await cluster.cloud.call("DELETE", `/v1/machines/${await cluster.cloud.machineId("node-2")}`);
    await until(async () => (await cluster.node("node-2")) === undefined, "node-2 deleted");
    expect([(await cluster.node("rack-2"))?.metadata?.uid, (await cluster.node("hw-1"))?.metadata?.uid]).toEqual(
      keptUIDs,
    );
    expect((await cluster.node("rack-2"))?.spec?.taints?.some((t) => t.key === Taints.shutdown)).toBeFalsy();
    expect(await waitEvent("hw-1", "CloudProviderUnknown")).toContain(
      'provider ID "hrobot://1" has scheme "hrobot", which no configured provider declares',
    );
  });

  test("(b) Services get addresses from the metal pool and no sandbox load balancer is made", async () => {
    const ip = await createService("web");
    expect(ip).toMatch(/^192\.0\.2\.([0-9]|1[0-5])$/);
    expect(await cluster.cloud.loadBalancers()).toEqual([]);
  });

  test("(c) with the cloud down, metal Nodes and Services go on and the sandbox Node is kept, saying why", async () => {
    await cluster.cloud.setFaults({ errorRate: 1 });
    try {
      await notReady("node-1");
      expect(await waitEvent("node-1", "CloudProviderUnavailable")).toContain(
        'cannot ask provider "sandbox" about this node',
      );
      // A bare-metal kubelet that sets --provider-id joins without asking the cloud first.
      await register("rack-3", "metal://rack-3");
      expect((await waitInitialised("rack-3")).metadata?.labels?.[Labels.zone]).toBe("rack-a");
      expect(await createService("api")).toMatch(/^192\.0\.2\./);
      expect((await cluster.node("node-1"))?.spec?.providerID).toStartWith("sandbox://");

      const doctor = await runExecutable(await executable(), [
        "doctor",
        "--cloud-provider=composite",
        `--cloud-config=${compositeConfig}`,
        `--kubeconfig=${cluster.kubeconfig}`,
      ]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain('FAIL provider "sandbox" (composite part): ');
      expect(doctor.stdout).toMatch(/(ok {2}|note) provider "metal" \(composite part\)/);
      expect(doctor.stdout).toContain(
        'belongs to no configured provider: none of sandbox, metal declares scheme "hrobot"',
      );
      expect(doctor.stdout.indexOf('provider "sandbox" (composite part)')).toBeLessThan(
        doctor.stdout.indexOf('provider "metal" (composite part)'),
      );
    } finally {
      await cluster.cloud.setFaults({});
    }
    expect(manager.output()).not.toContain("Deleting node node-1");
    expect(await cluster.node("node-1")).toBeDefined();
  });

  test("a per-provider executable composes its provider with metal, and says so in --help", async () => {
    const sandboxOnly = await executable("sandbox");
    const help = await runExecutable(sandboxOnly, ["--help"]);
    expect(help.stdout).toContain('Also "composite", to compose sandbox with metal');
    const doctor = await runExecutable(sandboxOnly, [
      "doctor",
      "--cloud-provider=composite",
      `--cloud-config=${compositeConfig}`,
      `--kubeconfig=${cluster.kubeconfig}`,
    ]);
    expect(doctor.stdout).toContain('ok   provider "sandbox" (composite part): configuration and credentials work');
    expect(doctor.stdout).toContain("hw-1:");
    const refused = await runExecutable(sandboxOnly, ["--cloud-provider=metal"]);
    expect(refused.stderr).toContain("(or --cloud-provider=composite to compose it with the providers built in)");
  });
});
