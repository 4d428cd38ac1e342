/**
 * Uniqueness under parallel ensure calls (`--concurrent-service-syncs` above 1) and across restarts: every test
 * ends by checking that no address is held twice and that what the provider holds is exactly what the live
 * Services record (no duplicate, no leak).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { testProviderRuntime } from "../runtime.ts";
import { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
import { parseMetalConfig } from "./config.ts";
import { metalProvider } from "./provider.ts";
import { service } from "./testing.ts";

const config = "loadBalancer:\n  global: { addresses: [10.0.0.0/22, 10.1.0.0/30] }\n";
const cluster = "kubernetes";
const ctx = { signal: new AbortController().signal };
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

async function start(client: EmulatorKubeClient) {
  const provider = metalProvider(parseMetalConfig(config, "test"));
  const term = new AbortController();
  stops.push(() => term.abort());
  const { logger, logs } = captureLogger();
  await provider.initialize(testProviderRuntime(client, term.signal, logger));
  return { provider, lb: provider.loadBalancer!, term, logs };
}

/** A client whose Service writes finish in a random order, so parallel calls interleave. */
function slowClient(): EmulatorKubeClient {
  const client = new EmulatorKubeClient();
  client.react({ method: "patch", resource: "services" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
    return undefined;
  });
  return client;
}

const create = (client: EmulatorKubeClient, names: string[]): Service[] =>
  client.seed(Resources.services, ...names.map((n) => service(n, { namespace: `ns-${n.length % 3}` })));
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const live = (client: EmulatorKubeClient) => client.all<Service>(Resources.services);

/** Runs `fn` over `items` with at most `limit` at a time, like the service controller's workers. */
async function parallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item).catch((err) => errors.push(err));
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return errors;
}

/** No address recorded twice, and the provider holds exactly what the live Services record. */
function expectConsistent(client: EmulatorKubeClient, book: ReturnType<typeof metalProvider>["book"]): void {
  const recorded = new Map<string, string>();
  for (const svc of live(client)) {
    const ips = svc.metadata?.annotations?.[MetalAnnotations.allocatedIPs];
    if (!ips) continue;
    const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    for (const ip of ips.split(",")) {
      expect({ ip, holders: [recorded.get(ip), key] }).toEqual({ ip, holders: [undefined, key] });
      recorded.set(ip, key);
    }
  }
  const held = new Map(book.allocations().flatMap((a) => a.ips.map((ip) => [ip, a.holder.key] as const)));
  expect(held).toEqual(recorded);
}

describe("metal allocations stay unique", () => {
  test("200 Services ensured 8 at a time get 200 different addresses", async () => {
    const client = slowClient();
    const { provider, lb } = await start(client);
    const services = create(client, names("svc", 200));
    const errors = await parallel(services, 8, (svc) => lb.ensureLoadBalancer(ctx, cluster, svc, []));
    expect(errors).toEqual([]);
    expect(provider.book.size).toBe(200);
    expectConsistent(client, provider.book);
  });

  test("all at once, with repeated and concurrent calls for the same Services, still unique", async () => {
    const client = slowClient();
    const { provider, lb } = await start(client);
    const services = create(client, names("svc", 100));
    const calls = [...services, ...services.slice(0, 30)].map((svc) => lb.ensureLoadBalancer(ctx, cluster, svc, []));
    const statuses = await Promise.all(calls);
    expect(new Set(statuses.slice(0, 100).map((s) => s.ingress?.[0]?.ip)).size).toBe(100);
    expect(statuses.slice(100)).toEqual(statuses.slice(0, 30));
    expectConsistent(client, provider.book);
  });

  test("an exhausted pool refuses the rest without a duplicate", async () => {
    const client = slowClient();
    const { provider, lb } = await start(client);
    const services = create(client, names("svc", 1030));
    const errors = await parallel(services, 8, (svc) => lb.ensureLoadBalancer(ctx, cluster, svc, []));
    // 10.0.0.0/22 without network and broadcast, plus 10.1.0.0/30's two hosts.
    expect(provider.book.size).toBe(1022 + 2);
    expect(errors).toHaveLength(6);
    expect((errors[0] as Error).message).toContain("none of its 1024 IPv4 addresses is free");
    expectConsistent(client, provider.book);
  });

  test("restarts rebuild from the Services: nothing reused, nothing lost, deletes release", async () => {
    const client = slowClient();
    const first = await start(client);
    const batch1 = create(client, names("one", 120));
    await parallel(batch1, 8, (svc) => first.lb.ensureLoadBalancer(ctx, cluster, svc, []));
    const before = new Map(first.provider.book.allocations().map((a) => [a.holder.key, a.ips]));
    first.term.abort();

    const second = await start(client);
    expect(new Map(second.provider.book.allocations().map((a) => [a.holder.key, a.ips]))).toEqual(before);
    expect(second.logs.some((l) => l.message.includes("120 allocations restored"))).toBe(true);
    const doomed = live(client).filter((_, i) => i % 2 === 0);
    await parallel(doomed, 8, async (svc) => {
      await second.lb.ensureLoadBalancerDeleted(ctx, cluster, svc);
      await client.delete(Resources.services, svc.metadata!.name!, { namespace: svc.metadata!.namespace! });
    });
    const batch2 = create(client, names("two", 100));
    // The term ends in the middle of the second batch: some calls fail, none may leave a stray hold.
    let done = 0;
    await parallel(batch2, 8, async (svc) => {
      if (++done === 50) second.term.abort();
      await second.lb.ensureLoadBalancer(ctx, cluster, svc, []);
    });

    const third = await start(client);
    expectConsistent(client, third.provider.book);
    await parallel(batch2, 8, (svc) =>
      third.lb.ensureLoadBalancer(
        ctx,
        cluster,
        client.peek<Service>(Resources.services, svc.metadata!.name!, svc.metadata!.namespace)!,
        [],
      ),
    );
    expect(third.provider.book.size).toBe(60 + 100);
    expectConsistent(client, third.provider.book);
    for (const svc of live(client).filter((s) => s.metadata?.name?.startsWith("one-"))) {
      const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      expect(third.provider.book.allocationOf(key)?.ips).toEqual(before.get(key));
    }
  });

  test("a record written after the rebuild (an earlier term's last write) is kept, unless someone took the address", async () => {
    const client = new EmulatorKubeClient();
    const { provider, lb, logs } = await start(client);
    const [late, other, taken] = create(client, ["late", "other", "taken"]);
    /** The earlier term's write, landed in the API: the record and its kube-vip echo, as the provider writes them. */
    const stamp = (svc: Service, ip: string): Promise<Service> => {
      const annotations = {
        [MetalAnnotations.allocatedIPs]: ip,
        [MetalAnnotations.allocatedFor]: svc.metadata!.uid!,
        [KubeVipAnnotations.loadBalancerIPs]: ip,
        [MetalAnnotations.kubeVipEcho]: ip,
      };
      const namespace = svc.metadata!.namespace!;
      return client.patch<Service>(
        Resources.services,
        svc.metadata!.name!,
        "merge",
        { metadata: { annotations } },
        {
          namespace,
        },
      );
    };
    expect((await lb.ensureLoadBalancer(ctx, cluster, await stamp(late!, "10.0.0.77"), [])).ingress).toEqual([
      { ip: "10.0.0.77" },
    ]);
    expect((await lb.ensureLoadBalancer(ctx, cluster, other!, [])).ingress).toEqual([{ ip: "10.0.0.1" }]);
    // The echo of a record someone else's address took is no request: the Service moves, as the docs promise.
    expect((await lb.ensureLoadBalancer(ctx, cluster, await stamp(taken!, "10.0.0.1"), [])).ingress).toEqual([
      { ip: "10.0.0.2" },
    ]);
    expect(logs.some((l) => l.message.includes("records 10.0.0.1 but some are held by others; re-allocating"))).toBe(
      true,
    );
    expectConsistent(client, provider.book);
  });
});
