/**
 * `loadBalancerClass` end to end, on compiled managers. Two sandbox managers on one sandbox cluster, each with its
 * own lease and cloud-config (`cluster:` tells their load balancers apart in the simulated cloud): A serves class a
 * and class-less Services, B only class b. Each takes only its own Services; a Service of a third class is touched
 * by neither; a Service of B's class being deleted while B is down keeps its finalizer and load balancer (A never
 * cleans up what is not its class) until B is back. Then metal beside "another implementation": with
 * `classless: false` it serves its class and leaves class-less Services alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { isNotFound, type KubeClient, Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Finalizers } from "../kube/well-known.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { lbService } from "./scenarios/services.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting, spawnManager } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

const CLASS_A = "a.example.com/lb";
const CLASS_B = "b.example.com/lb";
const ns = { namespace: "default" };
const withClass = (cls: string) => (s: Service) => {
  if (s.spec) s.spec.loadBalancerClass = cls;
};

async function getService(client: KubeClient, name: string): Promise<Service | undefined> {
  try {
    return await client.get<Service>(Resources.services, name, ns);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const ingressOf = async (client: KubeClient, name: string) =>
  (await getService(client, name))?.status?.loadBalancer?.ingress?.[0]?.ip;

describe("two sandbox managers with different loadBalancerClass values on one cluster", () => {
  let sandbox: Sandbox;
  let url = "";
  let token = "";
  const managers: Record<"a" | "b", RunningProcess | undefined> = { a: undefined, b: undefined };
  const started: RunningProcess[] = [];
  const said = () => `A said:\n${managers.a?.output().slice(-3000)}\nB said:\n${managers.b?.output().slice(-3000)}`;

  /** Load balancers in the simulated cloud made by manager `a` or `b` (their cloud-configs set `cluster:`). */
  const balancersOf = async (who: "a" | "b") =>
    (
      await sandbox.cloud.call<{ loadBalancers: { serviceName: string }[] }>("GET", `/v1/load-balancers?cluster=${who}`)
    ).loadBalancers
      .map((lb) => lb.serviceName)
      .sort();

  async function startClassManager(who: "a" | "b", loadBalancer: string, controllers: string) {
    const cloudConfig = join(sandbox.dir, `cloud-${who}.yaml`);
    await writeFile(cloudConfig, `url: ${url}\ntoken: ${token}\ncluster: ${who}\nloadBalancer: ${loadBalancer}\n`, {
      mode: 0o600,
    });
    const flags = [
      `--controllers=${controllers}`,
      "--leader-elect=true",
      `--leader-elect-resource-name=ccm-class-${who}`,
      "--leader-elect-lease-duration=4s",
      "--leader-elect-renew-deadline=3s",
      "--leader-elect-retry-period=1s",
    ];
    const manager = await spawnManager({ kubeconfig: sandbox.kubeconfig, cloudConfig }, flags);
    started.push(manager);
    managers[who] = manager;
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ nodes: 2 });
    ({ url, token } = Bun.YAML.parse(await Bun.file(sandbox.cloudConfig).text()) as { url: string; token: string });
  }, 120_000);

  afterAll(async () => {
    for (const m of started) m.proc.kill("SIGKILL");
    await Promise.all(started.map((m) => m.exited));
    await sandbox?.stop();
  });

  test("each manager takes only its own Services; a third class is touched by neither", async () => {
    await startClassManager("a", `{ classes: [${CLASS_A}], classless: true }`, "service,cloud-node");
    await startClassManager("b", `{ classes: [${CLASS_B}], classless: false }`, "service");
    const { client } = sandbox;
    // Created first, so that by the time the later ones are served, both managers have passed it by.
    const third = await client.create<Service>(
      Resources.services,
      lbService("class-c", withClass("c.example.com/lb")),
      ns,
    );
    await client.create(Resources.services, lbService("class-a", withClass(CLASS_A)), ns);
    await client.create(Resources.services, lbService("class-b", withClass(CLASS_B)), ns);
    await client.create(Resources.services, lbService("classless"), ns);
    await poll(
      async () =>
        (await Promise.all(["class-a", "class-b", "classless"].map((n) => ingressOf(client, n)))).every(Boolean),
      { timeoutMs: 60_000, message: `ingress on class-a, class-b and classless; ${said()}` },
    );
    expect(await balancersOf("a")).toEqual(["class-a", "classless"]);
    expect(await balancersOf("b")).toEqual(["class-b"]);
    const untouched = await getService(client, "class-c");
    expect(untouched?.metadata?.finalizers ?? []).toEqual([]);
    expect(untouched?.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(untouched?.metadata?.resourceVersion).toBe(third.metadata?.resourceVersion);
    expect(await sandbox.events("class-c")).toEqual([]);
  }, 120_000);

  test("a Service of B's class deleted while B is down keeps its finalizer and load balancer until B is back", async () => {
    const { client } = sandbox;
    const b = managers.b as RunningProcess;
    b.proc.kill("SIGTERM");
    expect(await b.exited).toBe(0);
    await client.delete(Resources.services, "class-b", ns);
    // A sees the deletion; a Service of A's class created after it is served, so A has passed the deletion by.
    await client.create(Resources.services, lbService("class-a-later", withClass(CLASS_A)), ns);
    await poll(async () => Boolean(await ingressOf(client, "class-a-later")), {
      timeoutMs: 30_000,
      message: `ingress on class-a-later; ${said()}`,
    });
    const pending = await getService(client, "class-b");
    expect(pending?.metadata?.deletionTimestamp).toBeDefined();
    expect(pending?.metadata?.finalizers).toEqual([Finalizers.loadBalancerCleanup]);
    expect(await balancersOf("b")).toEqual(["class-b"]);

    await startClassManager("b", `{ classes: [${CLASS_B}], classless: false }`, "service");
    await poll(
      async () => (await getService(client, "class-b")) === undefined && (await balancersOf("b")).length === 0,
      {
        timeoutMs: 60_000,
        message: `class-b and its load balancer gone; ${said()}`,
      },
    );
    expect(await balancersOf("a")).toEqual(["class-a", "class-a-later", "classless"]);
  }, 120_000);
});

describe("metal beside another load-balancer implementation (classless: false)", () => {
  let api: ApiServer;
  let client: KubeClient;
  let dir = "";
  let metal: RunningProcess | undefined;
  const METAL_CLASS = "metal.example.com/pool";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ccm-class-metal-"));
    api = await startApiServer({});
    const files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "metal.yaml") };
    await api.writeKubeconfig(files.kubeconfig);
    await writeFile(
      files.cloudConfig,
      `loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n  classes: [${METAL_CLASS}]\n  classless: false\n`,
    );
    client = createKubeClient(loadTransport({ kubeconfig: files.kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
    metal = spawnCollecting(
      await managerCommand(files, ["--controllers=service"], { provider: "metal", clusterCIDR: "" }),
    );
  }, 120_000);

  afterAll(async () => {
    metal?.proc.kill("SIGKILL");
    await metal?.exited;
    await api?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("serves its class and leaves class-less Services to the other implementation", async () => {
    const plain = await client.create<Service>(Resources.services, lbService("plain"), ns);
    await client.create(Resources.services, lbService("pooled", withClass(METAL_CLASS)), ns);
    await poll(async () => (await ingressOf(client, "pooled")) !== undefined, {
      timeoutMs: 60_000,
      message: `an address on pooled; metal said:\n${metal?.output().slice(-3000)}`,
    });
    expect(await ingressOf(client, "pooled")).toBe("192.0.2.1");
    const after = await getService(client, "plain");
    expect(after?.metadata?.resourceVersion).toBe(plain.metadata?.resourceVersion);
    expect(after?.metadata?.finalizers ?? []).toEqual([]);
  }, 120_000);
});
