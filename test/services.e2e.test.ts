/**
 * Issue 6 end to end, load balancers: the compiled all-in-one runs the sandbox without controllers, a second
 * compiled process runs the service controller (with cloud-node) with operator flags; the test changes Services
 * through the API and machines through the simulated cloud's REST API, and reads load balancers from it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isNotFound, Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { Finalizers, Labels } from "../kube/well-known.ts";
import { poll, type RunningProcess } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

const CONTROLLERS = "--controllers=service,cloud-node";
const ns = { namespace: "default" };

let sandbox: Sandbox;
let manager: RunningProcess;

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 3 });
  manager = await sandbox.startManager([CONTROLLERS, "--concurrent-service-syncs=2"]);
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
});

const lbService = (name: string, tweak: (s: Service) => void = () => {}): Service => {
  const svc: Service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: {
      type: "LoadBalancer",
      selector: { app: name },
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
    },
  };
  tweak(svc);
  return svc;
};

const getService = async (name: string): Promise<Service | undefined> => {
  try {
    return await sandbox.client.get<Service>(Resources.services, name, ns);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
};

const lbFor = async (uid: string | undefined) =>
  (await sandbox.cloud.loadBalancers()).find((lb) => uid !== undefined && lb.serviceUID === uid);

const hasFinalizer = (s: Service | undefined) =>
  (s?.metadata?.finalizers ?? []).includes(Finalizers.loadBalancerCleanup);

/** Create a LoadBalancer Service and wait until it has its finalizer, load balancer and ingress. */
async function createServed(name: string): Promise<{ svc: Service; uid: string; address: string }> {
  const created = await sandbox.client.create<Service>(Resources.services, lbService(name), ns);
  const uid = created.metadata?.uid ?? "";
  await poll(async () => (await getService(name))?.status?.loadBalancer?.ingress?.[0]?.ip !== undefined, {
    timeoutMs: 30_000,
    message: `an ingress on ${name}; manager said:\n${manager.output()}`,
  });
  const svc = (await getService(name)) as Service;
  const lb = await lbFor(uid);
  expect(lb).toBeDefined();
  return { svc, uid, address: lb?.address ?? "" };
}

/**
 * Polls the Service, then its load balancer, in that order, until the Service is gone: a poll that finds the
 * Service gone and the load balancer still there afterwards proves the load balancer outlived it.
 */
async function watchDeletion(name: string, uid: string) {
  const seen: { service: boolean; lb: boolean }[] = [];
  await poll(
    async () => {
      const service = (await getService(name)) !== undefined;
      const lb = (await lbFor(uid)) !== undefined;
      seen.push({ service, lb });
      return !service && !lb;
    },
    {
      timeoutMs: 30_000,
      everyMs: 20,
      message: `${name} and its load balancer gone; manager said:\n${manager.output()}`,
    },
  );
  return seen;
}

describe("service controller, compiled, against the sandbox", () => {
  test("a LoadBalancer Service gets the finalizer, a load balancer in the cloud, and its address as ingress", async () => {
    const { svc, uid, address } = await createServed("web");
    expect(svc.metadata?.finalizers).toContain(Finalizers.loadBalancerCleanup);
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: address }]);
    const lb = await lbFor(uid);
    expect(lb?.serviceName).toBe("web");
    expect(lb?.serviceNamespace).toBe("default");
    expect(lb?.nodes).toEqual(["node-1", "node-2", "node-3"]);
    expect(lb?.ports.map((p) => p.port)).toEqual([80]);
    expect(lb?.ports[0]?.nodePort).toBe(svc.spec?.ports?.[0]?.nodePort as number);
    const events = (await sandbox.events("web")).map((e) => e.reason);
    expect(events).toContain("EnsuringLoadBalancer");
    expect(events).toContain("EnsuredLoadBalancer");
  });

  test("changing the Service's ports updates its load balancer's ports", async () => {
    const uid = (await getService("web"))?.metadata?.uid;
    await sandbox.client.patch(
      Resources.services,
      "web",
      "merge",
      {
        spec: {
          ports: [
            { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
            { name: "https", port: 443, targetPort: 8443, protocol: "TCP" },
          ],
        },
      },
      ns,
    );
    await poll(
      async () =>
        Bun.deepEquals(
          (await lbFor(uid))?.ports.map((p) => p.port),
          [80, 443],
        ),
      {
        message: `ports 80 and 443 on web's load balancer; manager said:\n${manager.output()}`,
      },
    );
    const lb = await lbFor(uid);
    expect(lb?.ports.map((p) => p.port)).toEqual([80, 443]);
    expect(lb?.ports.every((p) => p.nodePort > 0)).toBe(true);
  });

  test("a new machine's node joins the load balancer; a node labelled for exclusion leaves it", async () => {
    const uid = (await getService("web"))?.metadata?.uid;
    await sandbox.cloud.call("POST", "/v1/machines", { name: "node-4" });
    await poll(async () => Bun.deepEquals((await lbFor(uid))?.nodes, ["node-1", "node-2", "node-3", "node-4"]), {
      message: `node-4 on web's load balancer; manager said:\n${manager.output()}`,
    });
    await sandbox.client.patch(Resources.nodes, "node-2", "merge", {
      metadata: { labels: { [Labels.excludeFromExternalLoadBalancers]: "true" } },
    });
    await poll(async () => Bun.deepEquals((await lbFor(uid))?.nodes, ["node-1", "node-3", "node-4"]), {
      message: `node-2 off web's load balancer; manager said:\n${manager.output()}`,
    });
    expect((await sandbox.events("web")).map((e) => e.reason)).toContain("UpdatedLoadBalancer");
  });

  test("deleting the Service deletes its load balancer before the Service goes", async () => {
    const uid = (await getService("web"))?.metadata?.uid ?? "";
    expect(await lbFor(uid)).toBeDefined();
    await sandbox.client.delete(Resources.services, "web", ns);
    const seen = await watchDeletion("web", uid);
    expect(seen.filter((s) => !s.service && s.lb)).toEqual([]);
    expect((await sandbox.events("web")).map((e) => e.reason)).toContain("DeletedLoadBalancer");
  });

  test("with the controllers stopped, the finalizer holds a deleted Service while its load balancer exists", async () => {
    const { uid } = await createServed("held");
    manager.proc.kill("SIGKILL");
    await manager.exited;
    await sandbox.client.delete(Resources.services, "held", ns);
    const held = await getService("held");
    expect(held?.metadata?.deletionTimestamp).toBeDefined();
    expect(hasFinalizer(held)).toBe(true);
    expect(await lbFor(uid)).toBeDefined();

    manager = await sandbox.startManager([CONTROLLERS]);
    const seen = await watchDeletion("held", uid);
    // Until the load balancer went, every poll found the Service still there.
    const lbGoneAt = seen.findIndex((s) => !s.lb);
    expect(seen.slice(0, lbGoneAt).every((s) => s.service)).toBe(true);
    expect(seen.filter((s) => !s.service && s.lb)).toEqual([]);
  });

  test("a Service with a loadBalancerClass is left alone", async () => {
    const other = await sandbox.client.create<Service>(
      Resources.services,
      lbService("other-class", (s) => {
        if (s.spec) s.spec.loadBalancerClass = "example.com/other-lb";
      }),
      ns,
    );
    // A Service created after it gets served; by then the controller has seen the other one and passed it by.
    await createServed("after-other");
    const after = await getService("other-class");
    expect(after?.metadata?.finalizers ?? []).toEqual([]);
    expect(after?.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(await lbFor(other.metadata?.uid)).toBeUndefined();
    expect((await sandbox.events("other-class")).length).toBe(0);
  });
});
