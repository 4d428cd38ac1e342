/**
 * Webhooks a provider declares in its `defineProvider` declaration (`webhooks: { "<name>": … }`), built once the
 * provider is: each gets the provider, so it may read what the provider serves (its load-balancer classes).
 *
 * The one kind the kit offers is the Service-annotation check: a provider hands the function that lists the
 * problems of a Service's annotations (its `AnnotationSet.read(service).problems`), and `kubectl apply` of a
 * Service with an invalid one is refused at once, naming the annotation, its value and what it accepts, instead of
 * the Service being stored and then failing every sync with a Warning event.
 */
import type { Service } from "../../kube/objects.ts";
import { type AdmissionRequest, type AdmissionWebhook, allow, deny } from "../admission.ts";
import type { CloudProvider } from "../cloud.ts";
import { servesClass } from "../load-balancer-classes.ts";
import { type AnnotationProblem, describeProblem } from "./annotations/declare.ts";

/** A declared webhook: built from the provider `create` returned (named and rate-limited). */
export type ProviderWebhook = (provider: CloudProvider) => AdmissionWebhook;

/**
 * The name providers give their Service-annotation webhook, so the shipped `ValidatingWebhookConfiguration` (path
 * `/service-annotations`) fits every provider.
 */
export const SERVICE_ANNOTATIONS_WEBHOOK = "service-annotations";

/** What a webhook's name may be: it is also its path (`/<name>`) and a label value of its metrics. */
export const WEBHOOK_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Every problem of `service`'s annotations that the provider would refuse at sync time. */
export type ServiceAnnotationValidator = (service: Service) => readonly AnnotationProblem[];

const isService = (r: AdmissionRequest) => r.kind.group === "" && r.kind.version === "v1" && r.kind.kind === "Service";

/** Why the webhook does not look at a Service's annotations, or `undefined` when it does. */
export function notChecked(service: Service, provider: CloudProvider): string | undefined {
  if (service.spec?.type !== "LoadBalancer") return "not of type LoadBalancer";
  if (!provider.loadBalancer) return "the provider serves no load balancers";
  if (!servesClass(service, provider.loadBalancer.classes)) return "of a load-balancer class served elsewhere";
  return undefined;
}

/**
 * The problems an admission refuses: on CREATE all of them; on UPDATE only those of annotations the update sets or
 * changes while the provider served it, so a Service stored before the webhook existed can still be edited (and deleted: its finalizer removed)
 * while its old value keeps failing syncs with a Warning event as before.
 */
export function refusedProblems(
  problems: readonly AnnotationProblem[],
  old: Service | undefined,
): readonly AnnotationProblem[] {
  if (!old) return problems;
  const before = old.metadata?.annotations ?? {};
  return problems.filter((p) => before[p.key] !== p.value);
}

export function refusalMessage(service: Service, problems: readonly AnnotationProblem[]): string {
  const n = problems.length;
  const name = `${service.metadata?.namespace ?? "default"}/${service.metadata?.name ?? service.metadata?.generateName ?? ""}`;
  return `Service ${name}: ${n} invalid load-balancer annotation${n === 1 ? "" : "s"}: ${problems
    .map(describeProblem)
    .join(" | ")}. Set ${n === 1 ? "it" : "each"} to a value as expected, or remove ${n === 1 ? "it" : "them"}.`;
}

/**
 * A validating webhook over Services: refuses a CREATE or UPDATE of a `type: LoadBalancer` Service this provider
 * serves whose annotations `validate` finds problems in (see `refusedProblems`); allows everything else, other
 * kinds included, so a configuration that matches too much never blocks what it should not.
 */
export function serviceAnnotationsWebhook(validate: ServiceAnnotationValidator): ProviderWebhook {
  return (provider) => ({
    type: "validating",
    description: `Refuses a LoadBalancer Service whose ${provider.providerName} annotations are invalid, naming each.`,
    admit(request) {
      if (!isService(request)) return allow();
      if (request.operation !== "CREATE" && request.operation !== "UPDATE") return allow();
      const service = request.object as Service | null | undefined;
      if (!service || notChecked(service, provider) !== undefined) return allow();
      // A Service that only now becomes one the provider serves (type or class changed) has all its problems refused.
      const before = (request.operation === "UPDATE" ? request.oldObject : undefined) as Service | null | undefined;
      const old = before && notChecked(before, provider) === undefined ? before : undefined;
      const refused = refusedProblems(validate(service), old);
      return refused.length === 0 ? allow() : deny(refusalMessage(service, refused));
    },
  });
}
