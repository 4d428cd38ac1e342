import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import type { CloudProvider, LoadBalancer, LoadBalancerPlan } from "../../providers/cloud.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import type { ControllerName } from "../names.ts";
import {
  addr,
  addresses,
  ctx,
  labels,
  node,
  providerID,
  ready,
  uninitialized,
  v2Cloud,
} from "../node/node-fixtures.ts";
import { gatherPlan, type PlanInput } from "./gather.ts";
import { type Plan, planExitCode } from "./model.ts";

const ALL: ControllerName[] = [
  "cloud-node-controller",
  "cloud-node-lifecycle-controller",
  "service-lb-controller",
  "node-route-controller",
];

const cloud = (tweak: (c: FakeCloud) => void = () => {}) =>
  v2Cloud((c) => {
    c.providerID = { n1: "fake://1" };
    c.existsByProviderID = true;
    c.zone = { failureDomain: "z1", region: "r1" };
    tweak(c);
  });

const initialised = () =>
  node(
    "n1",
    providerID("fake://1"),
    ready(true),
    labels({ "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1" }),
    addresses(addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "132.143.154.163")),
  );

const lbService = (tweak: Partial<Service> = {}): Service => ({
  metadata: { name: "web", namespace: "default", uid: "u-1", ...tweak.metadata },
  spec: { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] },
  ...(tweak.status ? { status: tweak.status } : {}),
});

/** A provider whose load balancer previews `answer` and refuses every write. */
function previewing(answer: LoadBalancerPlan, base: CloudProvider): CloudProvider {
  const refuse = () => Promise.reject(new Error("plan must not write"));
  const loadBalancer: LoadBalancer = {
    getLoadBalancer: async () => undefined,
    getLoadBalancerName: () => answer.name,
    ensureLoadBalancer: refuse,
    updateLoadBalancer: refuse,
    ensureLoadBalancerDeleted: refuse,
    planLoadBalancer: async () => answer,
  };
  return { providerName: "p", hasClusterID: () => true, instancesV2: base.instancesV2, loadBalancer };
}

/** The Service as an earlier pass left it: the cleanup finalizer on and, given `ip`, the status naming that address. */
const synced = (ip?: string): Service =>
  lbService({
    metadata: { name: "web", finalizers: ["service.kubernetes.io/load-balancer-cleanup"] },
    ...(ip === undefined ? {} : { status: { loadBalancer: { ingress: [{ ip }] } } }),
  });

const plan = (input: Partial<PlanInput> & Pick<PlanInput, "provider">): Promise<Plan> =>
  gatherPlan({
    controllers: ALL,
    nodes: [],
    services: [],
    options: { clusterName: "kubernetes", clusterCIDR: "", configureCloudRoutes: false },
    ctx: ctx(),
    now: () => 0,
    ...input,
  });

const summary = (p: Plan) => p.writes.map((w) => `${w.object.kind} ${w.object.name}: ${w.action}`);

/** A LoadBalancer Service's first pass when its load balancer is created: the writes, in order. */
const createsLB = [
  "Service default/web: add-finalizer",
  "LoadBalancer lb-web: create",
  "Service default/web: update-status",
  "Service default/web: event",
  "Service default/web: event",
];

describe("gatherPlan", () => {
  const cases: {
    name: string;
    input: () => Partial<PlanInput> & Pick<PlanInput, "provider">;
    writes: string[];
    exit: 0 | 1 | 2;
    check?: (p: Plan) => void;
  }[] = [
    {
      name: "an uninitialised node is initialised, its addresses patched and a Synced event recorded",
      input: () => ({ provider: cloud(), nodes: [node("n1", uninitialized, ready(true))] }),
      writes: ["Node n1: initialize", "Node n1: update-addresses", "Node n1: event"],
      exit: 2,
      check: (p) => {
        const init = p.writes[0];
        expect(init?.reason).toBe(`node has the ${Taints.uninitialized} taint`);
        expect(init?.changes).toContain("spec.providerID fake://1");
        expect(init?.changes).toContain("label topology.kubernetes.io/zone=z1");
        expect(init?.changes).toContain(`remove taint ${Taints.uninitialized}`);
        expect(p.writes[2]?.changes).toEqual(["Normal Synced: Node synced successfully"]);
      },
    },
    {
      name: "a converged node needs nothing",
      input: () => ({ provider: cloud(), nodes: [initialised()] }),
      writes: [],
      exit: 0,
    },
    {
      name: "a NotReady node whose instance is gone is deleted, with its DeletingNode event",
      input: () => ({
        provider: cloud((c) => {
          c.existsByProviderID = false;
        }),
        nodes: [
          { ...initialised(), status: { ...initialised().status, conditions: [{ type: "Ready", status: "False" }] } },
        ],
      }),
      writes: ["Node n1: event", "Node n1: delete"],
      exit: 2,
      check: (p) =>
        expect(p.writes[1]?.reason).toBe("Deleting node n1 because it does not exist in the cloud provider"),
    },
    {
      name: "a node the cloud cannot answer for is a problem, and the plan is incomplete",
      input: () => ({
        provider: cloud((c) => {
          c.metadataErr = new Error("cloud down");
        }),
        nodes: [node("n1", uninitialized)],
      }),
      writes: [],
      exit: 1,
      check: (p) => expect(p.problems[0]?.message).toContain("cloud down"),
    },
    {
      name: "a LoadBalancer Service on a provider that cannot preview gets its finalizer, the Ensuring event and an 'unknown' note",
      input: () => ({ provider: cloud(), nodes: [initialised()], services: [lbService()] }),
      writes: ["Service default/web: add-finalizer", "Service default/web: event"],
      exit: 2,
      check: (p) => {
        expect(p.notes).toHaveLength(1);
        expect(p.notes[0]?.unknown).toBe(true);
        expect(p.notes[0]?.message).toContain("cannot preview");
      },
    },
    {
      name: "a new load balancer is created and the Service's status set",
      input: () => ({
        provider: previewing({ action: "create", name: "lb-web", changes: ["create"] }, cloud()),
        nodes: [initialised()],
        services: [lbService()],
      }),
      writes: createsLB,
      exit: 2,
    },
    {
      name: "a node getting its provider ID notes that the load balancer's hosts may be re-sent",
      input: () => ({
        provider: previewing({ action: "create", name: "lb-web", changes: ["create"] }, cloud()),
        nodes: [node("n1", uninitialized, ready(true))],
        services: [lbService()],
      }),
      writes: ["Node n1: initialize", "Node n1: update-addresses", "Node n1: event", ...createsLB],
      exit: 2,
      check: (p) => {
        expect(p.notes.map((n) => `${n.object.kind} ${n.object.name}`)).toEqual(["LoadBalancer lb-web"]);
        expect(p.notes[0]?.message).toStartWith("when nodes n1 get their provider IDs");
      },
    },
    {
      name: "an adopted load balancer keeps its address, and the Service's status already says it",
      input: () => ({
        provider: previewing(
          { action: "adopt", name: "lb-web", changes: ["label"], status: { ingress: [{ ip: "1.2.3.4" }] } },
          cloud(),
        ),
        nodes: [initialised()],
        services: [synced("1.2.3.4")],
      }),
      writes: ["LoadBalancer lb-web: adopt", "Service default/web: event", "Service default/web: event"],
      exit: 2,
      check: (p) => expect(p.writes[0]?.changes).toEqual(["label", "keeps its addresses [1.2.3.4]"]),
    },
    {
      name: "a load balancer whose addresses may move leaves the Service's status unknown, and the plan says so",
      input: () => ({
        provider: previewing({ action: "update", name: "lb-web", changes: ["attach_to_network 1"] }, cloud()),
        nodes: [initialised()],
        services: [synced()],
      }),
      writes: ["LoadBalancer lb-web: update", "Service default/web: event", "Service default/web: event"],
      exit: 2,
      check: (p) => expect(p.notes.map((n) => [n.object.name, n.unknown])).toEqual([["default/web", true]]),
    },
    {
      name: "a Service the provider would refuse is a problem, with the events the failed sync records",
      input: () => ({
        provider: {
          ...previewing({ action: "none", name: "lb-web", changes: [] }, cloud()),
          loadBalancer: {
            ...previewing({ action: "none", name: "lb-web", changes: [] }, cloud()).loadBalancer!,
            planLoadBalancer: () => Promise.reject(new Error("bad annotation")),
          },
        },
        nodes: [initialised()],
        services: [synced()],
      }),
      writes: ["Service default/web: event", "Service default/web: event"],
      exit: 1,
      check: (p) => {
        expect(p.problems.map((x) => x.message)).toEqual(["bad annotation"]);
        expect(p.writes.map((w) => w.changes[0])).toEqual([
          "Normal EnsuringLoadBalancer: Ensuring load balancer",
          "Warning SyncLoadBalancerFailed: Error syncing load balancer: bad annotation",
        ]);
      },
    },
    {
      name: "a converged Service with its load balancer in place needs nothing (its resync Events are not listed)",
      input: () => ({
        provider: previewing(
          { action: "none", name: "lb-web", changes: [], status: { ingress: [{ ip: "1.2.3.4" }] } },
          cloud(),
        ),
        nodes: [initialised()],
        services: [synced("1.2.3.4")],
      }),
      writes: [],
      exit: 0,
    },
    {
      name: "a Service being deleted loses its load balancer and our finalizer, and no status is written to it",
      input: () => ({
        provider: {
          ...previewing({ action: "none", name: "lb-web", changes: [] }, cloud()),
          loadBalancer: {
            ...previewing({ action: "none", name: "lb-web", changes: [] }, cloud()).loadBalancer!,
            getLoadBalancer: async () => ({ ingress: [{ ip: "1.2.3.4" }] }),
          },
        },
        nodes: [initialised()],
        services: [
          lbService({
            metadata: {
              name: "web",
              finalizers: ["service.kubernetes.io/load-balancer-cleanup"],
              deletionTimestamp: "2024-01-01T00:00:00Z",
            },
            status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
          }),
        ],
      }),
      writes: [
        "LoadBalancer lb-web: delete",
        "Service default/web: remove-finalizer",
        "Service default/web: event",
        "Service default/web: event",
      ],
      exit: 2,
      check: (p) =>
        expect(p.writes[0]?.reason).toBe(
          "Deleting existing load balancer for service default/web (the Service is being deleted)",
        ),
    },
    {
      name: "--controllers leaves a controller out, and a declining one says why",
      input: () => ({
        provider: cloud(),
        controllers: ["node-route-controller"],
        nodes: [node("n1", uninitialized)],
      }),
      writes: [],
      exit: 0,
      check: (p) =>
        expect(p.controllers).toEqual([
          {
            name: "node-route-controller",
            runs: false,
            reason: "will not configure cloud provider routes: --configure-cloud-routes=false",
          },
        ]),
    },
    {
      name: "a node with a pod CIDR gets its route and the NetworkUnavailable=False condition",
      input: () => ({
        provider: cloud(),
        controllers: ["node-route-controller"],
        options: { clusterName: "kubernetes", clusterCIDR: "10.0.0.0/8", configureCloudRoutes: true },
        nodes: [{ ...initialised(), spec: { ...initialised().spec, podCIDRs: ["10.1.0.0/24"] } }],
      }),
      writes: ["Route 10.1.0.0/24: create", "Node n1: set-condition"],
      exit: 2,
      check: (p) => expect(p.writes[1]?.changes).toEqual(["condition NetworkUnavailable=False (RouteCreated)"]),
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const p = await plan(c.input());
      expect(summary(p)).toEqual(c.writes);
      expect(planExitCode(p)).toBe(c.exit);
      c.check?.(p);
    });
  }

  test("never calls a load-balancer or route write of the provider", async () => {
    const c = cloud();
    await plan({
      provider: c,
      nodes: [node("n1", uninitialized), { ...initialised(), spec: { podCIDRs: ["10.1.0.0/24"] } }],
      services: [lbService()],
      options: { clusterName: "kubernetes", clusterCIDR: "10.0.0.0/8", configureCloudRoutes: true },
    });
    const writes = c.callNames().filter((n) => /ensure|update|create|delete/i.test(n));
    expect(c.callNames().length).toBeGreaterThan(0);
    expect(writes).toEqual([]);
  });
});
