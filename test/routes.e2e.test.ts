/**
 * End to end, routes: the compiled all-in-one runs the sandbox without controllers (its kubelets give
 * every node a pod CIDR), and a second compiled process runs the controllers with operator flags — first without
 * `--cluster-cidr` (the route controller declines, the others run), then with it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { poll, type RunningProcess } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

let sandbox: Sandbox;
let manager: RunningProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 3 });
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
});

const networkUnavailable = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "NetworkUnavailable");
const nodes = async () => (await sandbox.client.list<Node>(Resources.nodes)).items;
const output = () => manager?.output() ?? "";

describe("route controller, compiled, against the sandbox", () => {
  test("without --cluster-cidr the route controller declines in one line naming the way out; the others run", async () => {
    manager = await sandbox.startManager([], { clusterCIDR: "" });
    // The node controller works: every node loses the uninitialized taint.
    await poll(
      async () => (await nodes()).every((n) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized)),
      { timeoutMs: 60_000, message: `initialised nodes; manager said:\n${output()}` },
    );
    await poll(() => output().includes('started "service-lb-controller"'), {
      message: `the service controller started; manager said:\n${output()}`,
    });
    const lines = output()
      .split("\n")
      .filter((l) => l.includes("--cluster-cidr"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("node-route-controller");
    expect(lines[0]).toContain("--configure-cloud-routes=false");
    for (const name of ["cloud-node-controller", "cloud-node-lifecycle-controller", "service-lb-controller"]) {
      expect(output()).toContain(`started "${name}"`);
    }
    expect(output()).not.toContain('started "node-route-controller"');
    expect(await sandbox.cloud.routes()).toEqual([]);
    expect(manager.proc.exitCode).toBeNull();
    manager.proc.kill("SIGKILL");
    await manager.exited;
  });

  test("nodes with pod CIDRs get routes in the cloud and NetworkUnavailable=False (RouteCreated)", async () => {
    manager = await sandbox.startManager(["--controllers=route,cloud-node,cloud-node-lifecycle"]);
    await poll(async () => (await sandbox.cloud.routes()).length === 3, {
      timeoutMs: 30_000,
      message: `three routes; manager said:\n${output()}`,
    });
    const routes = await sandbox.cloud.routes();
    for (const node of await nodes()) {
      const cidr = node.spec?.podCIDR;
      expect(cidr).toBeDefined();
      const route = routes.find((r) => r.targetNode === node.metadata?.name);
      expect(route?.destinationCIDR).toBe(cidr as string);
    }
    await poll(async () => (await nodes()).every((n) => networkUnavailable(n)?.status === "False"), {
      message: `NetworkUnavailable=False on every node; manager said:\n${output()}`,
    });
    for (const node of await nodes()) {
      const condition = networkUnavailable(node);
      expect(condition?.reason).toBe("RouteCreated");
      expect(condition?.message).toBe("RouteController created a route");
    }
  });

  test("a removed node's route is deleted", async () => {
    const id = await sandbox.cloud.machineId("node-2");
    await sandbox.cloud.call("DELETE", `/v1/machines/${id}`);
    await poll(async () => (await sandbox.node("node-2")) === undefined, {
      timeoutMs: 30_000,
      message: `node-2 deleted by the lifecycle controller; manager said:\n${output()}`,
    });
    await poll(async () => !(await sandbox.cloud.routes()).some((r) => r.targetNode === "node-2"), {
      timeoutMs: 30_000,
      message: `node-2's route deleted; manager said:\n${output()}`,
    });
    expect((await sandbox.cloud.routes()).map((r) => r.targetNode).sort()).toEqual(["node-1", "node-3"]);
  });
});
