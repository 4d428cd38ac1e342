/**
 * Conformance interactions, part two: every patch type (JSON merge, JSON patch, strategic merge — on node taints,
 * conditions and addresses, and Service finalizers with the directives our service controller sends), the status
 * subresource both ways, deletion held by a finalizer, watches from a version, and 410 Gone after compaction
 * (last: it forgets the history the other interactions read).
 */
import { CM, configMap, type Interaction, type Obj } from "./interactions-basic.ts";

const NODES = "/api/v1/nodes";
const SVC = "/api/v1/namespaces/default/services";
const CLEANUP = "service.kubernetes.io/load-balancer-cleanup";
const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";

const node = (name: string) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, labels: { "kubernetes.io/hostname": name } },
  spec: { taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }] },
  status: {
    addresses: [{ type: "Hostname", address: name }],
    conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ready" }],
  },
});

const lbService = (name: string) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
});

export const WRITES: readonly Interaction[] = [
  {
    name: "ConfigMap: merge patch, JSON patch, strategic merge patch",
    async run(t, s) {
      await t.call(s("create"), "POST", CM, configMap("patched", { a: "1", b: "2" }, { app: "p" }));
      const path = `${CM}/patched`;
      await t.call(
        s("merge: set a label, drop a key"),
        "PATCH",
        path,
        { metadata: { labels: { tier: "y" } }, data: { a: null, c: "3" } },
        MERGE,
      );
      await t.call(
        s("json: add and remove"),
        "PATCH",
        path,
        [
          { op: "add", path: "/data/d", value: "4" },
          { op: "remove", path: "/data/b" },
        ],
        JSON_PATCH,
      );
      await t.call(
        s("json: a failing test op"),
        "PATCH",
        path,
        [{ op: "test", path: "/data/c", value: "nope" }],
        JSON_PATCH,
      );
      await t.call(s("json: remove a missing path"), "PATCH", path, [{ op: "remove", path: "/data/zzz" }], JSON_PATCH);
      await t.call(s("json: not a list"), "PATCH", path, { op: "add" }, JSON_PATCH);
      await t.call(s("strategic: add a key"), "PATCH", path, { data: { e: "5" } }, STRATEGIC);
      await t.call(s("merge: malformed body"), "PATCH", path, "{nope", MERGE);
      await t.call(s("merge: change the name"), "PATCH", path, { metadata: { name: "other" } }, MERGE);
    },
  },
  {
    name: "Node: strategic merge on taints, conditions and addresses; status subresource both ways",
    async run(t, s) {
      await t.call(s("create with status"), "POST", NODES, node("sm-1"));
      const path = `${NODES}/sm-1`;
      await t.call(
        s("strategic: taints"),
        "PATCH",
        path,
        { spec: { taints: [{ key: "b", effect: "NoExecute" }] } },
        STRATEGIC,
      );
      await t.call(
        s("strategic: labels and a provider ID"),
        "PATCH",
        path,
        { metadata: { labels: { zone: "z1" } }, spec: { providerID: "sandbox://m-1" } },
        STRATEGIC,
      );
      const status = `${path}/status`;
      await t.call(
        s("strategic status: add a condition"),
        "PATCH",
        status,
        {
          status: {
            conditions: [{ type: "NetworkUnavailable", status: "False", reason: "RouteCreated", message: "route" }],
          },
        },
        STRATEGIC,
      );
      await t.call(
        s("strategic status: change a condition"),
        "PATCH",
        status,
        { status: { conditions: [{ type: "Ready", status: "Unknown", reason: "NodeStatusUnknown" }] } },
        STRATEGIC,
      );
      await t.call(
        s("strategic status: delete a condition"),
        "PATCH",
        status,
        { status: { conditions: [{ type: "NetworkUnavailable", $patch: "delete" }] } },
        STRATEGIC,
      );
      await t.call(
        s("strategic status: add an address"),
        "PATCH",
        status,
        { status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } },
        STRATEGIC,
      );
      await t.call(
        s("merge status: replace addresses"),
        "PATCH",
        status,
        {
          status: {
            addresses: [
              { type: "InternalIP", address: "10.0.0.2" },
              { type: "Hostname", address: "sm-1" },
            ],
          },
        },
        MERGE,
      );
      await t.call(
        s("status patch changing the spec: spec kept"),
        "PATCH",
        status,
        { spec: { unschedulable: true }, status: { phase: "Running" } },
        MERGE,
      );
      await t.call(
        s("main patch changing the status: status kept"),
        "PATCH",
        path,
        { spec: { unschedulable: true }, status: { addresses: [] } },
        MERGE,
      );
      await t.call(s("get"), "GET", path);
    },
  },
  {
    name: "Service: finalizers, status subresource, deletion held by a finalizer",
    async run(t, s) {
      const created = (await t.call(s("create"), "POST", SVC, lbService("lb"))) as Obj;
      const path = `${SVC}/lb`;
      await t.call(
        s("strategic status: first finalizer"),
        "PATCH",
        `${path}/status`,
        { metadata: { finalizers: [CLEANUP] } },
        STRATEGIC,
      );
      await t.call(
        s("strategic: a second finalizer"),
        "PATCH",
        path,
        { metadata: { finalizers: ["example.com/x"], "$setElementOrder/finalizers": [CLEANUP, "example.com/x"] } },
        STRATEGIC,
      );
      const current = (await t.call(s("get"), "GET", path)) as Obj;
      const withStatus = {
        ...current,
        spec: { ...(current.spec as object), type: "ClusterIP" },
        status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }] } },
      };
      await t.call(s("PUT status changing the spec: spec kept"), "PUT", `${path}/status`, withStatus);
      const again = (await t.call(s("get again"), "GET", path)) as Obj;
      await t.call(s("PUT main changing the status: status kept"), "PUT", path, {
        ...again,
        status: { loadBalancer: {} },
      });
      await t.call(s("update at the create's version: 409"), "PUT", path, {
        ...again,
        metadata: { ...again.metadata, resourceVersion: created.metadata?.resourceVersion },
      });
      await t.call(
        s("strategic: remove a finalizer"),
        "PATCH",
        path,
        {
          metadata: {
            "$deleteFromPrimitiveList/finalizers": ["example.com/x"],
            "$setElementOrder/finalizers": [CLEANUP],
          },
        },
        STRATEGIC,
      );
      await t.call(s("delete: held by the finalizer"), "DELETE", path);
      await t.call(s("get while deleting"), "GET", path);
      await t.call(
        s("add a finalizer while deleting"),
        "PATCH",
        path,
        { metadata: { finalizers: [CLEANUP, "example.com/late"] } },
        MERGE,
      );
      await t.call(
        s("strategic status: drop the last finalizer"),
        "PATCH",
        `${path}/status`,
        { metadata: { finalizers: null } },
        STRATEGIC,
      );
      await t.call(s("get after the finalizer went"), "GET", path);
    },
  },
  {
    name: "watch from a version",
    async run(t, s) {
      const created = (await t.call(s("create a node"), "POST", NODES, node("w-1"))) as Obj;
      const from = created.metadata?.resourceVersion ?? "";
      await t.call(s("label it"), "PATCH", `${NODES}/w-1`, { metadata: { labels: { step: "1" } } }, MERGE);
      await t.call(s("label it again"), "PATCH", `${NODES}/w-1`, { metadata: { labels: { step: "2" } } }, MERGE);
      await t.call(s("delete it"), "DELETE", `${NODES}/w-1`);
      await t.watch(
        s("nodes from the create's version"),
        `${NODES}?resourceVersion=${from}&fieldSelector=metadata.name%3Dw-1`,
        3,
      );
      await t.watch(
        s("nodes by label from the create's version"),
        `${NODES}?resourceVersion=${from}&labelSelector=step%3D2`,
        2,
      );
      const cm = (await t.call(s("create a ConfigMap"), "POST", CM, configMap("watched", { a: "1" }))) as Obj;
      await t.call(s("change it"), "PATCH", `${CM}/watched`, { data: { a: "2" } }, MERGE);
      await t.watch(
        s("ConfigMaps from its create's version"),
        `${CM}?resourceVersion=${cm.metadata?.resourceVersion}`,
        1,
      );
    },
  },
  {
    name: "410 Gone after compaction",
    async run(t, s) {
      const created = (await t.call(s("create"), "POST", CM, configMap("compacted", { a: "1" }))) as Obj;
      const old = created.metadata?.resourceVersion ?? "";
      // Two changes: a watch from `old` then starts at a revision the compaction removed (from the one after it,
      // etcd would still send the change, without the previous state the server needs: a 500, not a 410).
      await t.call(s("change it"), "PATCH", `${CM}/compacted`, { data: { a: "2" } }, MERGE);
      await t.call(s("change it again"), "PATCH", `${CM}/compacted`, { data: { a: "2b" } }, MERGE);
      await t.compact();
      await t.watch(s("watch from before the compaction"), `${CM}?resourceVersion=${old}`, 1);
      await t.call(
        s("exact list from before the compaction"),
        "GET",
        `${CM}?resourceVersion=${old}&resourceVersionMatch=Exact`,
      );
      const after = (await t.call(
        s("change it after the compaction"),
        "PATCH",
        `${CM}/compacted`,
        { data: { a: "3" } },
        MERGE,
      )) as Obj;
      await t.call(s("and again"), "PATCH", `${CM}/compacted`, { data: { a: "4" } }, MERGE);
      await t.watch(
        s("watch from after the compaction"),
        `${CM}?resourceVersion=${after.metadata?.resourceVersion}`,
        1,
      );
    },
  },
];
