/**
 * Reading `LoadBalancer.classes` (providers/cloud.ts) against a Service's `spec.loadBalancerClass`: the one rule the
 * service controller, a provider's own bookkeeping (metal's rebuild) and the sandbox's progress share, and the
 * cloud-config fields a provider declares its classes with.
 */
import * as v from "valibot";
import { problemsText, qualifiedName } from "../config/kube-names.ts";
import type { Service } from "../kube/objects.ts";
import type { LoadBalancerClasses } from "./cloud.ts";

/**
 * Why another implementation owns `svc` by its class, or `undefined` when `classes` serves it. Absent `classes`
 * is upstream's rule: class-less Services only (any class, even an empty string, is someone else's).
 */
export function foreignClass(svc: Service, classes: LoadBalancerClasses | undefined): string | undefined {
  const cls = svc.spec?.loadBalancerClass;
  if (cls === undefined || cls === null) {
    return classes === undefined || classes.classless
      ? undefined
      : "spec.loadBalancerClass is not set, and this manager serves only Services that name one of its classes";
  }
  if (classes === undefined) return `spec.loadBalancerClass is set (${JSON.stringify(cls)})`;
  if (classes.names.includes(cls)) return undefined;
  const served = classes.names.map((n) => JSON.stringify(n)).join(", ") || "none";
  return `spec.loadBalancerClass ${JSON.stringify(cls)} is not a class this manager serves (${served})`;
}

export const servesClass = (svc: Service, classes: LoadBalancerClasses | undefined): boolean =>
  foreignClass(svc, classes) === undefined;

/** Why `name` is not a class Kubernetes would accept (`spec.loadBalancerClass` is a qualified name), in its words. */
function classProblem(name: string): string | undefined {
  const problems = qualifiedName(name);
  return problems.length === 0
    ? undefined
    : `must be a valid spec.loadBalancerClass such as example.com/internal: ${problemsText(problems)}`;
}

/**
 * The cloud-config fields `classes` (names) and `classless`, to spread into a provider's load-balancer section. Both
 * absent ⇒ `undefined` from `loadBalancerClassesOf`: upstream's rule. Check the section with `servesNothing`.
 */
export const loadBalancerClassFields = {
  classes: v.exactOptional(
    v.pipe(
      v.array(
        v.pipe(
          v.string("must be a class name such as example.com/internal"),
          v.check(
            (name) => classProblem(name) === undefined,
            (issue) => classProblem(String(issue.input)) ?? "must be a valid spec.loadBalancerClass",
          ),
        ),
        "must be a list of class names such as [example.com/internal]",
      ),
      v.check((names) => new Set(names).size === names.length, "must not name a class twice"),
    ),
  ),
  classless: v.exactOptional(v.boolean("must be true or false (serve Services that name no loadBalancerClass)")),
};

interface ClassFields {
  readonly classes?: readonly string[];
  readonly classless?: boolean;
}

export const servesNothingMessage =
  "is false, and classes names none: no Service would be served; name a class or leave classless out";

/**
 * Why the fields serve no Service at all (`classless: false` and no class named), for a check on the section that
 * holds `loadBalancerClassFields` (reported on `classless`); `undefined` when they serve some.
 */
export function servesNothing(fields: ClassFields): string | undefined {
  return fields.classless === false && (fields.classes ?? []).length === 0 ? servesNothingMessage : undefined;
}

/**
 * What the fields declare: `undefined` when neither is set (upstream's rule), else the names and whether
 * class-less Services are served (default: yes, as the default load balancer beside the named classes).
 */
export function loadBalancerClassesOf(fields: ClassFields): LoadBalancerClasses | undefined {
  if (fields.classes === undefined && fields.classless === undefined) return undefined;
  return { names: [...(fields.classes ?? [])], classless: fields.classless ?? true };
}
