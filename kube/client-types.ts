/**
 * The contract of our Kubernetes client: a thin, typed HTTP layer on Bun's `fetch`.
 *
 * Why our own: under Bun, `@kubernetes/client-node` 2.x silently drops the kubeconfig's TLS settings (see
 * shared/reference/bun-client-node-probe.md). We keep client-node for kubeconfig loading (files, in-cluster,
 * token files, exec plugins) and for API types, and speak HTTP ourselves.
 *
 * Resources are addressed by a `ResourceRef` (group/version/plural and whether namespaced) so one client serves
 * nodes, services, events, leases, configmaps and the review APIs alike.
 */
import type { KubeObject } from "./objects.ts";

/** Where a kind lives in the API. */
export interface ResourceRef {
  /** `""` for the core group. */
  readonly group: string;
  readonly version: string;
  /** Lower-case plural, e.g. `nodes`. */
  readonly plural: string;
  readonly namespaced: boolean;
  /** Kind, e.g. `Node` (for events, references and error messages). */
  readonly kind: string;
}

export type PatchType = "strategic" | "merge" | "json";

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; the client follows `continue` tokens until the list is whole. */
  readonly limit?: number;
  readonly resourceVersion?: string;
  readonly signal?: AbortSignal;
  /**
   * Applied to each item as its page arrives, the result kept instead: a cache that keeps only part of each object
   * (kube/trim.ts) never holds a whole list of whole objects at once.
   */
  readonly transform?: (item: KubeObject) => KubeObject;
}

export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Start after this version. */
  readonly resourceVersion: string;
  readonly allowWatchBookmarks?: boolean;
  /** Server-side timeout for the watch request. */
  readonly timeoutSeconds?: number;
  /** No bytes for this long ⇒ the connection is considered dead and the watch ends with an error. */
  readonly idleTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T> {
  readonly type: WatchEventType;
  /** For ERROR events this is a `Status` object. */
  readonly object: T;
}

export interface WriteOptions {
  readonly namespace?: string;
  /** Write to the `status` subresource. */
  readonly subresource?: "status";
  readonly signal?: AbortSignal;
}

export interface PatchOptions extends WriteOptions {
  /**
   * Ask for the written object's metadata only (`PartialObjectMetadata`, as `kubectl get -o name` does), for a caller
   * that needs no more of the answer: a kubelet-shaped Node's answer drops from 10–15 KiB to its metadata, which
   * matters when a thousand Nodes join at once. The result then holds `metadata` (and `kind`/`apiVersion`) only;
   * a server that cannot convert answers in full, which is a superset.
   */
  readonly metadataOnly?: boolean;
}

/** The operations the controllers, leader election, events and serving need. */
export interface KubeClient {
  get<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    opts?: WriteOptions & { resourceVersion?: string },
  ): Promise<T>;
  list<T extends KubeObject>(ref: ResourceRef, opts?: ListOptions): Promise<ListResult<T>>;
  /** Streams watch events until the server closes, the signal aborts, or the idle timeout fires (then throws). */
  watch<T extends KubeObject>(ref: ResourceRef, opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
  create<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T>;
  /** PUT; carries `metadata.resourceVersion` for optimistic concurrency (409 on a stale one). */
  update<T extends KubeObject>(ref: ResourceRef, body: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    type: PatchType,
    body: unknown,
    opts?: PatchOptions,
  ): Promise<T>;
  delete(
    ref: ResourceRef,
    name: string,
    opts?: WriteOptions & { uid?: string; resourceVersion?: string },
  ): Promise<void>;
  /** A raw request for paths outside the resource model (`/healthz`, `/version`). */
  raw(method: string, path: string, body?: unknown, opts?: { signal?: AbortSignal }): Promise<unknown>;
}

/**
 * An error answer from the API server, or a failure to reach it. `status` is the HTTP status (0 when the request
 * never got an answer: refused, reset, TLS failure, timeout); `reason` is the Status reason (`NotFound`,
 * `Conflict`, `AlreadyExists`, `Invalid`, `Gone`, `TooManyRequests`, …).
 */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  readonly status: number;
  readonly reason: string;
  readonly retryAfterMs: number | undefined;
  /** For transport failures: the system code (`ECONNREFUSED`, `SELF_SIGNED_CERT_IN_CHAIN`, …). */
  readonly code: string | undefined;
  constructor(
    message: string,
    init: { status: number; reason: string; retryAfterMs?: number | undefined; code?: string | undefined },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = init.status;
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
    this.code = init.code;
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof KubeApiError && err.status === 404;
/** A stale write (409 with reason Conflict); an `AlreadyExists` 409 is not a conflict, as upstream. */
export const isConflict = (err: unknown): boolean =>
  err instanceof KubeApiError && err.status === 409 && err.reason !== "AlreadyExists";
export const isAlreadyExists = (err: unknown): boolean =>
  err instanceof KubeApiError && err.status === 409 && err.reason === "AlreadyExists";
export const isGone = (err: unknown): boolean => err instanceof KubeApiError && err.status === 410;

/** The resources this project uses. */
export const Resources = {
  nodes: { group: "", version: "v1", plural: "nodes", namespaced: false, kind: "Node" },
  services: { group: "", version: "v1", plural: "services", namespaced: true, kind: "Service" },
  events: { group: "", version: "v1", plural: "events", namespaced: true, kind: "Event" },
  configMaps: { group: "", version: "v1", plural: "configmaps", namespaced: true, kind: "ConfigMap" },
  secrets: { group: "", version: "v1", plural: "secrets", namespaced: true, kind: "Secret" },
  namespaces: { group: "", version: "v1", plural: "namespaces", namespaced: false, kind: "Namespace" },
  leases: { group: "coordination.k8s.io", version: "v1", plural: "leases", namespaced: true, kind: "Lease" },
  eventsV1: { group: "events.k8s.io", version: "v1", plural: "events", namespaced: true, kind: "Event" },
  tokenReviews: {
    group: "authentication.k8s.io",
    version: "v1",
    plural: "tokenreviews",
    namespaced: false,
    kind: "TokenReview",
  },
  selfSubjectAccessReviews: {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectaccessreviews",
    namespaced: false,
    kind: "SelfSubjectAccessReview",
  },
  subjectAccessReviews: {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "subjectaccessreviews",
    namespaced: false,
    kind: "SubjectAccessReview",
  },
} as const satisfies Record<string, ResourceRef>;
