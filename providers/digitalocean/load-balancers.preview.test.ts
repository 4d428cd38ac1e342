/**
 * `planLoadBalancer`: what `ensureLoadBalancer` would do, found with reads only. Every row checks that the cloud got
 * no write at all, then the action, the changes and the status the preview reports; adoption shows as adoption.
 */
import { expect, test } from "bun:test";
import type { LoadBalancerPlan } from "../cloud.ts";
import { rejection } from "../testing.ts";
import {
  A,
  CLUSTER_TAG,
  ctx,
  DEFAULT_NAME,
  doCcmLB,
  emulatorPerTest,
  type LBWorld,
  service,
  UID,
} from "./lb/testing.ts";

const e = emulatorPerTest();
const ID = "kubernetes.digitalocean.com/load-balancer-id";

const rows: readonly (readonly [
  string,
  (w: LBWorld) => Promise<Record<string, string>>,
  (plan: LoadBalancerPlan, w: LBWorld) => void,
])[] = [
  [
    "create: nothing found; the change says what would be made",
    async () => ({}),
    (plan) =>
      expect(plan).toEqual({
        action: "create",
        name: DEFAULT_NAME,
        changes: [
          `create REGIONAL EXTERNAL in nyc3 with tcp:80→30080, tcp:443→30443 and 3 Droplet(s), tagged ${CLUSTER_TAG}, ccm-service:${UID}`,
        ],
      }),
  ],
  [
    "none: this Service's load balancer, recorded on it, is as it wants; the status is its IP",
    async (w) => {
      await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
      return { [ID]: w.only().id, [`${A}type`]: "REGIONAL" };
    },
    (plan, w) =>
      expect(plan).toEqual({
        action: "none",
        name: DEFAULT_NAME,
        changes: [],
        status: { ingress: [{ ip: w.only().ip }] },
      }),
  ],
  [
    "update: a new name is a rename in place",
    async (w) => {
      await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
      return { [ID]: w.only().id, [`${A}type`]: "REGIONAL", [`${A}name`]: "shop" };
    },
    (plan) => {
      expect(plan.action).toBe("update");
      expect(plan.changes).toEqual([`name ${DEFAULT_NAME} → shop`]);
    },
  ],
  [
    "adopt: a DO CCM load balancer named by the ID annotation keeps its ID and IP",
    async (w) => ({ [ID]: doCcmLB(w, "legacy", []).id }),
    (plan, w) => {
      expect(plan.action).toBe("adopt");
      expect(plan.name).toBe("legacy");
      expect(plan.changes[0]).toBe(`adopt load balancer ${w.only().id} found by its ID annotation`);
      expect(plan.changes).toContain(`tag ${CLUSTER_TAG}, ccm-service:${UID}`);
      expect(plan.status).toEqual({ ingress: [{ ip: w.only().ip }] });
    },
  ],
  [
    "adopt: a DOKS load balancer with the Service's name and this cluster's tag",
    async (w) => {
      doCcmLB(w, DEFAULT_NAME, [CLUSTER_TAG]);
      return {};
    },
    (plan, w) => {
      expect(plan.action).toBe("adopt");
      expect(plan.changes.slice(0, 3)).toEqual([
        `adopt load balancer ${w.only().id} found by name and this cluster's tag`,
        `record ${ID}=${w.only().id}`,
        `record ${A}type=REGIONAL`,
      ]);
    },
  ],
];

test.each(rows)("%s", async (_name, arrange, check) => {
  const w = await e.setUp();
  const annotations = await arrange(w);
  w.h.emulator.calls.reset();
  const plan = await w.lb.planLoadBalancer(ctx, "kubernetes", service(annotations), w.nodes);
  expect(w.h.emulator.calls.writes()).toEqual([]);
  check(plan, w);
});

test("a name collision with another cluster's load balancer is refused, as the sync would, with no write", async () => {
  const w = await e.setUp();
  doCcmLB(w, DEFAULT_NAME, ["k8s:other"]);
  w.h.emulator.calls.reset();
  const err = await rejection(() => w.lb.planLoadBalancer(ctx, "kubernetes", service(), w.nodes));
  expect(err.message).toContain("not this cluster's tag k8s:");
  expect(w.h.emulator.calls.writes()).toEqual([]);
  expect(w.warnings).toEqual([]);
});
