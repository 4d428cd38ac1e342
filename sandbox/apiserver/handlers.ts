/**
 * HTTP verbs on resources: get, list, watch, create, update, patch, delete, deletecollection — parsing the query
 * and body, authorising, calling the store, and rendering the answer as the client negotiated.
 */
import type { Auth, UserInfo } from "./auth.ts";
import { isObject, type Obj, str } from "./json.ts";
import { applyPatch } from "./patch/apply.ts";
import { contentTypeOf, negotiate, type Renderer } from "./representation.ts";
import type { ResourceDef } from "./resources.ts";
import { scaled, scaleOf } from "./scale.ts";
import { type ApiError, badRequest, forbidden, methodNotAllowed, unsupportedMediaType } from "./status-errors.ts";
import type { ObjectStore, PatchType } from "./store.ts";
import { listObjects, watchObjects } from "./store-reads.ts";
import { watchResponse } from "./watch-stream.ts";

export interface ResourceRoute {
  readonly def: ResourceDef;
  /** The namespace in the path (undefined for cluster-scoped resources and all-namespace lists). */
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: "status" | "scale" | undefined;
  /** The legacy `/watch/` path prefix. */
  readonly watchPath: boolean;
}

export interface HandlerContext {
  readonly store: ObjectStore;
  readonly renderer: Renderer;
  readonly auth: Auth;
  readonly watchGone: () => "event" | "http";
  readonly maxQueuedBytes: number;
}

const PATCH_TYPES: Record<string, PatchType> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/strategic-merge-patch+json": "strategic",
};

export const respond = (status: number, body: string, contentType = "application/json"): Response =>
  new Response(body, { status, headers: { "content-type": contentType } });

const mediaType = (req: Request): string => (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const OBJECT_TYPES = ["application/json", "application/yaml", PROTOBUF];

/**
 * The request body as parsed JSON (or YAML, or Kubernetes protobuf decoded to the same JSON); 415 for other media
 * types, 400 for a body that does not parse.
 */
const readBody = async (req: Request, accepted: readonly string[]): Promise<unknown> => {
  // No Content-Type is JSON, as the real server takes it (kubectl 1.20's create sends none).
  const type = mediaType(req) || (accepted.includes("application/json") ? "application/json" : "");
  if (!accepted.includes(type)) throw unsupportedMediaType(accepted);
  if (type === PROTOBUF) {
    // Loaded on the first protobuf body: a manager that only sends JSON never pays for the tables.
    const { decodeProtobuf } = await import("./protobuf/decode.ts");
    return decodeProtobuf(new Uint8Array(await req.arrayBuffer()));
  }
  const text = await req.text();
  try {
    return type === "application/yaml" ? Bun.YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw badRequest(`the request body could not be decoded: ${err instanceof Error ? err.message : String(err)}`);
  }
};

const readObject = async (req: Request): Promise<Obj> => {
  const body = await readBody(req, OBJECT_TYPES);
  if (!isObject(body)) throw badRequest("the request body must be a JSON object");
  return body;
};

const verbOf = (req: Request, route: ResourceRoute, watch: boolean): string => {
  switch (req.method) {
    case "GET":
      return watch ? "watch" : route.name ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return route.name ? "delete" : "deletecollection";
    default:
      throw methodNotAllowed();
  }
};

const scope = (route: ResourceRoute): string =>
  route.namespace ? `in the namespace "${route.namespace}"` : "at the cluster scope";

export const handleResource = async (
  ctx: HandlerContext,
  req: Request,
  url: URL,
  route: ResourceRoute,
  user: UserInfo,
): Promise<Response> => {
  const q = url.searchParams;
  const { def, name } = route;
  const watch = route.watchPath || (req.method === "GET" && (q.get("watch") === "true" || q.get("watch") === "1"));
  const verb = verbOf(req, route, watch);
  const allowed = route.subresource ? ["get", "update", "patch"] : def.verbs;
  if (!allowed.includes(verb)) throw methodNotAllowed();
  const resource = route.subresource ? `${def.plural}/${route.subresource}` : def.plural;
  const decision = ctx.auth.authorize({
    user: user.user,
    groups: user.groups,
    verb,
    group: def.group,
    resource: def.plural,
    subresource: route.subresource ?? "",
    namespace: route.namespace ?? "",
    name: name ?? "",
    path: url.pathname,
  });
  if (!decision.allowed) {
    const why = `User "${user.user}" cannot ${verb} resource "${resource}" in API group "${def.group}" ${scope(route)}`;
    throw forbidden(def, name ?? "", decision.reason ? `${why}: ${decision.reason}` : why);
  }
  const dryRun = q.getAll("dryRun").includes("All");
  if (route.subresource === "scale") return handleScale(ctx, req, route, verb, dryRun);
  const opts = { namespace: route.namespace, subresource: route.subresource, dryRun };
  const { store, renderer } = ctx;

  if (verb === "watch") {
    const byName = name ? `metadata.name=${name}` : "";
    const fieldSelector = [q.get("fieldSelector") ?? "", byName].filter(Boolean).join(",");
    const timeout = Number(q.get("timeoutSeconds") ?? "");
    return watchResponse({
      def,
      format: negotiate(req.headers.get("accept"), q.get("includeObject")),
      renderer,
      timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
      signal: req.signal,
      maxQueuedBytes: ctx.maxQueuedBytes,
      gone: ctx.watchGone(),
      start: (listener) =>
        watchObjects(
          store,
          def,
          {
            namespace: route.namespace,
            labelSelector: q.get("labelSelector") ?? undefined,
            fieldSelector,
            resourceVersion: q.get("resourceVersion") ?? undefined,
            allowWatchBookmarks: q.get("allowWatchBookmarks") === "true",
            sendInitialEvents: q.get("sendInitialEvents") === "true",
          },
          listener,
        ),
    });
  }
  if (verb === "get" || verb === "list") {
    const format = negotiate(req.headers.get("accept"), q.get("includeObject"));
    if (verb === "get") {
      const obj = store.get(def, name!, { namespace: route.namespace });
      return respond(200, renderer.object(def, obj, format), contentTypeOf(format, false));
    }
    const limit = Number(q.get("limit") ?? "");
    const page = listObjects(store, def, {
      namespace: route.namespace,
      labelSelector: q.get("labelSelector") ?? undefined,
      fieldSelector: q.get("fieldSelector") ?? undefined,
      limit: Number.isInteger(limit) && limit > 0 ? limit : undefined,
      continue: q.get("continue") ?? undefined,
      resourceVersion: q.get("resourceVersion") ?? undefined,
      resourceVersionMatch: q.get("resourceVersionMatch") ?? undefined,
    });
    return respond(200, renderer.list(def, page, format), contentTypeOf(format, true));
  }
  const json = { kind: "json" } as const;
  if (verb === "create") {
    if (name || (def.namespaced && route.namespace === undefined)) throw methodNotAllowed();
    const body = await readObject(req);
    if (def.id === "authentication.k8s.io/tokenreviews")
      return respond(201, JSON.stringify(ctx.auth.tokenReview(body)));
    if (def.id === "authentication.k8s.io/selfsubjectreviews") {
      return respond(201, JSON.stringify(ctx.auth.selfSubjectReview(body, user)));
    }
    if (def.id === "authorization.k8s.io/selfsubjectaccessreviews") {
      return respond(201, JSON.stringify(ctx.auth.selfSubjectAccessReview(body, user)));
    }
    if (def.id === "authorization.k8s.io/subjectaccessreviews") {
      return respond(201, JSON.stringify(ctx.auth.subjectAccessReview(body)));
    }
    return respond(201, renderer.object(def, store.create(def, body, opts), json));
  }
  if (verb === "update") {
    const body = await readObject(req);
    const bodyName = str(body.metadata?.name) ?? "";
    if (bodyName !== name) {
      throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    return respond(200, renderer.object(def, store.update(def, body, opts), json));
  }
  if (verb === "patch") {
    const type = PATCH_TYPES[mediaType(req)];
    if (!type) throw unsupportedMediaType(Object.keys(PATCH_TYPES));
    const patch = await readBody(req, Object.keys(PATCH_TYPES));
    return respond(200, renderer.object(def, store.patch(def, name!, type, patch, opts), json));
  }
  return handleDelete(ctx, req, route, dryRun);
};

/** `<plural>/scale`: get, update or patch the Scale view of a workload's replicas. */
const handleScale = async (
  ctx: HandlerContext,
  req: Request,
  route: ResourceRoute,
  verb: string,
  dryRun: boolean,
): Promise<Response> => {
  const { def } = route;
  const name = route.name ?? "";
  const stored = ctx.store.get(def, name, { namespace: route.namespace });
  if (verb === "get") return respond(200, JSON.stringify(scaleOf(stored)));
  let scale: Obj;
  if (verb === "update") {
    scale = await readObject(req);
    const bodyName = str(scale.metadata?.name) ?? "";
    if (bodyName !== name) {
      throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
  } else {
    const type = PATCH_TYPES[mediaType(req)];
    if (!type) throw unsupportedMediaType(Object.keys(PATCH_TYPES));
    scale = applyPatch(scaleOf(stored), "Scale", type, await readBody(req, Object.keys(PATCH_TYPES)));
  }
  const updated = ctx.store.update(def, scaled(def, stored, scale), { namespace: route.namespace, dryRun });
  return respond(200, JSON.stringify(scaleOf(updated)));
};

/** The optional DeleteOptions body: JSON, or protobuf as client-go's typed clients send it. */
const readDeleteOptions = async (req: Request): Promise<Obj> => {
  if (mediaType(req) === PROTOBUF) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.length === 0) return {};
    const { decodeProtobuf } = await import("./protobuf/decode.ts");
    return decodeProtobuf(bytes);
  }
  const text = await req.text();
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    throw badRequest("the DeleteOptions body could not be decoded");
  }
};

const handleDelete = async (
  ctx: HandlerContext,
  req: Request,
  route: ResourceRoute,
  dryRunQuery: boolean,
): Promise<Response> => {
  const { def, name } = route;
  const options = await readDeleteOptions(req);
  const pre = isObject(options.preconditions) ? options.preconditions : {};
  const dryRun = dryRunQuery || (Array.isArray(options.dryRun) && options.dryRun.includes("All"));
  const json = { kind: "json" } as const;
  if (!name) {
    // deletecollection: every match, each with its own finalizer semantics; answers with the list deleted.
    const q = new URL(req.url).searchParams;
    const page = listObjects(ctx.store, def, {
      namespace: route.namespace,
      labelSelector: q.get("labelSelector") ?? undefined,
      fieldSelector: q.get("fieldSelector") ?? undefined,
    });
    const items = page.items.map(
      (o) =>
        ctx.store.delete(def, str(o.metadata?.name) ?? "", { namespace: str(o.metadata?.namespace), dryRun }).object,
    );
    return respond(200, ctx.renderer.list(def, { items, resourceVersion: String(ctx.store.resourceVersion) }, json));
  }
  const result = ctx.store.delete(def, name, {
    namespace: route.namespace,
    uid: str(pre.uid),
    resourceVersion: str(pre.resourceVersion),
    dryRun,
  });
  if (!result.deleted || def.returnDeletedObject) return respond(200, ctx.renderer.object(def, result.object, json));
  const meta = result.object.metadata ?? {};
  const details = { name, ...(def.group ? { group: def.group } : {}), kind: def.plural, uid: meta.uid };
  return respond(200, JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details }));
};

export const errorResponse = (err: ApiError): Response => {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const retry = err.details?.retryAfterSeconds;
  if (retry !== undefined) headers["retry-after"] = String(retry);
  return new Response(JSON.stringify(err.toStatus()), { status: err.code, headers });
};
