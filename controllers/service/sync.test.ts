import { describe, expect, test } from "bun:test";
import { KubeApiError } from "../../kube/client-types.ts";
import type { LoadBalancerStatus } from "../../kube/objects.ts";
import { ImplementedElsewhereError, RetryError } from "../../providers/errors.ts";
import { syncService } from "./sync.ts";
import {
  autoscaler,
  cleanup,
  deleting,
  excludeLabel,
  finalizers,
  ingress,
  label,
  lbClass,
  names,
  node,
  nodeDeleting,
  ready,
  service,
  taint,
  type,
} from "./test-fixtures.ts";
import { harnessFor, runSync } from "./test-harness.ts";

const KEY = "default/web";
const FINALIZER_ADD = `{"metadata":{"finalizers":["${cleanup}"]}}`;
const FINALIZER_REMOVE = '{"metadata":{"finalizers":null}}';
const INGRESS = (ip: string) =>
  `{"status":{"loadBalancer":{"ingress":[{"ip":"${ip}","ports":[{"port":80,"protocol":"TCP"}]}]}}}`;
const INGRESS_CLEARED = '{"status":{"loadBalancer":{"ingress":null}}}';
const notFound = () => new KubeApiError('services "web" not found', { status: 404, reason: "NotFound" });

describe("syncService: ensure path", () => {
  test("a new LoadBalancer Service gets the finalizer first, a load balancer on the stable nodes, then its status", async () => {
    const { cloud, h } = harnessFor(
      [service("web")],
      [
        node("a"),
        node("b", ready(false)),
        node("c", taint(autoscaler)),
        node("d", label(excludeLabel, "true")),
        node("e", nodeDeleting()),
      ],
    );
    cloud.externalIP = "1.2.3.4";
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(h.reasons()).toEqual(["EnsuringLoadBalancer", "EnsuredLoadBalancer"]);
    expect(h.bodies()).toEqual([FINALIZER_ADD, INGRESS("1.2.3.4")]);
    expect(cloud.callNames()).toEqual(["create", "get-zone"]);
    expect(names(cloud.ensureCalls[0]?.hosts ?? [])).toEqual(["a", "b"]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([cleanup]);
    expect(h.live(KEY)?.status?.loadBalancer?.ingress?.[0]?.ip).toBe("1.2.3.4");
    expect(h.cache.has(KEY)).toBe(true);
    expect(names(h.cache.lastSyncedNodes(KEY))).toEqual(["a", "b"]);
  });

  test("a synced Service with unchanged status writes nothing", async () => {
    const svc = service("web", finalizers(cleanup), ingress({ ip: "1.2.3.4", ports: [{ port: 80, protocol: "TCP" }] }));
    const { cloud, h } = harnessFor([svc], [node("a")]);
    cloud.externalIP = "1.2.3.4";
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(h.bodies()).toEqual([]);
    expect(h.reasons()).toEqual(["EnsuringLoadBalancer", "EnsuredLoadBalancer"]);
  });

  test("with no stable node it warns UnAvailableLoadBalancer and still ensures", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a", taint(autoscaler))]);
    await runSync(h, KEY);
    expect(h.reasons()).toEqual(["EnsuringLoadBalancer", "UnAvailableLoadBalancer", "EnsuredLoadBalancer"]);
    expect(cloud.ensureCalls[0]?.hosts).toEqual([]);
  });

  test.each([
    ["a RetryError", new RetryError("still provisioning", 15_000), 15_000],
    ["a wrapped RetryError", new Error("api: busy", { cause: new RetryError("rate limited", 3_000) }), 3_000],
  ])("ensure failing with %s asks for a retry after its delay", async (_name, err, delayMs) => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.override("ensureLoadBalancer", async () => {
      throw err;
    });
    expect(await runSync(h, KEY)).toMatchObject({ kind: "retryAfter", delayMs });
    expect(h.state.events.at(-1)).toMatchObject({
      reason: "SyncLoadBalancerFailed",
      type: "Warning",
      message: `Error syncing load balancer: failed to ensure load balancer: ${err.message}`,
    });
    expect(h.bodies()).toEqual([FINALIZER_ADD]);
    expect(h.cache.has(KEY)).toBe(true);
  });

  test("ensure failing otherwise backs off", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.err = new Error("zone unavailable");
    expect(await runSync(h, KEY)).toMatchObject({ kind: "rateLimited" });
    expect(h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: failed to ensure load balancer: zone unavailable",
    );
  });

  test("ImplementedElsewhere from ensure is success: finalizer kept, no status, no Ensured event", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.override("ensureLoadBalancer", async () => {
      throw new ImplementedElsewhereError();
    });
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(h.reasons()).toEqual(["EnsuringLoadBalancer"]);
    expect(h.bodies()).toEqual([FINALIZER_ADD]);
    expect(h.cache.has(KEY)).toBe(true);
  });

  test("ImplementedElsewhere wrapped by the provider is an ordinary failure (identity check)", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.override("ensureLoadBalancer", async () => {
      throw new Error("wrapped", { cause: new ImplementedElsewhereError() });
    });
    expect(await runSync(h, KEY)).toMatchObject({ kind: "rateLimited" });
  });

  test("a missing status is an error", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.override("ensureLoadBalancer", async () => undefined as unknown as LoadBalancerStatus);
    const outcome = await runSync(h, KEY);
    expect(outcome).toMatchObject({ kind: "rateLimited" });
    expect(h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: service status returned by EnsureLoadBalancer is nil",
    );
  });

  test("a failed finalizer write stops before any cloud call", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    h.state.patchError = () => new Error("409 Conflict");
    await runSync(h, KEY);
    expect(cloud.callNames()).toEqual([]);
    expect(h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: failed to add load balancer cleanup finalizer: 409 Conflict",
    );
  });

  test("a node lister failure is reported as an ensure failure", async () => {
    const { cloud, h } = harnessFor([service("web", finalizers(cleanup))], []);
    const deps = {
      ...h.deps,
      listNodes: () => {
        throw new Error("cache not synced");
      },
    };
    await expect(syncService(deps, KEY)).rejects.toThrow("failed to ensure load balancer: cache not synced");
    expect(cloud.callNames()).toEqual([]);
  });

  test("a status write that finds the Service gone is ignored; other failures are reported", async () => {
    const svc = service("web", finalizers(cleanup));
    const gone = harnessFor([svc], [node("a")]);
    gone.h.state.patchError = () => notFound();
    expect(await runSync(gone.h, KEY)).toEqual({ kind: "success" });

    const broken = harnessFor([svc], [node("a")]);
    broken.h.state.patchError = () => new RetryError("throttled", 1000);
    const outcome = await runSync(broken.h, KEY);
    // The status step formats with %v upstream, so even a RetryError there backs off normally.
    expect(outcome).toMatchObject({ kind: "rateLimited" });
    expect(broken.h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: failed to update load balancer status: throttled",
    );
  });
});

describe("syncService: delete path", () => {
  const held = (...t: Parameters<typeof service>[1][]) =>
    service("web", finalizers(cleanup), ingress({ ip: "1.2.3.4" }), ...t);

  test("a deleted Service's load balancer goes before its finalizer, then the status is cleared", async () => {
    const { cloud, h } = harnessFor([held(deleting())], [node("a")]);
    cloud.exists = true;
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(h.reasons()).toEqual(["DeletingLoadBalancer", "DeletedLoadBalancer"]);
    expect(cloud.callNames()).toEqual(["delete"]);
    expect(h.bodies()).toEqual([FINALIZER_REMOVE, INGRESS_CLEARED]);
    expect(h.cache.has(KEY)).toBe(false);
  });

  test("when no load balancer exists it only removes the finalizer, and still says Deleted (upstream quirk)", async () => {
    const { cloud, h } = harnessFor([held(type("ClusterIP"))], []);
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual([]);
    expect(h.reasons()).toEqual(["DeletedLoadBalancer"]);
    expect(h.bodies()).toEqual([FINALIZER_REMOVE, INGRESS_CLEARED]);
  });

  test("a Service that gained a loadBalancerClass is cleaned up too", async () => {
    const { cloud, h } = harnessFor([held(lbClass("other"))], []);
    cloud.exists = true;
    await runSync(h, KEY);
    expect(cloud.callNames()).toEqual(["delete"]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([]);
  });

  test("a Service that never wanted a load balancer still asks the cloud (upstream quirk) and writes nothing", async () => {
    const { cloud, h } = harnessFor([service("web", type("ClusterIP"))], []);
    let asked = 0;
    cloud.override("getLoadBalancer", async () => {
      asked++;
      return undefined;
    });
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(asked).toBe(1);
    expect(h.reasons()).toEqual(["DeletedLoadBalancer"]);
    expect(h.bodies()).toEqual([]);
  });

  test("a failed existence check keeps the finalizer; its RetryError is hidden (%v upstream)", async () => {
    const { cloud, h } = harnessFor([held(deleting())], []);
    cloud.err = new RetryError("busy", 5000);
    expect(await runSync(h, KEY)).toMatchObject({ kind: "rateLimited" });
    expect(h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: failed to check if load balancer exists before cleanup: busy",
    );
    expect(h.bodies()).toEqual([]);
    expect(h.cache.has(KEY)).toBe(true);
  });

  test("ImplementedElsewhere from the delete is ignored on this path", async () => {
    const { cloud, h } = harnessFor([held(deleting())], []);
    cloud.exists = true;
    cloud.override("ensureLoadBalancerDeleted", async () => {
      throw new ImplementedElsewhereError();
    });
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(h.bodies()[0]).toBe(FINALIZER_REMOVE);
  });

  test("a failed delete keeps the finalizer so the load balancer is not leaked", async () => {
    const { cloud, h } = harnessFor([held(deleting())], []);
    cloud.exists = true;
    cloud.override("ensureLoadBalancerDeleted", async () => {
      throw new Error("in use");
    });
    await runSync(h, KEY);
    expect(h.state.events.at(-1)?.message).toBe("Error syncing load balancer: failed to delete load balancer: in use");
    expect(h.bodies()).toEqual([]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([cleanup]);
  });

  test("a failed finalizer removal is reported and the status is left alone", async () => {
    const { h } = harnessFor([held(deleting())], []);
    h.state.patchError = () => new Error("403 Forbidden");
    await runSync(h, KEY);
    expect(h.state.events.at(-1)?.message).toBe(
      "Error syncing load balancer: failed to remove load balancer cleanup finalizer: 403 Forbidden",
    );
    expect(h.bodies()).toEqual([FINALIZER_REMOVE]);
  });
});
