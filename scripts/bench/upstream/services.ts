/**
 * The load-balancer scenario: 3 Nodes, then for each flag set `services` LoadBalancer Services waiting when a
 * manager with only the service controller is spawned; the clock runs from the spawn to every Service having an
 * ingress. The Services are then deleted while it still runs, and the next side starts once their finalizers are gone.
 */
import { Resources } from "../../../kube/client-types.ts";
import type { Service } from "../../../kube/objects.ts";
import { hasIngress, loadBalancerService } from "../fixtures.ts";
import { FLAG_SETS, type Harness, log, type Side, until } from "./harness.ts";
import type { Report } from "./report.ts";

/** Two rows per flag set: the time, and the 429 answers (0 for a side not run). */
export async function benchServices(h: Harness, services: number, report: Report): Promise<void> {
  await h.clearNodes();
  await h.registerNodes(3);
  for (const [label, extra] of FLAG_SETS) {
    const got: Partial<Record<Side, { s: number; throttled: number }>> = {};
    for (const side of h.sides) {
      got[side] = await loadBalancers(h, side, services, [...extra]);
      log(`${services} Services, ${label}, ${side}: ${got[side]?.s.toFixed(2)} s, ${got[side]?.throttled} × 429`);
    }
    report.put(
      `${services} LoadBalancer Services, ${label}`,
      got.upstream?.s ?? Number.NaN,
      got.ours?.s ?? Number.NaN,
      "s",
    );
    report.put(
      `429 answers during those Services, ${label}`,
      got.upstream?.throttled ?? 0,
      got.ours?.throttled ?? 0,
      "",
    );
  }
}

/** Seconds from spawn to every Service with an ingress; then the Services are deleted while it still runs. */
async function loadBalancers(
  h: Harness,
  side: Side,
  n: number,
  extra: string[],
): Promise<{ s: number; throttled: number }> {
  const namespace = "default";
  for (let i = 1; i <= n; i++) await h.client.create(Resources.services, loadBalancerService(i), { namespace });
  const before = await h.throttledCount();
  const t0 = performance.now();
  const ccm = h.spawn(side, ["--controllers=service", ...extra]);
  try {
    await until(
      `${n} Services with ingress from ${side}`,
      async () => {
        if (ccm.proc.exitCode !== null) throw new Error(`${side} exited:\n${ccm.output().slice(-2000)}`);
        const all = (await h.client.list<Service>(Resources.services, { namespace })).items;
        return all.filter((x) => x.spec?.type === "LoadBalancer" && hasIngress(x)).length === n;
      },
      600_000,
      100,
    );
    const s = (performance.now() - t0) / 1000;
    const throttled = (await h.throttledCount()) - before;
    for (let i = 1; i <= n; i++) await h.client.delete(Resources.services, `lb-${i}`, { namespace });
    await until(
      "the Services gone (finalizers removed)",
      async () =>
        (await h.client.list<Service>(Resources.services, { namespace })).items.every(
          (x) => !x.metadata?.name?.startsWith("lb-"),
        ),
      600_000,
      200,
    );
    return { s, throttled };
  } finally {
    await ccm.stop();
  }
}
