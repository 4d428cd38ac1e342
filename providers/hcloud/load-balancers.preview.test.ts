/**
 * `planLoadBalancer`: what `ensureLoadBalancer` would do, found with reads only. Every row checks that the cloud
 * got no write at all, then the action, the changes and the status the preview reports.
 */
import { afterEach, expect, test } from "bun:test";
import type { LoadBalancerPlan } from "../cloud.ts";
import { SERVICE_UID_LABEL } from "./api/load-balancers.ts";
import { A, ctx, DEFAULT_NAME, type LBWorld, service, startLB, UID } from "./lb/testing.ts";
import { type Emulators, startEmulators } from "./testing.ts";

let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

/** A load balancer with the default name and `labels`, no listener, no target. */
async function bare(w: LBWorld, labels: Record<string, string>): Promise<number> {
  const made = await w.h.call("POST", "/load_balancers", {
    name: DEFAULT_NAME,
    load_balancer_type: "lb11",
    location: "fsn1",
    labels,
  });
  return made.body.load_balancer.id;
}

const rows: readonly (readonly [
  string,
  (w: LBWorld) => Promise<Record<string, string>>,
  (plan: LoadBalancerPlan, w: LBWorld) => void,
])[] = [
  [
    "create: nothing found; the changes say what would be made",
    async () => ({}),
    (plan) =>
      expect(plan).toEqual({
        action: "create",
        name: DEFAULT_NAME,
        changes: ["create lb11 in fsn1 with ports 80→30080 and 3 target(s)"],
      }),
  ],
  [
    "none: this Service's load balancer is as it wants; the status is its addresses",
    async (w) => {
      await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
      return {};
    },
    (plan, w) =>
      expect(plan).toEqual({
        action: "none",
        name: DEFAULT_NAME,
        changes: [],
        status: { ingress: [{ ip: w.only().public_net.ipv4.ip }, { ip: w.only().public_net.ipv6.ip }] },
      }),
  ],
  [
    "update: an annotation changed; each write is named",
    async (w) => {
      await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
      return { [`${A}algorithm-type`]: "least_connections", [`${A}node-selector`]: "role=edge" };
    },
    (plan, w) => {
      expect(plan.action).toBe("update");
      expect(plan.changes).toEqual([
        "change_algorithm least_connections",
        `remove_target server ${w.ids[1]}`,
        `remove_target server ${w.ids[2]}`,
      ]);
    },
  ],
  [
    "adopt: one found by name without a label would be labelled and kept",
    async (w) => {
      await bare(w, {});
      return {};
    },
    (plan) => {
      expect(plan.action).toBe("adopt");
      expect(plan.changes[0]).toBe("update (labels)");
      expect(plan.changes).toContain("add_service 80");
    },
  ],
  [
    "a managed certificate to make comes first, and is not made",
    async () => ({
      [`${A}protocol`]: "https",
      [`${A}certificate-type`]: "managed",
      [`${A}http-managed-certificate-domains`]: "example.com",
    }),
    (plan, w) => {
      expect(plan.changes[0]).toBe(`create managed certificate ccm-managed-certificate-${UID} for example.com`);
      expect([...w.world.certificates.values()].filter((c) => c.type === "managed")).toEqual([]);
    },
  ],
];

test.each(rows)("%s", async (_name, arrange, check) => {
  e = startEmulators();
  const w = await startLB(e);
  const annotations = await arrange(w);
  w.h.emulator.calls.reset();
  const plan = await w.lb.planLoadBalancer(ctx, "k", service(annotations), w.nodes);
  expect(w.h.emulator.calls.writes()).toEqual([]);
  expect(w.warnings).toEqual([]);
  check(plan, w);
});

test("refuses as ensure would: another Service's load balancer by this name, an invalid annotation", async () => {
  e = startEmulators();
  const w = await startLB(e);
  await bare(w, { [SERVICE_UID_LABEL]: "someone-else" });
  w.h.emulator.calls.reset();
  await expect(w.lb.planLoadBalancer(ctx, "k", service(), w.nodes)).rejects.toThrow("belongs to another Service");
  await expect(w.lb.planLoadBalancer(ctx, "k", service({ [`${A}protocol`]: "udp" }), w.nodes)).rejects.toThrow(
    `${A}protocol="udp"`,
  );
  expect(w.h.emulator.calls.writes()).toEqual([]);
});
