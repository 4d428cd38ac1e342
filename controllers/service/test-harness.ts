/**
 * A harness for `sync.ts` tests: the fake cloud, an in-memory Service store standing in for the lister and the
 * API (it applies the controller's patches the way the API server would for the two fields they touch), and
 * recorders for events and metrics.
 */
import { createConsola } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import type { LoadBalancerClasses } from "../../providers/cloud.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { asCached } from "../runtime/testing/cached.ts";
import { ServiceCache } from "./cache.ts";
import type { ServicePatch } from "./patch.ts";
import { classifySyncResult, serviceKey, type WorkerOutcome } from "./plan.ts";
import { type ServiceSyncDeps, syncService } from "./sync.ts";

type Json = ServicePatch[string];

/** Applies our strategic-merge subset: finalizers (merge list of strings) and status ingress (replace). */
export function applyPatch(svc: Service, patch: ServicePatch): Service {
  const out: Service = structuredClone(svc);
  const meta = patch.metadata as Record<string, Json> | undefined;
  if (meta) {
    let list = [...(out.metadata?.finalizers ?? [])];
    const removed = (meta["$deleteFromPrimitiveList/finalizers"] as string[] | undefined) ?? [];
    list = list.filter((f) => !removed.includes(f));
    if (meta.finalizers === null) list = [];
    else if (Array.isArray(meta.finalizers)) list = [...list, ...(meta.finalizers as string[])];
    const order = meta["$setElementOrder/finalizers"] as string[] | undefined;
    if (order) list = order.filter((f) => list.includes(f));
    out.metadata = { ...out.metadata, finalizers: list };
  }
  const status = patch.status as { loadBalancer?: { ingress?: Json } } | undefined;
  if (status?.loadBalancer && "ingress" in status.loadBalancer) {
    const ingress = status.loadBalancer.ingress;
    out.status = { ...out.status, loadBalancer: ingress === null ? {} : { ingress: ingress as never } };
  }
  return out;
}

export interface RecordedEvent {
  readonly key: string;
  readonly uid: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

export function serviceHarness(
  cloud: FakeCloud,
  init: { services?: Service[]; nodes?: Node[]; classes?: LoadBalancerClasses } = {},
) {
  const store = new Map<string, Service>();
  for (const s of init.services ?? []) store.set(serviceKey(s), s);
  const state = {
    nodes: init.nodes ?? [],
    patches: [] as { key: string; body: string }[],
    events: [] as RecordedEvent[],
    patchError: undefined as ((patch: ServicePatch) => Error | undefined) | undefined,
    metrics: { loadBalancerSync: 0, nodeSyncError: 0, updateHostLatency: 0, nodeSyncLatency: 0 },
  };
  const cache = new ServiceCache();
  const deps: ServiceSyncDeps = {
    loadBalancer: init.classes ? { ...cloud.loadBalancer!, classes: init.classes } : cloud.loadBalancer!,
    clusterName: "kubernetes",
    signal: new AbortController().signal,
    logger: createConsola({ level: -999 }),
    cache,
    getService: (ns, name) => asCached(Resources.services, store.get(ns ? `${ns}/${name}` : name)),
    listNodes: () => state.nodes.map((n) => asCached(Resources.nodes, n)),
    patchService: async (svc, patch) => {
      const key = serviceKey(svc);
      state.patches.push({ key, body: JSON.stringify(patch) });
      const err = state.patchError?.(patch);
      if (err) throw err;
      const live = store.get(key);
      if (live) store.set(key, applyPatch(live, patch));
    },
    recordEvent: (svc, e) => state.events.push({ key: serviceKey(svc), uid: svc.metadata?.uid ?? "", ...e }),
    now: () => 0,
    metrics: {
      loadBalancerSync: () => state.metrics.loadBalancerSync++,
      nodeSyncError: () => state.metrics.nodeSyncError++,
      updateHostLatency: () => state.metrics.updateHostLatency++,
      nodeSyncLatency: () => state.metrics.nodeSyncLatency++,
    },
  };
  return {
    deps,
    cache,
    store,
    state,
    reasons: () => state.events.map((e) => e.reason),
    bodies: () => state.patches.map((p) => p.body),
    put: (svc: Service) => store.set(serviceKey(svc), svc),
    remove: (key: string) => store.delete(key),
    live: (key: string) => store.get(key),
    reset: () => {
      state.patches.length = 0;
      state.events.length = 0;
      cloud.clearCalls();
    },
  };
}

export type ServiceHarness = ReturnType<typeof serviceHarness>;

/** A fresh fake cloud and harness over these Services and nodes; `classes` as the provider declares them. */
export function harnessFor(
  services: Service[],
  nodes: Node[],
  classes?: LoadBalancerClasses,
): { cloud: FakeCloud; h: ServiceHarness } {
  const cloud = new FakeCloud();
  return { cloud, h: serviceHarness(cloud, { services, nodes, ...(classes && { classes }) }) };
}

/** Runs one `syncService` and reads its result as the worker would. */
export async function runSync(h: ServiceHarness, key: string): Promise<WorkerOutcome> {
  try {
    await syncService(h.deps, key);
    return classifySyncResult(undefined);
  } catch (err) {
    return classifySyncResult(err);
  }
}
