/**
 * hccm's load balancer type warnings against the emulator: one set per sync (ensure and update alike), about the
 * type the load balancer has, its deprecation read from the load balancer's own answer: no call is added.
 */
import { expect, test } from "bun:test";
import { A, ctx, emulatorsPerTest, type LBWorld, service } from "./lb/testing.ts";

const { setUp } = emulatorsPerTest();
const DAY = 86_400_000;

/** Phases `name` out in the emulator, its end of sale `days` from the emulator's clock (negative: past). */
async function phaseOut(w: LBWorld, name: string, days: number) {
  const at = (ms: number) => new Date(ms).toISOString();
  const now = w.h.clock.now();
  const deprecation = { announced: at(now - 30 * DAY), unavailable_after: at(now + days * DAY) };
  const set = await w.h.call("PUT", "/_emulator/settings", { loadBalancerTypeDeprecations: { [name]: deprecation } });
  if (set.status !== 200) throw new Error(`phasing ${name} out: ${JSON.stringify(set.body)}`);
  return at(now + days * DAY).slice(0, 10);
}

const rows: {
  name: string;
  env?: Record<string, string>;
  annotations?: Record<string, string>;
  phaseOut?: { type: string; days: number };
  /** Per sync; `{day}` stands for the end of sale. */
  want: string[];
}[] = [
  {
    name: "no type annotation and no HCLOUD_LOAD_BALANCERS_TYPE: LoadBalancerTypeUnconfigured",
    want: ["LoadBalancerTypeUnconfigured"],
  },
  { name: "HCLOUD_LOAD_BALANCERS_TYPE set: no warning", env: { HCLOUD_LOAD_BALANCERS_TYPE: "lb11" }, want: [] },
  { name: "the type annotation set: no warning", annotations: { [`${A}type`]: "lb21" }, want: [] },
  {
    name: "a deprecated type on sale: LoadBalancerTypeDeprecated with the last day",
    annotations: { [`${A}type`]: "lb11" },
    phaseOut: { type: "lb11", days: 10 },
    want: ['LoadBalancerTypeDeprecated "lb11" deprecated until {day}'],
  },
  {
    name: "a type past its end of sale: LoadBalancerTypeDeprecated saying so; the sync still succeeds",
    env: { HCLOUD_LOAD_BALANCERS_TYPE: "lb11" },
    phaseOut: { type: "lb11", days: -1 },
    want: ['LoadBalancerTypeDeprecated "lb11" no longer (since {day})'],
  },
  {
    name: "unconfigured, and the load balancer's own type deprecated: both",
    phaseOut: { type: "lb11", days: 10 },
    want: ["LoadBalancerTypeUnconfigured", 'LoadBalancerTypeDeprecated "lb11" deprecated until {day}'],
  },
  {
    name: "another type deprecated than the one chosen: no warning",
    annotations: { [`${A}type`]: "lb21" },
    phaseOut: { type: "lb11", days: 10 },
    want: [],
  },
];

/** A warning line shortened to what a row names: the reason, the type, and the words that tell the case. */
const short = (line: string) => {
  const [reason = "", message = ""] = line.split(": ", 2) as [string, string];
  if (reason !== "LoadBalancerTypeDeprecated") return reason;
  const type = message.match(/"[^"]+"/)?.[0];
  const until = message.match(/can be ordered until (\S+) only/)?.[1];
  const since = message.match(/no longer available to order \(since (\S+)\)/)?.[1];
  return until ? `${reason} ${type} deprecated until ${until}` : `${reason} ${type} no longer (since ${since})`;
};

test.each(rows)("$name, once per sync, at no extra call", async (row) => {
  const w = await setUp({ ...(row.env && { env: row.env }) });
  const day = row.phaseOut ? await phaseOut(w, row.phaseOut.type, row.phaseOut.days) : "";
  const want = row.want.map((x) => x.replace("{day}", day));
  const svc = service(row.annotations);

  await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
  expect(w.typeWarnings.map(short)).toEqual(want);
  expect(w.warnings).toEqual([]);

  w.typeWarnings.length = 0;
  w.h.emulator.calls.reset();
  await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes);
  await w.lb.updateLoadBalancer(ctx, "k", svc, w.nodes);
  expect(w.typeWarnings.map(short)).toEqual([...want, ...want]);
  // The converged resync's cost is unchanged: one label lookup each, no type list.
  expect(w.h.emulator.calls.snapshot()).toMatchObject({
    total: 2,
    byRoute: { "GET /v1/load_balancers": { calls: 2 } },
  });

  w.typeWarnings.length = 0;
  await w.lb.planLoadBalancer(ctx, "k", svc, w.nodes);
  expect(w.typeWarnings).toEqual([]);
});

test("a type changed by the annotation is judged after the change: the new type's deprecation, not the old one's", async () => {
  const w = await setUp();
  await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
  const day = await phaseOut(w, "lb21", 10);
  w.typeWarnings.length = 0;
  await w.lb.ensureLoadBalancer(ctx, "k", service({ [`${A}type`]: "lb21" }), w.nodes);
  expect(w.only().load_balancer_type.name).toBe("lb21");
  expect(w.typeWarnings.map(short)).toEqual([`LoadBalancerTypeDeprecated "lb21" deprecated until ${day}`]);
});
