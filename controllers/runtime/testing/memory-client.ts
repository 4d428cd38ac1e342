/**
 * An in-memory `KubeClient` for tests: a small API server without HTTP.
 *
 * What it does like the real one: a cluster-wide resourceVersion counter; 404 NotFound, 409 AlreadyExists and 409
 * Conflict (stale `metadata.resourceVersion` on update, on a patch that carries one, or a failed delete
 * precondition); the `status` subresource for nodes, services and namespaces (main writes keep the stored status;
 * status writes keep the stored spec but may change status and metadata, as the API server's status strategies);
 * no-op writes do not bump the resourceVersion; finalizers hold a deleted object with a `deletionTimestamp` until
 * the last finalizer is removed; merge / strategic (as merge, see `patch.ts`) /
 * JSON patches; label and field selectors; watches that replay from a resourceVersion and answer an expired one
 * with an ERROR event carrying a 410 `Expired` Status. TokenReview and SubjectAccessReview creates are not stored;
 * they answer "not authenticated" / "not allowed" unless a reactor says otherwise.
 *
 * Simplifications: a list is always one page (`limit`/`continue` ignored); a watch does not turn an update that
 * moves an object out of its selector into DELETED; watches never time out; request signals are not observed
 * (a reactor can model a hanging request by returning a promise that never settles).
 *
 * What it adds for tests: every request is recorded (`requests`, `writes()`), and reactors (`react`, `fail`) can
 * answer or fail any request before the default behaviour runs, like client-go's fake clientset.
 */
import type {
  KubeClient,
  ListOptions,
  ListResult,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from "../../../kube/client-types.ts";
import { KubeApiError } from "../../../kube/client-types.ts";
import type { KubeObject } from "../../../kube/objects.ts";
import type { Now } from "../clock.ts";
import { apiError, conflictError, MemoryStore, storeKeyOf } from "./memory-store.ts";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from "./patch.ts";

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

/** Returns the answer, throws to fail the request, or returns `undefined` to fall through to the default. */
export type Reactor = (request: RecordedRequest) => unknown;

export interface MemoryKubeClientOptions {
  /** Clock for creation and deletion timestamps. */
  readonly now?: Now;
  /** How many watch events are kept for replay; older resourceVersions get 410. */
  readonly historyLimit?: number;
}

const WRITES: ReadonlySet<RequestMethod> = new Set(["create", "update", "patch", "delete"]);
const REVIEW_GROUPS = new Set(["authentication.k8s.io", "authorization.k8s.io"]);

export const matches = (request: RecordedRequest, match: RequestMatch): boolean =>
  Object.entries(match).every(([k, v]) => v === undefined || request[k as keyof RecordedRequest] === v);

export class MemoryKubeClient implements KubeClient {
  readonly requests: RecordedRequest[] = [];
  readonly #store: MemoryStore;
  readonly #reactors: { match: RequestMatch; fn: Reactor; remaining: number }[] = [];

  constructor(options: MemoryKubeClientOptions = {}) {
    this.#store = new MemoryStore(options.now ?? Date.now, options.historyLimit ?? 10_000);
  }

  // ---- test helpers ----

  /** Stores objects as if created (ADDED events included) without recording requests or running reactors. */
  seed<T extends KubeObject>(ref: ResourceRef, ...objects: T[]): T[] {
    return objects.map((o) =>
      this.#store.create(ref, o, ref.namespaced ? (o.metadata?.namespace ?? "default") : undefined),
    );
  }

  /** A copy of the stored object, without recording a request. */
  peek<T extends KubeObject>(ref: ResourceRef, name: string, namespace?: string): T | undefined {
    const obj = this.#store.find(ref, name, namespace);
    return obj ? (structuredClone(obj) as T) : undefined;
  }

  /** Copies of every stored object of a resource, without recording a request. */
  all<T extends KubeObject>(ref: ResourceRef): T[] {
    return this.#store.select(ref, {}) as T[];
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
    this.#store.hub.closeAll();
  }

  /** Forgets watch history: a watch from any older resourceVersion now gets a 410 Expired ERROR event. */
  compactHistory(): void {
    this.#store.hub.compact(this.#store.resourceVersion);
  }

  /** Sends a BOOKMARK at the current resourceVersion to watches that asked for bookmarks. */
  bookmark(): void {
    this.#store.hub.bookmark(this.resourceVersion);
  }

  /** Open watches, optionally of one resource. */
  watchCount(ref?: ResourceRef): number {
    return this.#store.hub.count(ref ? storeKeyOf(ref) : undefined);
  }

  // ---- KubeClient ----

  async get<T extends KubeObject>(ref: ResourceRef, name: string, opts?: WriteOptions): Promise<T> {
    const request = this.#record("get", ref, { namespace: opts?.namespace, name, subresource: opts?.subresource });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    return structuredClone(this.#store.existing(ref, name, opts?.namespace)) as T;
  }

  async list<T extends KubeObject>(ref: ResourceRef, opts: ListOptions = {}): Promise<ListResult<T>> {
    const request = this.#record("list", ref, { namespace: opts.namespace });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as ListResult<T>;
    return { items: this.#store.select(ref, opts) as T[], resourceVersion: this.resourceVersion };
  }

  watch<T extends KubeObject>(ref: ResourceRef, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const request = this.#record("watch", ref, { namespace: opts.namespace });
    return this.#store.hub.open<T>(storeKeyOf(ref), opts, {
      before: () => this.#react(request),
      initial: () => this.#store.select(ref, opts),
      selected: (o) => this.#store.selected(ref, o, opts),
    });
  }

  async create<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T> {
    const namespace = this.#namespaceFor(ref, opts?.namespace, body);
    const request = this.#record("create", ref, { namespace, name: body.metadata?.name, body });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    if (REVIEW_GROUPS.has(ref.group)) {
      const status = ref.group === "authentication.k8s.io" ? { authenticated: false } : { allowed: false };
      return { ...structuredClone(body), status } as T;
    }
    if (body.metadata?.resourceVersion) {
      throw apiError(500, "InternalError", "resourceVersion should not be set on objects to be created");
    }
    return this.#store.create(ref, body, namespace);
  }

  async update<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T> {
    const namespace = this.#namespaceFor(ref, opts?.namespace, body);
    const name = body.metadata?.name ?? "";
    const request = this.#record("update", ref, { namespace, name, subresource: opts?.subresource, body });
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    const existing = this.#store.existing(ref, name, namespace);
    const sent = body.metadata?.resourceVersion;
    if (sent && sent !== existing.metadata?.resourceVersion) throw conflictError(ref, name);
    return this.#store.commit(ref, existing, structuredClone(body), opts?.subresource) as T;
  }

  async patch<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    type: PatchType,
    body: unknown,
    opts?: WriteOptions,
  ): Promise<T> {
    const subresource = opts?.subresource;
    const fields = { namespace: opts?.namespace, name, subresource, patchType: type, body };
    const request = this.#record("patch", ref, fields);
    const answer = await this.#react(request);
    if (answer !== undefined) return answer as T;
    const existing = this.#store.existing(ref, name, opts?.namespace);
    const apply = { merge: applyMergePatch, strategic: applyStrategicMergePatch, json: applyJsonPatch }[type];
    let patched: KubeObject;
    try {
      patched = apply(structuredClone(existing), body) as KubeObject;
    } catch (err) {
      if (!(err instanceof PatchError)) throw err;
      throw new KubeApiError(err.message, { status: 422, reason: "Invalid" }, { cause: err });
    }
    const sent = patched.metadata?.resourceVersion;
    if (sent && sent !== existing.metadata?.resourceVersion) throw conflictError(ref, name);
    return this.#store.commit(ref, existing, patched, subresource) as T;
  }

  async delete(
    ref: ResourceRef,
    name: string,
    opts?: WriteOptions & { uid?: string; resourceVersion?: string },
  ): Promise<void> {
    const request = this.#record("delete", ref, { namespace: opts?.namespace, name });
    if ((await this.#react(request)) !== undefined) return;
    const existing = this.#store.existing(ref, name, opts?.namespace);
    const meta = existing.metadata ?? {};
    if (opts?.uid && opts.uid !== meta.uid) {
      const message = `Precondition failed: UID in precondition: ${opts.uid}, UID in object meta: ${meta.uid}`;
      throw apiError(409, "Conflict", message);
    }
    if (opts?.resourceVersion && opts.resourceVersion !== meta.resourceVersion) throw conflictError(ref, name);
    if ((meta.finalizers ?? []).length > 0) this.#store.markDeleting(ref, existing);
    else this.#store.remove(ref, existing);
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
    throw apiError(404, "NotFound", `the server could not find the requested resource (${method} ${path})`);
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

  #namespaceFor(ref: ResourceRef, fromOptions: string | undefined, body: KubeObject): string | undefined {
    if (!ref.namespaced) return undefined;
    const fromBody = body.metadata?.namespace;
    if (fromOptions && fromBody && fromOptions !== fromBody) {
      const message = "the namespace of the provided object does not match the namespace sent on the request";
      throw apiError(400, "BadRequest", message);
    }
    return fromOptions ?? fromBody ?? "default";
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
