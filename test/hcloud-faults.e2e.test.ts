/**
 * End to end: under the API's faults — 429s, `locked` and 5xx, injected through the hcloud emulator's
 * control API (`PUT /_emulator/faults`) — the compiled `hcloud-cloud-controller-manager` creates, changes and deletes
 * several LoadBalancer Services and ends with exactly one load balancer per Service (never two at any moment seen),
 * made by exactly one successful create each, and none left once the Services are deleted.
 */
import { beforeAll, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { SERVICE_UID_LABEL } from "../providers/hcloud/api/load-balancers.ts";
import type { FaultConfig } from "../sandbox/hcloud/faults.ts";
import { hcloudManagerCommand, registerNode, useHcloudE2e } from "./support/hcloud.ts";
import { poll, spawnCollecting } from "./support/processes.ts";

const e2e = useHcloudE2e("ccm-hcloud-faults-");
const ns = { namespace: "default" };
const MINUTE = 60_000;
const names = ["f-1", "f-2", "f-3", "f-4"];
const uids = new Map<string, string>();
/** The most load balancers seen at once for one Service, sampled while the waits poll. */
let mostPerService = 0;

beforeAll(async () => {
  for (const n of ["n1", "n2"]) {
    e2e.world.addServer(n);
    await registerNode(e2e.client, n);
  }
}, MINUTE);

/** Through the emulator's control API, as an operator of the sandbox would. */
async function setFaults(faults: Partial<FaultConfig>): Promise<void> {
  const answer = await fetch(`${e2e.world.hcloud.controlUrl}/faults`, {
    method: "PUT",
    headers: { authorization: `Bearer ${e2e.world.hcloud.token}`, "content-type": "application/json" },
    body: JSON.stringify(faults),
  });
  if (answer.status !== 200) throw new Error(`PUT /_emulator/faults: ${answer.status} ${await answer.text()}`);
}

/**
 * 429s, then `locked`, then a 5xx on the first calls of each kind to load balancers (creates, actions, updates,
 * deletes), and a 5xx on a tenth of all calls at random.
 */
const stormy = (): Partial<FaultConfig> => ({
  errorRate: 0.1,
  failNext: (["GET", "POST", "PUT", "DELETE"] as const).flatMap((method) => [
    { method, pathPrefix: "/load_balancers", code: "rate_limit_exceeded" as const, count: 2 },
    { method, pathPrefix: "/load_balancers", code: "locked" as const, count: 2 },
    { method, pathPrefix: "/load_balancers", code: "server_error" as const, count: 1 },
  ]),
});

const lbs = () => [...e2e.world.hcloud.world.loadBalancers.values()];
const lbsOf = (name: string) => lbs().filter((l) => l.labels[SERVICE_UID_LABEL] === uids.get(name));
const stored = (name: string): Service | undefined => {
  try {
    return e2e.api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
/** Successful creates of load balancers, as the emulator logged them. */
const madeCount = () =>
  e2e.world.hcloud.calls
    .writes()
    .filter((w) => w.method === "POST" && w.path === "/v1/load_balancers" && w.status === 201).length;
const createCalls = () => e2e.world.hcloud.calls.count("POST /v1/load_balancers");

async function until(what: string, check: () => boolean, timeoutMs = 8 * MINUTE) {
  const sampled = () => {
    for (const n of names) mostPerService = Math.max(mostPerService, lbsOf(n).length);
    return check();
  };
  await poll(sampled, { timeoutMs, everyMs: 250, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${e2e.manager?.output().slice(-3000)}`);
  });
}

test(
  "created under 429s, locked and 5xx: one load balancer per Service, one successful create each",
  async () => {
    await setFaults(stormy());
    for (const name of names) {
      await e2e.client.create(
        Resources.services,
        {
          metadata: { name, namespace: "default" },
          spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
        } satisfies Service,
        ns,
      );
      uids.set(name, stored(name)!.metadata!.uid!);
    }
    e2e.manager = spawnCollecting(
      await hcloudManagerCommand(e2e.kubeconfig),
      e2e.world.env({ HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1", HCLOUD_NETWORK_ROUTES_ENABLED: "false" }),
    );
    const ready = (n: string) =>
      (stored(n)?.status?.loadBalancer?.ingress ?? []).length > 0 && lbsOf(n)[0]?.targets.length === 2;
    await until("every Service's ingress and both targets", () => names.every(ready));
    expect(names.map((n) => lbsOf(n).length)).toEqual(names.map(() => 1));
    expect(lbs()).toHaveLength(names.length);
    expect(madeCount()).toBe(names.length);
    // The first POST to /load_balancers is a create and is refused, so creates were retried, and not one doubled.
    expect(createCalls()).toBeGreaterThan(names.length);
  },
  10 * MINUTE,
);

test(
  "changed under the same faults: each Service's load balancer changes in place, none added",
  async () => {
    const before = names.map((n) => lbsOf(n)[0]?.id ?? -1);
    await setFaults(stormy());
    for (const name of names) {
      await e2e.client.patch(
        Resources.services,
        name,
        "merge",
        { metadata: { annotations: { "load-balancer.hetzner.cloud/algorithm-type": "least_connections" } } },
        ns,
      );
    }
    await until("every algorithm changed", () =>
      names.every((n) => lbsOf(n)[0]?.algorithm.type === "least_connections"),
    );
    expect(names.map((n) => lbsOf(n).map((l) => l.id))).toEqual(before.map((id) => [id]));
    expect(madeCount()).toBe(names.length);
  },
  10 * MINUTE,
);

test(
  "deleted under the same faults: no load balancer left, none made again",
  async () => {
    await setFaults(stormy());
    for (const name of names) await e2e.client.delete(Resources.services, name, ns);
    await until(
      "no load balancer and no Service left",
      () => lbs().length === 0 && names.every((n) => stored(n) === undefined),
    );
    expect(madeCount()).toBe(names.length);
  },
  10 * MINUTE,
);

test("the faults were met: 429, 423 and 5xx answers to load balancer calls; never two load balancers for a Service", async () => {
  await setFaults({});
  const statuses = new Set(
    e2e.world.hcloud.calls
      .writes()
      .filter((w) => w.path.startsWith("/v1/load_balancers"))
      .map((w) => w.status),
  );
  expect([429, 423, 500].filter((s) => statuses.has(s))).toEqual([429, 423, 500]);
  expect(mostPerService).toBe(1);
});
