/**
 * The `KubeClient` on Bun `fetch`: URL building, whole lists across pages, explicit patch content types, the
 * pacing (the token-bucket rate limiter, or the API server's flow control: pacing.ts), typed errors. See client-types.ts for the contract of each operation.
 */
import type {
  KubeClient,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from "./client-types.ts";
import { isGone } from "./client-types.ts";
import type { Now, Sleep } from "./clock.ts";
import { createRequester, type HttpRequest, type Query } from "./http.ts";
import type { KubeClientMetrics } from "./metrics.ts";
import type { KubeObject } from "./objects.ts";
import { type Pacing, tokenBucketPacer } from "./pacing.ts";
import type { Transport } from "./transport.ts";
import { watchStream } from "./watch.ts";
import type { WriteFence } from "./write-fence.ts";

/** The written object's metadata, or the whole object from a server that cannot convert (client-go's metadata client). */
const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

export interface KubeClientOptions {
  /**
   * Sustained requests per second (upstream `--kube-api-qps`); 0 or less disables client-side limiting. Ignored when
   * `pacing` is given (it holds the qps and burst).
   */
  readonly qps: number;
  /** Requests allowed at once after a quiet period (upstream `--kube-api-burst`). */
  readonly burst: number;
  readonly userAgent: string;
  /** Client-side timeout of a non-watch request, body included (default 60 s; 0 disables). */
  readonly requestTimeoutMs?: number;
  readonly now?: Now;
  readonly sleep?: Sleep;
  /** Every create, update, patch and delete asks it first (write-fence.ts); absent ⇒ writes are not fenced. */
  readonly fence?: WriteFence | undefined;
  /** client-go's `rest_client_*` metrics (metrics.ts: `kubeClientMetrics(registry)`); absent ⇒ not recorded. */
  readonly metrics?: KubeClientMetrics | undefined;
  /** The manager's shared pacing (pacing.ts): this client gets its own pacer of it. Absent ⇒ a plain token bucket. */
  readonly pacing?: Pacing | undefined;
}

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  strategic: "application/strategic-merge-patch+json",
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
};

/** `v1` for the core group, `group/version` otherwise. */
export const apiVersionOf = (ref: ResourceRef): string => (ref.group ? `${ref.group}/${ref.version}` : ref.version);

/**
 * The path of a collection (no `name`) or of one object. A namespace is used only for namespaced kinds; without
 * one, a namespaced collection means all namespaces.
 */
export function resourcePath(
  ref: ResourceRef,
  at: { readonly namespace?: string | undefined; readonly name?: string; readonly subresource?: string } = {},
): string {
  let p = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (ref.namespaced && at.namespace) p += `/namespaces/${encodeURIComponent(at.namespace)}`;
  p += `/${ref.plural}`;
  if (at.name !== undefined) p += `/${encodeURIComponent(at.name)}`;
  if (at.subresource) p += `/${at.subresource}`;
  return p;
}

function objectPath(ref: ResourceRef, name: string | undefined, namespace: string | undefined, sub?: string): string {
  if (!name) throw new TypeError(`${ref.kind}: a name is required`);
  if (ref.namespaced && !namespace) throw new TypeError(`${ref.kind} ${name}: a namespace is required`);
  return resourcePath(ref, { namespace, name, ...(sub && { subresource: sub }) });
}

interface ListPage<T> {
  items?: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

export function createKubeClient(transport: Transport, opts: KubeClientOptions): KubeClient {
  const now = opts.now ?? Date.now;
  const pacer =
    opts.pacing?.pacer() ??
    tokenBucketPacer({ qps: opts.qps, burst: opts.burst, now, ...(opts.sleep && { sleep: opts.sleep }) });
  const http = createRequester(transport, {
    userAgent: opts.userAgent,
    pacer,
    now,
    requestTimeoutMs: opts.requestTimeoutMs ?? 60_000,
    fence: opts.fence,
    metrics: opts.metrics,
  });
  const call = async <T>(req: HttpRequest): Promise<T> => http.json<T>(req, await http.send(req));
  // List items and some watch servers omit kind/apiVersion; fill them so cached objects are self-describing.
  const describe = <T extends KubeObject>(ref: ResourceRef, obj: T): T => {
    obj.apiVersion ??= apiVersionOf(ref);
    obj.kind ??= ref.kind;
    return obj;
  };

  return {
    async get<T extends KubeObject>(
      ref: ResourceRef,
      name: string,
      o: WriteOptions & { resourceVersion?: string } = {},
    ) {
      const path = objectPath(ref, name, o.namespace, o.subresource);
      return describe(
        ref,
        await call<T>({ method: "GET", path, query: { resourceVersion: o.resourceVersion }, signal: o.signal }),
      );
    },

    async list<T extends KubeObject>(ref: ResourceRef, o: ListOptions = {}): Promise<ListResult<T>> {
      const path = resourcePath(ref, { namespace: o.namespace });
      const selectors = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector };
      let limit = o.limit;
      let items: T[] = [];
      let resourceVersion = "";
      let cont: string | undefined;
      for (;;) {
        // A continued page must not name a resourceVersion: the token pins the snapshot.
        const query: Query = cont
          ? { ...selectors, limit, continue: cont }
          : { ...selectors, limit, resourceVersion: o.resourceVersion };
        let page: ListPage<T>;
        try {
          page = await call<ListPage<T>>({ method: "GET", path, query, signal: o.signal });
        } catch (err) {
          if (!(cont && isGone(err))) throw err;
          // The continue token expired mid-list: start over with one unpaginated list.
          items = [];
          cont = undefined;
          limit = undefined;
          continue;
        }
        if (!cont) resourceVersion = page.metadata?.resourceVersion ?? "";
        const keep = o.transform ?? ((item: KubeObject) => item);
        for (const item of page.items ?? []) items.push(keep(describe(ref, item)) as T);
        cont = page.metadata?.continue || undefined;
        if (!cont) return { items, resourceVersion };
      }
    },

    watch<T extends KubeObject>(ref: ResourceRef, o: WatchOptions): AsyncIterable<WatchEvent<T>> {
      const path = resourcePath(ref, { namespace: o.namespace });
      const query: Query = {
        watch: "true",
        resourceVersion: o.resourceVersion,
        allowWatchBookmarks: o.allowWatchBookmarks ? "true" : undefined,
        timeoutSeconds: o.timeoutSeconds,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
      };
      return {
        async *[Symbol.asyncIterator]() {
          const stream = watchStream<T>(http, path, query, { idleTimeoutMs: o.idleTimeoutMs, signal: o.signal });
          for await (const ev of stream) {
            if (ev.type !== "BOOKMARK") describe(ref, ev.object);
            yield ev;
          }
        },
      };
    },

    async create<T extends KubeObject>(ref: ResourceRef, body: T, o: WriteOptions = {}) {
      const namespace = o.namespace ?? body.metadata?.namespace;
      if (ref.namespaced && !namespace) throw new TypeError(`${ref.kind}: a namespace is required to create`);
      const path = resourcePath(ref, { namespace });
      return describe(ref, await call<T>({ method: "POST", path, body: describe(ref, { ...body }), signal: o.signal }));
    },

    async update<T extends KubeObject>(ref: ResourceRef, body: T, o: WriteOptions = {}) {
      const path = objectPath(ref, body.metadata?.name, o.namespace ?? body.metadata?.namespace, o.subresource);
      return describe(ref, await call<T>({ method: "PUT", path, body: describe(ref, { ...body }), signal: o.signal }));
    },

    async patch<T extends KubeObject>(
      ref: ResourceRef,
      name: string,
      type: PatchType,
      body: unknown,
      o: PatchOptions = {},
    ) {
      const contentType = PATCH_CONTENT_TYPES[type];
      if (!contentType) throw new TypeError(`unknown patch type ${String(type)}`);
      const path = objectPath(ref, name, o.namespace, o.subresource);
      const accept = o.metadataOnly ? METADATA_ONLY : undefined;
      const answer = await call<T>({ method: "PATCH", path, body, contentType, accept, signal: o.signal });
      return o.metadataOnly ? answer : describe(ref, answer);
    },

    async delete(ref: ResourceRef, name: string, o: WriteOptions & { uid?: string; resourceVersion?: string } = {}) {
      const path = objectPath(ref, name, o.namespace, o.subresource);
      const preconditions = {
        ...(o.uid !== undefined && { uid: o.uid }),
        ...(o.resourceVersion !== undefined && { resourceVersion: o.resourceVersion }),
      };
      const body =
        Object.keys(preconditions).length > 0 ? { apiVersion: "v1", kind: "DeleteOptions", preconditions } : undefined;
      await call<unknown>({ method: "DELETE", path, body, signal: o.signal });
    },

    async raw(method: string, path: string, body?: unknown, o: { signal?: AbortSignal } = {}) {
      const req: HttpRequest = { method, path, body, signal: o.signal };
      const res = await http.send(req);
      const text = await http.text(req, res);
      const json = (res.headers.get("content-type") ?? "").includes("json") && text !== "";
      return json ? JSON.parse(text) : text;
    },
  };
}
