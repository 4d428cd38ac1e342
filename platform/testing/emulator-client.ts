/**
 * A `KubeClient` for unit tests over the sandbox's API emulator, in process (no HTTP): the emulator's object store
 * (sandbox/apiserver/store.ts) decides every answer — validation, defaults, optimistic concurrency, the status
 * subresource, finalizers, strategic merge by merge keys, selectors, watch replay and 410 Expired — exactly as the
 * sandbox and the end-to-end tests see it, so unit tests check the controllers against the faithful fake.
 *
 * What it adds for tests, like client-go's fake clientset: every request is recorded (`requests`, `writes()`), and
 * reactors (`react`, `fail`) can answer or fail any request before the emulator does. TokenReview and
 * SubjectAccessReview creates answer "not authenticated" / "not allowed" unless a reactor says otherwise (the
 * emulator's HTTP layer answers them from its own tokens, which a unit test does not have). Request signals are not
 * observed (a reactor can model a hanging request by returning a promise that never settles).
 */
import {
  KubeApiError,
  type KubeClient,
  type ListOptions,
  type ListResult,
  type PatchType,
  type ResourceRef,
  Resources,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "../../kube/client-types.ts";
import type { Now } from "../../kube/clock.ts";
import type { KubeObject } from "../../kube/objects.ts";
import type { Obj } from "../../sandbox/apiserver/json.ts";
import { ApiError } from "../../sandbox/apiserver/status-errors.ts";
import { ObjectStore } from "../../sandbox/apiserver/store.ts";
import { listObjects, watchObjects } from "../../sandbox/apiserver/store-reads.ts";

export type RequestMethod = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "raw";

export interface RecordedRequest {
  readonly method: RequestMethod;
  /** API group (`""` for core); `""` for raw requests. */
  readonly group: string;
  /** Plural resource name (`nodes`); `""` for raw requests. */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly patchType: PatchType | undefined;
  /** A copy of the request body (create/update/patch/raw). */
  readonly body: unknown;
  /** Raw requests: the HTTP method and path. */
  readonly httpMethod: string | undefined;
  readonly path: string | undefined;
}

export type RequestMatch = Partial<
  Pick<RecordedRequest, "method" | "group" | "resource" | "namespace" | "name" | "subresource" | "path">
>;

/** Returns the answer, throws to fail the request, or returns `undefined` to fall through to the emulator. */
export type Reactor = (request: RecordedRequest) => unknown;

export interface EmulatorKubeClientOptions {
  /** Clock for creation and deletion timestamps. */
  readonly now?: Now;
  /** How many changes each collection keeps for watch replay; older resourceVersions get 410. */
  readonly historyLimit?: number;
}

const WRITES: ReadonlySet<RequestMethod> = new Set(["create", "update", "patch", "delete"]);
const REVIEW_GROUPS = new Set(["authentication.k8s.io", "authorization.k8s.io"]);

export const matches = (request: RecordedRequest, match: RequestMatch): boolean =>
  Object.entries(match).every(([k, v]) => v === undefined || request[k as keyof RecordedRequest] === v);

/** The emulator's error as the HTTP client would have raised it from the same Status. */
function asKubeError(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const retryAfterSeconds = err.details?.retryAfterSeconds;
  const retryAfterMs = retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000;
  return new KubeApiError(err.message, { status: err.code, reason: err.reason, retryAfterMs }, { cause: err });
}

function answered<T>(run: () => Obj | T): T {
  try {
    return structuredClone(run()) as T;
  } catch (err) {
    throw asKubeError(err);
  }
}

export class EmulatorKubeClient implements KubeClient {
  readonly requests: RecordedRequest[] = [];
  readonly #store: ObjectStore;
  readonly #reactors: { match: RequestMatch; fn: Reactor; remaining: number }[] = [];
  readonly #open = new Map<string, number>();
  /** The uid the next stored object gets: a seeded object keeps its own, as the test arranged it. */
  #seedUid: string | undefined;

  constructor(options: EmulatorKubeClientOptions = {}) {
    this.#store = new ObjectStore({
      now: options.now ?? Date.now,
      compactionWindow: options.historyLimit ?? 10_000,
      uid: () => {
        const uid = this.#seedUid ?? crypto.randomUUID();
        this.#seedUid = undefined;
        return uid;
      },
    });
  }

  // ---- test helpers ----

  /**
   * Stores objects as if created (ADDED events included) without recording requests or running reactors; an object
   * keeps its `metadata.uid` when it has one, and a namespace it names is created first when missing, as a test's
   * arrangement would.
   */
  seed<T extends KubeObject>(ref: ResourceRef, ...objects: T[]): T[] {
    return objects.map((o) => {
      const namespace = ref.namespaced ? (o.metadata?.namespace ?? "default") : undefined;
      if (namespace && this.peek(Resources.namespaces, namespace) === undefined) {
        answered(() => this.#store.create(Resources.namespaces, { metadata: { name: namespace } }, {}));
      }
      this.#seedUid = o.metadata?.uid;
      try {
        return answered<T>(() => this.#store.create(ref, structuredClone(o) as Obj, {}));
      } finally {
        this.#seedUid = undefined;
      }
    });
  }

  /** A copy of the stored object, without recording a request. */
  peek<T extends KubeObject>(ref: ResourceRef, name: string, namespace?: string): T | undefined {
    try {
      return structuredClone(this.#store.get(ref, name, { namespace: ref.namespaced ? namespace : undefined })) as T;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw asKubeError(err);
    }
  }

  /** Copies of every stored object of a resource, without recording a request. */
  all<T extends KubeObject>(ref: ResourceRef): T[] {
    return answered<T[]>(() => listObjects(this.#store, ref).items as T[]);
  }

  /** Recorded requests that match (all of them without a filter). */
  requestsMatching(match: RequestMatch = {}): RecordedRequest[] {
    return this.requests.filter((r) => matches(r, match));
  }

  /** Recorded create/update/patch/delete requests that match. */
  writes(match: RequestMatch = {}): RecordedRequest[] {
    return this.requests.filter((r) => WRITES.has(r.method) && matches(r, match));
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Adds a reactor (newest first); `times` limits how often it fires. Returns a function that removes it. */
  react(match: RequestMatch, fn: Reactor, { times = Number.POSITIVE_INFINITY }: { times?: number } = {}): () => void {
    const entry = { match, fn, remaining: times };
    this.#reactors.unshift(entry);
    return () => {
      const i = this.#reactors.indexOf(entry);
      if (i >= 0) this.#reactors.splice(i, 1);
    };
  }

  /** Fails matching requests with `error` (usually a `KubeApiError`). */
  fail(match: RequestMatch, error: unknown, options?: { times?: number }): () => void {
    const thrower = () => {
      throw error;
    };
    return this.react(match, thrower, options);
  }

  /** The latest resourceVersion handed out. */
  get resourceVersion(): string {
    return String(this.#store.resourceVersion);
  }

  /** Ends every open watch as if the server closed the connection. */
  closeWatches(): void {
    this.#store.hub.endAll({ reason: "dropped" });
  }

  /** Forgets watch history: a watch from any older resourceVersion now gets a 410 Expired ERROR event. */
  compactHistory(): void {
    this.#store.compact();
  }

  /** Sends a BOOKMARK at the current resourceVersion to watches that asked for bookmarks. */
  bookmark(): void {
    this.#store.hub.bookmark(this.#store.resourceVersion);
  }

  /** Open watches, optionally of one resource. */
  watchCount(ref?: ResourceRef): number {
    if (ref) return this.#open.get(`${ref.group}/${ref.plural}`) ?? 0;
    return [...this.#open.values()].reduce((a, b) => a + b, 0);
  }

  // ---- KubeClient ----

  async get<T extends KubeObject>(ref: ResourceRef, name: string, opts?: WriteOptions): Promise<T> {
    const request = this.#record("get", ref, { namespace: opts?.namespace, name, subresource: opts?.subresource });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    return answered<T>(() => this.#store.get(ref, name, { namespace: request.namespace }));
  }

  async list<T extends KubeObject>(ref: ResourceRef, opts: ListOptions = {}): Promise<ListResult<T>> {
    const request = this.#record("list", ref, { namespace: opts.namespace });
    const answer = await this.#react(request);
    const keep = (items: readonly KubeObject[]) => (opts.transform ? items.map(opts.transform) : items) as T[];
    if (answer !== undefined) {
      const listed = answer as ListResult<T>;
      return { ...listed, items: keep(listed.items) };
    }
    const { items, resourceVersion } = answered(() =>
      listObjects(this.#store, ref, {
        namespace: ref.namespaced ? opts.namespace : undefined,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      }),
    );
    return { items: keep(items), resourceVersion };
  }

  watch<T extends KubeObject>(ref: ResourceRef, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const request = this.#record("watch", ref, { namespace: opts.namespace });
    const client = this;
    const key = `${ref.group}/${ref.plural}`;
    return {
      async *[Symbol.asyncIterator]() {
        await client.#react(request);
        const buffer: WatchEvent<KubeObject>[] = [];
        let closed = false;
        let wake: (() => void) | undefined;
        const push = (event: WatchEvent<KubeObject>) => {
          buffer.push(event);
          wake?.();
        };
        const close = () => {
          closed = true;
          wake?.();
        };
        let stop: () => void = () => {};
        try {
          stop = watchObjects(
            client.#store,
            ref,
            {
              namespace: ref.namespaced ? opts.namespace : undefined,
              labelSelector: opts.labelSelector,
              fieldSelector: opts.fieldSelector,
              resourceVersion: opts.resourceVersion,
              allowWatchBookmarks: opts.allowWatchBookmarks,
            },
            {
              onEvent: (type, object) => push({ type, object: structuredClone(object) as KubeObject }),
              onEnd: (end) => {
                if (end.reason === "expired") push({ type: "ERROR", object: end.status as KubeObject });
                close();
              },
            },
          );
        } catch (err) {
          // As the server does: a watch from a compacted version is answered, then ended, with a 410 Status.
          if (err instanceof ApiError && err.code === 410) {
            yield { type: "ERROR", object: err.toStatus() } as unknown as WatchEvent<T>;
            return;
          }
          throw asKubeError(err);
        }
        const onAbort = () => close();
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        client.#open.set(key, (client.#open.get(key) ?? 0) + 1);
        try {
          for (;;) {
            const next = buffer.shift();
            if (next) {
              yield next as WatchEvent<T>;
              continue;
            }
            if (closed || opts.signal?.aborted) return;
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        } finally {
          stop();
          client.#open.set(key, (client.#open.get(key) ?? 1) - 1);
          opts.signal?.removeEventListener("abort", onAbort);
        }
      },
    };
  }

  async create<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T> {
    const namespace = opts?.namespace ?? body.metadata?.namespace;
    const request = this.#record("create", ref, { namespace, name: body.metadata?.name, body });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    if (REVIEW_GROUPS.has(ref.group)) {
      const status = ref.group === "authentication.k8s.io" ? { authenticated: false } : { allowed: false };
      return { ...structuredClone(body), status } as T;
    }
    return answered<T>(() => this.#store.create(ref, structuredClone(body) as Obj, { namespace: opts?.namespace }));
  }

  async update<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T> {
    const namespace = opts?.namespace ?? body.metadata?.namespace;
    const name = body.metadata?.name ?? "";
    const request = this.#record("update", ref, { namespace, name, subresource: opts?.subresource, body });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    return answered<T>(() =>
      this.#store.update(ref, structuredClone(body) as Obj, {
        namespace: opts?.namespace,
        subresource: opts?.subresource,
      }),
    );
  }

  async patch<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    type: PatchType,
    body: unknown,
    opts?: WriteOptions,
  ): Promise<T> {
    const subresource = opts?.subresource;
    const request = this.#record("patch", ref, {
      namespace: opts?.namespace,
      name,
      subresource,
      patchType: type,
      body,
    });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    return answered<T>(() =>
      this.#store.patch(ref, name, type, structuredClone(body), { namespace: request.namespace, subresource }),
    );
  }

  async delete(
    ref: ResourceRef,
    name: string,
    opts?: WriteOptions & { uid?: string; resourceVersion?: string },
  ): Promise<void> {
    const request = this.#record("delete", ref, { namespace: opts?.namespace, name });
    if ((await this.#react(request)) !== undefined) return;
    answered(() =>
      this.#store.delete(ref, name, {
        namespace: request.namespace,
        uid: opts?.uid,
        resourceVersion: opts?.resourceVersion,
      }),
    );
  }

  async raw(method: string, path: string, body?: unknown): Promise<unknown> {
    const request: RecordedRequest = {
      ...blank("raw"),
      httpMethod: method,
      path,
      body: body === undefined ? undefined : structuredClone(body),
    };
    this.requests.push(request);
    const answer = await this.#react(request);
    if (answer !== undefined) return answer;
    if (method === "GET" && ["/healthz", "/readyz", "/livez"].includes(path)) return "ok";
    throw new KubeApiError(`the server could not find the requested resource (${method} ${path})`, {
      status: 404,
      reason: "NotFound",
    });
  }

  // ---- internals ----

  #record(method: RequestMethod, ref: ResourceRef, fields: Partial<RecordedRequest>): RecordedRequest {
    const request: RecordedRequest = {
      ...blank(method),
      group: ref.group,
      resource: ref.plural,
      ...fields,
      namespace: ref.namespaced ? (fields.namespace ?? "default") : undefined,
      body: fields.body === undefined ? undefined : structuredClone(fields.body),
    };
    this.requests.push(request);
    return request;
  }

  async #react(request: RecordedRequest): Promise<unknown> {
    for (const reactor of [...this.#reactors]) {
      if (reactor.remaining <= 0 || !matches(request, reactor.match)) continue;
      reactor.remaining--;
      const answer = await reactor.fn(request);
      if (answer !== undefined) return structuredClone(answer);
    }
    return undefined;
  }
}

const blank = (method: RequestMethod): RecordedRequest => ({
  method,
  group: "",
  resource: "",
  namespace: undefined,
  name: undefined,
  subresource: undefined,
  patchType: undefined,
  body: undefined,
  httpMethod: undefined,
  path: undefined,
});
