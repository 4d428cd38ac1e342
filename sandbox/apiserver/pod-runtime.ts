/**
 * `pods/log`, `exec`, `attach` and `portforward`: what a kubelet serves for a running container. The sandbox stores
 * pods but runs none, so these answer 400 saying so (after the checks a real server makes first: may the caller,
 * and does the pod exist), instead of a bare 404 that reads like a wrong URL.
 */
import type { Auth, UserInfo } from "./auth.ts";
import { resolveResource } from "./resources.ts";
import { badRequest, forbidden } from "./status-errors.ts";
import type { ObjectStore } from "./store.ts";

const PODS = resolveResource({ group: "", plural: "pods" });
const WHAT: Record<string, string> = {
  log: "read logs from",
  exec: "run a command in",
  attach: "attach to",
  portforward: "forward ports to",
};
const PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(log|exec|attach|portforward)$/;

/** Throws the answer for a pod runtime path; returns when `path` is not one. */
export const refusePodRuntime = (store: ObjectStore, auth: Auth, user: UserInfo, path: string): void => {
  const m = PATH.exec(path);
  if (!m) return;
  const [, namespace = "", name = "", sub = ""] = m.map(decodeURIComponent);
  const verb = sub === "log" ? "get" : "create";
  const decision = auth.authorize({
    user: user.user,
    groups: user.groups,
    verb,
    group: "",
    resource: "pods",
    subresource: sub,
    namespace,
    name,
    path,
  });
  if (!decision.allowed) {
    throw forbidden(
      PODS,
      name,
      `User "${user.user}" cannot ${verb} resource "pods/${sub}" in API group "" in the namespace "${namespace}"`,
    );
  }
  store.get(PODS, name, { namespace });
  throw badRequest(
    `pod "${name}" has no running container: the sandbox stores pods but runs none, so there is nothing to ${WHAT[sub]} (docs/sandbox.md, "kubectl against the sandbox")`,
  );
};
