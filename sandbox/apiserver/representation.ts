/**
 * Content negotiation and rendering of objects, lists and watch events: plain JSON, `Table` (what `kubectl get`
 * asks for) and `PartialObjectMetadata` (what metadata informers ask for). Answers are never protobuf: a client
 * that accepts only protobuf gets 406, as from a server without it; kubectl also accepts JSON. (Protobuf request
 * bodies are decoded: protobuf/decode.ts.)
 */
import type { Obj } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { notAcceptable } from "./status-errors.ts";
import type { ObjectStore } from "./store.ts";
import type { ListPage } from "./store-reads.ts";
import { type IncludeObject, toTable } from "./table.ts";
import { apiVersionOf } from "./write-prep.ts";

export type Format =
  | { readonly kind: "json" }
  | { readonly kind: "table"; readonly version: string; readonly includeObject: IncludeObject }
  | { readonly kind: "partial" };

const JSON_FORMAT: Format = { kind: "json" };

/** The first acceptable representation in `accept` (client order; q-values are not used by Kubernetes clients). */
export const negotiate = (accept: string | null, includeObject: string | null): Format => {
  if (!accept?.trim()) return JSON_FORMAT;
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((s) => s.trim());
    if (!["application/json", "*/*", "application/*"].includes(type.toLowerCase())) continue;
    const p = Object.fromEntries(params.map((kv) => kv.split("=").map((s) => s.trim()) as [string, string]));
    if (!p.as) return JSON_FORMAT;
    if (p.g !== "meta.k8s.io") continue;
    if (p.as === "Table" && (p.v === "v1" || p.v === "v1beta1")) {
      const include: IncludeObject =
        includeObject === "None" || includeObject === "Object" ? includeObject : "Metadata";
      return { kind: "table", version: p.v, includeObject: include };
    }
    if ((p.as === "PartialObjectMetadata" || p.as === "PartialObjectMetadataList") && p.v === "v1") {
      return { kind: "partial" };
    }
  }
  throw notAcceptable();
};

export const contentTypeOf = (f: Format, list: boolean): string => {
  if (f.kind === "table") return `application/json;as=Table;v=${f.version};g=meta.k8s.io`;
  if (f.kind === "partial") {
    return `application/json;as=${list ? "PartialObjectMetadataList" : "PartialObjectMetadata"};v=v1;g=meta.k8s.io`;
  }
  return "application/json";
};

const partial = (obj: Obj): Obj => ({
  kind: "PartialObjectMetadata",
  apiVersion: "meta.k8s.io/v1",
  metadata: obj.metadata ?? {},
});

export class Renderer {
  readonly #store: ObjectStore;
  readonly #now: () => number;

  constructor(store: ObjectStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  object(def: ResourceDef, obj: Obj, f: Format, headers = true): string {
    if (f.kind === "table") {
      const version = obj.metadata?.resourceVersion;
      return JSON.stringify(
        toTable(def, [obj], {
          now: this.#now(),
          includeObject: f.includeObject,
          headers,
          ...(typeof version === "string" ? { resourceVersion: version } : {}),
        }),
      );
    }
    if (f.kind === "partial") return JSON.stringify(partial(obj));
    return this.#store.json(obj);
  }

  list(def: ResourceDef, page: ListPage, f: Format): string {
    const cont = page.continue === undefined ? {} : { continue: page.continue };
    if (f.kind === "table") {
      const opts = {
        now: this.#now(),
        includeObject: f.includeObject,
        headers: true,
        resourceVersion: page.resourceVersion,
      };
      return JSON.stringify(toTable(def, page.items, { ...opts, ...cont }));
    }
    const metadata = JSON.stringify({ resourceVersion: page.resourceVersion, ...cont });
    if (f.kind === "partial") {
      const items = page.items.map((o) => JSON.stringify(partial(o))).join(",");
      return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${metadata},"items":[${items}]}`;
    }
    const items = page.items.map((o) => this.#store.json(o)).join(",");
    return `{"kind":"${def.kind}List","apiVersion":"${apiVersionOf(def)}","metadata":${metadata},"items":[${items}]}`;
  }

  /** One watch event line (newline-terminated). BOOKMARK and ERROR objects pass through as they are. */
  watchEvent(def: ResourceDef, type: string, obj: Obj, f: Format, headers: boolean): string {
    let body: string;
    if (type === "ERROR") body = JSON.stringify(obj);
    else if (type === "BOOKMARK") body = JSON.stringify(f.kind === "partial" ? partial(obj) : obj);
    else body = this.object(def, obj, f, headers);
    return `{"type":"${type}","object":${body}}\n`;
  }
}
