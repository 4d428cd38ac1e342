/**
 * Under the API's faults (429, `locked`, 5xx, answers lost after the API acted) the syncs end with exactly one load
 * balancer: creation is never repeated blindly, and a repeated action's "already so" counts as done.
 */
import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { TOKEN } from "../../sandbox/hcloud/testing.ts";
import { rejection } from "../testing.ts";
import { createHcloudTransport } from "./api/client.ts";
import { A, ctx, emulatorsPerTest, service, startLB } from "./lb/testing.ts";

const emulators = emulatorsPerTest();
const { setUp } = emulators;

describe("faults: exactly one load balancer, none leaked", () => {
  const faults = [
    ["429 on every first call of a kind", "rate_limit_exceeded"],
    ["locked", "locked"],
    ["5xx", "server_error"],
  ] as const;

  test.each(faults)("%s", async (_name, code) => {
    const w = await setUp({ network: true });
    const prefixes = ["/load_balancers", "/networks", "/certificates"];
    const methods = ["GET", "POST", "PUT"] as const;
    w.h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: prefixes.flatMap((pathPrefix) => methods.map((method) => ({ method, pathPrefix, code, count: 1 }))),
      failActions: [],
    });
    // The service controller calls again after a failure; a few rounds must converge on one load balancer.
    let status: unknown;
    for (let round = 0; round < 6 && status === undefined; round++) {
      status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes).catch(() => undefined);
    }
    expect(status).toBeDefined();
    expect(w.world.loadBalancers.size).toBe(1);
    expect(w.only().targets).toHaveLength(3);
  });

  test("a 5xx on a fifth of all calls, at random: the syncs that succeed leave one load balancer", async () => {
    const w = await setUp({ network: true });
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0.2, failNext: [], failActions: [] });
    let succeeded = 0;
    for (let round = 0; round < 10; round++) {
      const svc = service(round % 2 === 0 ? {} : { [`${A}algorithm-type`]: "least_connections" });
      if (
        await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes).then(
          () => true,
          () => false,
        )
      )
        succeeded++;
    }
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [], failActions: [] });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(succeeded).toBeGreaterThan(0);
    expect(w.world.loadBalancers.size).toBe(1);
    expect(w.only().targets).toHaveLength(3);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(w.world.loadBalancers.size).toBe(0);
  });

  /** The emulators, and the load balancers' transport losing the first answer to a POST whose path ends so. */
  async function losingFirst(suffix: string, o: { network?: boolean } = {}) {
    const e = emulators.start();
    let lose = 1;
    const losing: typeof fetch = Object.assign(
      async (input: Request | string | URL, init?: RequestInit) => {
        const answer = await fetch(input, init);
        const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        if (lose > 0 && init?.method === "POST" && url.endsWith(suffix)) {
          lose--;
          return new Response("bad gateway", { status: 502 });
        }
        return answer;
      },
      { preconnect: fetch.preconnect },
    );
    const transport = createHcloudTransport({
      token: TOKEN,
      endpoint: e.h.emulator.endpoint,
      metrics: new Registry(),
      rateLimit: { qps: 0, burst: 1 },
      now: e.h.clock.now,
      sleep: e.h.clock.sleep,
      random: () => 0.5,
      fetch: losing,
    });
    return startLB(e, { transport, network: o.network ?? false });
  }

  test("a create whose answer is lost (after the API made it) leaves one load balancer, found by its label", async () => {
    const w = await losingFirst("/load_balancers");
    const first = await rejection(() => w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes));
    expect(first.message).toContain("502");
    expect(w.world.loadBalancers.size).toBe(1);
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(w.world.loadBalancers.size).toBe(1);
    expect(w.only().targets).toHaveLength(3);
  });

  const actions = [
    ["add_service", {}, false],
    ["add_target", {}, false],
    ["attach_to_network", { [`${A}private-ipv4`]: "10.0.1.77" }, true],
  ] as const;

  test.each(actions)(
    "an action whose answer is lost (%s) is sent again and its 'already so' counts as done",
    async (command, annotations, network) => {
      const w = await losingFirst(`/actions/${command}`, { network });
      await w.lb.ensureLoadBalancer(ctx, "k", service(annotations), w.nodes);
      const made = w.only();
      expect(made.services).toHaveLength(1);
      expect(made.targets).toHaveLength(3);
      if (network) expect(made.private_net).toEqual([{ network: w.net, ip: "10.0.1.77" }]);
    },
  );
});
