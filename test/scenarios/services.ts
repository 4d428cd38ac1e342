/**
 * The service controller's scenarios, compiled (with cloud-node), on a cluster of three nodes: a LoadBalancer
 * Service gets the finalizer, a load balancer in the simulated cloud and its address as ingress; the load balancer
 * follows the Service's ports and the nodes (a new machine joins, a node labelled for exclusion leaves); it is
 * deleted before the Service goes — also when the Service was deleted while no manager ran; a Service with a
 * loadBalancerClass is left alone. The tests run in order on one cluster.
 */
import { expect, test } from "bun:test";
import { isNotFound, Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { Finalizers, Labels } from "../../kube/well-known.ts";
import type { TestCluster } from "../support/cluster.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { describeOnTier, type ScenarioTier, scenarioTest } from "./tier.ts";

export const SERVICE_CONTROLLERS = "--controllers=service,cloud-node";
const ns = { namespace: "default" };

export interface ServicesTier extends ScenarioTier<ServicesRun> {
  /** Scenarios this tier's server cannot show, with the reason; they are registered as skipped tests. */
  readonly skip?: { readonly loadBalancerClass?: string };
}

export const lbService = (name: string, tweak: (s: Service) => void = () => {}): Service => {
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

const hasFinalizer = (s: Service | undefined) =>
  (s?.metadata?.finalizers ?? []).includes(Finalizers.loadBalancerCleanup);

/** The scenarios' cluster and manager (set before the first test) and the helpers on them, also for a tier's own tests. */
export class ServicesRun {
  cluster!: TestCluster;
  /** The manager running the controllers; a test that restarts it sets the new one. */
  manager!: RunningProcess;

  async getService(name: string): Promise<Service | undefined> {
    try {
      return await this.cluster.client.get<Service>(Resources.services, name, ns);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async lbFor(uid: string | undefined) {
    return (await this.cluster.cloud.loadBalancers()).find((lb) => uid !== undefined && lb.serviceUID === uid);
  }

  /** Create a LoadBalancer Service and wait until it has its finalizer, load balancer and ingress. */
  async createServed(name: string): Promise<{ svc: Service; uid: string; address: string }> {
    const created = await this.cluster.client.create<Service>(Resources.services, lbService(name), ns);
    const uid = created.metadata?.uid ?? "";
    await poll(async () => (await this.getService(name))?.status?.loadBalancer?.ingress?.[0]?.ip !== undefined, {
      timeoutMs: 30_000,
      message: `an ingress on ${name}; manager said:\n${this.manager.output()}`,
    });
    const svc = (await this.getService(name)) as Service;
    const lb = await this.lbFor(uid);
    expect(lb).toBeDefined();
    return { svc, uid, address: lb?.address ?? "" };
  }

  /**
   * Polls the Service, then its load balancer, in that order, until the Service is gone: a poll that finds the
   * Service gone and the load balancer still there afterwards proves the load balancer outlived it.
   */
  async watchDeletion(name: string, uid: string): Promise<{ service: boolean; lb: boolean }[]> {
    const seen: { service: boolean; lb: boolean }[] = [];
    await poll(
      async () => {
        const service = (await this.getService(name)) !== undefined;
        const lb = (await this.lbFor(uid)) !== undefined;
        seen.push({ service, lb });
        return !service && !lb;
      },
      {
        timeoutMs: 30_000,
        everyMs: 20,
        message: `${name} and its load balancer gone; manager said:\n${this.manager.output()}`,
      },
    );
    return seen;
  }

  /**
   * The Service's event reasons once every `wanted` one is there: the recorder writes from a queue, so an event
   * can land a moment after the change it reports. Times out (and the caller's assertion then says which is missing).
   */
  async reasons(name: string, wanted: readonly string[]): Promise<(string | undefined)[]> {
    let seen: (string | undefined)[] = [];
    const complete = async () => {
      seen = (await this.cluster.events(name)).map((e) => e.reason);
      return wanted.every((w) => seen.includes(w));
    };
    // On timeout the caller's assertion names what is missing, so the wait itself only stops waiting.
    await poll(complete, { timeoutMs: 20_000, message: `events ${wanted.join(", ")} on ${name}` }).catch(() => {});
    return seen;
  }
}

export function describeServiceScenarios(tier: ServicesTier): void {
  describeOnTier(
    tier,
    new ServicesRun(),
    {
      nodes: 3,
      async ready(run) {
        run.manager = await run.cluster.startManager([SERVICE_CONTROLLERS, "--concurrent-service-syncs=2"]);
      },
    },
    (run) => sharedScenarios(run, tier.skip ?? {}),
  );
}

function sharedScenarios(run: ServicesRun, skip: NonNullable<ServicesTier["skip"]>): void {
  test("a LoadBalancer Service gets the finalizer, a load balancer in the cloud, and its address as ingress", async () => {
    const { svc, uid, address } = await run.createServed("web");
    expect(svc.metadata?.finalizers).toContain(Finalizers.loadBalancerCleanup);
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: address }]);
    const lb = await run.lbFor(uid);
    expect(lb?.serviceName).toBe("web");
    expect(lb?.serviceNamespace).toBe("default");
    expect(lb?.nodes).toEqual(["node-1", "node-2", "node-3"]);
    expect(lb?.ports.map((p) => p.port)).toEqual([80]);
    expect(lb?.ports[0]?.nodePort).toBe(svc.spec?.ports?.[0]?.nodePort as number);
    const events = await run.reasons("web", ["EnsuringLoadBalancer", "EnsuredLoadBalancer"]);
    expect(events).toContain("EnsuringLoadBalancer");
    expect(events).toContain("EnsuredLoadBalancer");
  });

  test("changing the Service's ports updates its load balancer's ports", async () => {
    const uid = (await run.getService("web"))?.metadata?.uid;
    const ports = [
      { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
      { name: "https", port: 443, targetPort: 8443, protocol: "TCP" },
    ];
    await run.cluster.client.patch(Resources.services, "web", "merge", { spec: { ports } }, ns);
    await poll(
      async () =>
        Bun.deepEquals(
          (await run.lbFor(uid))?.ports.map((p) => p.port),
          [80, 443],
        ),
      { message: `ports 80 and 443 on web's load balancer; manager said:\n${run.manager.output()}` },
    );
    const lb = await run.lbFor(uid);
    expect(lb?.ports.map((p) => p.port)).toEqual([80, 443]);
    expect(lb?.ports.every((p) => p.nodePort > 0)).toBe(true);
  });

  test("a new machine's node joins the load balancer; a node labelled for exclusion leaves it", async () => {
    const uid = (await run.getService("web"))?.metadata?.uid;
    await run.cluster.cloud.call("POST", "/v1/machines", { name: "node-4" });
    await poll(async () => Bun.deepEquals((await run.lbFor(uid))?.nodes, ["node-1", "node-2", "node-3", "node-4"]), {
      message: `node-4 on web's load balancer; manager said:\n${run.manager.output()}`,
    });
    await run.cluster.client.patch(Resources.nodes, "node-2", "merge", {
      metadata: { labels: { [Labels.excludeFromExternalLoadBalancers]: "true" } },
    });
    await poll(async () => Bun.deepEquals((await run.lbFor(uid))?.nodes, ["node-1", "node-3", "node-4"]), {
      message: `node-2 off web's load balancer; manager said:\n${run.manager.output()}`,
    });
    expect(await run.reasons("web", ["UpdatedLoadBalancer"])).toContain("UpdatedLoadBalancer");
  });

  test("deleting the Service deletes its load balancer before the Service goes", async () => {
    const uid = (await run.getService("web"))?.metadata?.uid ?? "";
    expect(await run.lbFor(uid)).toBeDefined();
    await run.cluster.client.delete(Resources.services, "web", ns);
    const seen = await run.watchDeletion("web", uid);
    expect(seen.filter((s) => !s.service && s.lb)).toEqual([]);
    expect(await run.reasons("web", ["DeletedLoadBalancer"])).toContain("DeletedLoadBalancer");
  });

  test("with the controllers stopped, the finalizer holds a deleted Service while its load balancer exists", async () => {
    const { uid } = await run.createServed("held");
    run.manager.proc.kill("SIGKILL");
    await run.manager.exited;
    await run.cluster.client.delete(Resources.services, "held", ns);
    const held = await run.getService("held");
    expect(held?.metadata?.deletionTimestamp).toBeDefined();
    expect(hasFinalizer(held)).toBe(true);
    expect(await run.lbFor(uid)).toBeDefined();

    run.manager = await run.cluster.startManager([SERVICE_CONTROLLERS]);
    const seen = await run.watchDeletion("held", uid);
    // Until the load balancer went, every poll found the Service still there.
    const lbGoneAt = seen.findIndex((s) => !s.lb);
    expect(seen.slice(0, lbGoneAt).every((s) => s.service)).toBe(true);
    expect(seen.filter((s) => !s.service && s.lb)).toEqual([]);
  });

  scenarioTest("a Service with a loadBalancerClass is left alone", skip.loadBalancerClass, async () => {
    const other = await run.cluster.client.create<Service>(
      Resources.services,
      lbService("other-class", (s) => {
        if (s.spec) s.spec.loadBalancerClass = "example.com/other-lb";
      }),
      ns,
    );
    // A Service created after it gets served; by then the controller has seen the other one and passed it by.
    await run.createServed("after-other");
    const after = await run.getService("other-class");
    expect(after?.metadata?.finalizers ?? []).toEqual([]);
    expect(after?.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(await run.lbFor(other.metadata?.uid)).toBeUndefined();
    expect((await run.cluster.events("other-class")).length).toBe(0);
  });
}
