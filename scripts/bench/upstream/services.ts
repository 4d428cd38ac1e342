/**
 * The load-balancer scenario: 3 Nodes, then for each flag set `services` LoadBalancer Services waiting when a
 * manager with only the service controller is spawned; the clock runs from the spawn to every Service having an
 * ingress. The Services are then deleted while it still runs, and the next side starts once their finalizers are gone.
 */
import { Resources } from "../../../kube/client-types.ts";
import type { Service } from "../../../kube/objects.ts";
import { hasIngress, loadBalancerService } from "../fixtures.ts";
import { countsSince } from "./flow-control.ts";
import { FLAG_SETS, type Harness, log, residentMiB, type Side, until } from "./harness.ts";
import type { Report } from "./report.ts";

/** Rows per flag set: the time, APF's rejections and the 429 answers, the peak and RssAnon once all had an ingress. */
export async function benchServices(h: Harness, services: number, report: Report): Promise<void> {
  await h.clearNodes();
  await h.registerNodes(3);
  for (const [label, extra] of FLAG_SETS) {
    const got: Partial<Record<Side, LoadBalanced>> = {};
    for (const side of h.sides) {
      const r = await loadBalancers(h, side, services, [...extra]);
      got[side] = r;
      log(
        `${services} Services, ${label}, ${side}: ${r.s.toFixed(2)} s, ${r.rejected} APF rejections, ${r.throttled} × 429, ` +
          `peak RSS ${r.peak.toFixed(1)} MiB, RssAnon ${r.anon.toFixed(1)} MiB`,
      );
    }
    report.put(
      `${services} LoadBalancer Services, ${label}`,
      got.upstream?.s ?? Number.NaN,
      got.ours?.s ?? Number.NaN,
      "s",
    );
    const put = (figure: string, pick: (r: LoadBalanced) => number, unit: "" | "MiB") =>
      report.put(
        `${figure}, ${services} Services, ${label}`,
        got.upstream ? pick(got.upstream) : Number.NaN,
        got.ours ? pick(got.ours) : Number.NaN,
        unit,
      );
    put("APF rejections (apiserver_flowcontrol_rejected_requests_total)", (r) => r.rejected, "");
    put('429 answers (apiserver_request_terminations_total{code="429"})', (r) => r.throttled, "");
    put("peak RSS (VmHWM)", (r) => r.peak, "MiB");
    put("RssAnon once all had an ingress", (r) => r.anon, "MiB");
  }
}

interface LoadBalanced {
  readonly s: number;
  readonly rejected: number;
  readonly throttled: number;
  readonly peak: number;
  readonly anon: number;
}

/** Seconds from spawn to every Service with an ingress; then the Services are deleted while it still runs. */
async function loadBalancers(h: Harness, side: Side, n: number, extra: string[]): Promise<LoadBalanced> {
  const namespace = "default";
  for (let i = 1; i <= n; i++) await h.client.create(Resources.services, loadBalancerService(i), { namespace });
  const before = await h.flowControl();
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
    const { peak, anon } = residentMiB(ccm.proc.pid);
    const apf = countsSince(before, await h.flowControl());
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
    return { s, rejected: apf.rejected, throttled: apf.terminated429, peak, anon };
  } finally {
    await ccm.stop();
  }
}
