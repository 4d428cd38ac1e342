/**
 * Conformance interactions, part one: create, read, update with and without a resource version (conflicts),
 * delete, label and field selectors, and the error bodies of 400, 404, 405, 409, 415 and 422 answers. Each step
 * is recorded on its server under the same name; the check compares the two records (conformance.real.ts).
 */
import type { Target } from "./targets.ts";

export interface Interaction {
  readonly name: string;
  run(t: Target, step: (name: string) => string): Promise<void>;
}

export const CM = "/api/v1/namespaces/default/configmaps";
export type Obj = { metadata?: { resourceVersion?: string; [k: string]: unknown }; [k: string]: unknown };

export const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

export const BASIC: readonly Interaction[] = [
  {
    name: "ConfigMap: create, read, update, conflicts, delete",
    async run(t, s) {
      const created = (await t.call(s("create"), "POST", CM, configMap("alpha", { a: "1" }, { app: "a" }))) as Obj;
      await t.call(s("get"), "GET", `${CM}/alpha`);
      await t.call(s("create again: 409 AlreadyExists"), "POST", CM, configMap("alpha", { a: "1" }));
      const stale = created.metadata?.resourceVersion;
      const body = (data: Record<string, string>, resourceVersion?: string) => ({
        ...configMap("alpha", data),
        metadata: { name: "alpha", ...(resourceVersion ? { resourceVersion } : {}) },
      });
      await t.call(s("update at the current version"), "PUT", `${CM}/alpha`, body({ a: "2" }, stale));
      await t.call(s("update at a stale version: 409 Conflict"), "PUT", `${CM}/alpha`, body({ a: "3" }, stale));
      await t.call(s("update without a version (unconditional)"), "PUT", `${CM}/alpha`, body({ a: "4" }));
      await t.call(s("update with another name in the body: 400"), "PUT", `${CM}/alpha`, configMap("beta", {}));
      await t.call(s("update of a missing object: 404"), "PUT", `${CM}/missing`, configMap("missing", {}));
      await t.call(s("delete"), "DELETE", `${CM}/alpha`);
      await t.call(s("delete again: 404"), "DELETE", `${CM}/alpha`);
      await t.call(s("get after delete: 404"), "GET", `${CM}/alpha`);
    },
  },
  {
    name: "validation: 422 Invalid with field causes",
    async run(t, s) {
      await t.call(s("invalid name"), "POST", CM, configMap("Bad_Name", {}));
      await t.call(s("invalid data key"), "POST", CM, configMap("bad-key", { "bad key!": "x" }));
      await t.call(s("no name"), "POST", CM, { apiVersion: "v1", kind: "ConfigMap", metadata: {} });
      await t.call(s("invalid label value"), "POST", CM, configMap("bad-label", {}, { app: "-x-" }));
      await t.call(s("node with an invalid taint effect"), "POST", "/api/v1/nodes", {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: "bad-taint" },
        spec: { taints: [{ key: "k", effect: "Sometimes" }] },
      });
      await t.call(s("service without ports"), "POST", "/api/v1/namespaces/default/services", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "no-ports" },
        spec: { type: "ClusterIP" },
      });
    },
  },
  {
    name: "request errors: 400, 404, 405, 415",
    async run(t, s) {
      await t.call(s("malformed JSON: 400"), "POST", CM, "{not json");
      await t.call(s("kind of another resource: 400"), "POST", CM, { apiVersion: "v1", kind: "Secret", metadata: {} });
      await t.call(s("unknown namespace: 404"), "POST", "/api/v1/namespaces/nope/configmaps", configMap("x", {}));
      await t.call(s("unknown resource: 404"), "GET", "/api/v1/namespaces/default/widgets");
      await t.call(s("unknown object: 404"), "GET", `${CM}/nothing-here`);
      await t.call(s("PUT on a collection: 405"), "PUT", CM, configMap("x", {}));
      await t.call(s("patch with text/plain: 415"), "PATCH", `${CM}/x`, "{}", "text/plain");
      await t.call(s("patch of a missing object: 404"), "PATCH", `${CM}/missing`, {}, "application/merge-patch+json");
    },
  },
  {
    name: "label and field selectors",
    async run(t, s) {
      const labelled: [string, Record<string, string> | undefined][] = [
        ["s-1", { app: "web", tier: "front" }],
        ["s-2", { app: "web", tier: "back" }],
        ["s-3", { app: "db" }],
        ["s-4", undefined],
      ];
      for (const [name, labels] of labelled) await t.call(s(`create ${name}`), "POST", CM, configMap(name, {}, labels));
      for (const selector of [
        "labelSelector=app%3Dweb",
        "labelSelector=app!%3Dweb",
        "labelSelector=app%20in%20(web,db)",
        "labelSelector=app%20notin%20(web)",
        "labelSelector=tier",
        "labelSelector=!tier",
        "labelSelector=app%3Dweb,tier%3Dback",
        "fieldSelector=metadata.name%3Ds-2",
        "fieldSelector=metadata.name!%3Ds-2&labelSelector=app",
        "fieldSelector=metadata.namespace%3Ddefault&labelSelector=app%3Ddb",
        "limit=2&labelSelector=app",
      ]) {
        await t.call(s(`list ${decodeURIComponent(selector)}`), "GET", `${CM}?${selector}`);
      }
      await t.call(s("malformed label selector: 400"), "GET", `${CM}?labelSelector=app%3D(`);
      await t.call(s("unknown field in a field selector: 400"), "GET", `${CM}?fieldSelector=data.x%3D1`);
      await t.call(s("nodes by spec.unschedulable"), "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue");
    },
  },
];
