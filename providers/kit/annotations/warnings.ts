/**
 * Warning events about a Service that do not stop its sync: settings that contradict each other, where the provider
 * picks one and says which (metal: the kube-vip annotation and `spec.loadBalancerIP` asking for different
 * addresses). A problem that does stop the sync is an error instead (`InvalidAnnotationsError`), which the service
 * controller reports as its own Warning event.
 *
 * Events go through the framework's recorder: never blocking, a repeat within ten minutes counted on the event
 * already written rather than written again, so a warning given on every sync stays one event.
 */
import type { ConsolaInstance } from "consola";
import { createEventRecorder, objectReference } from "../../../controllers/runtime/events.ts";
import { type KubeClient, Resources } from "../../../kube/client-types.ts";
import type { Service } from "../../../kube/objects.ts";

export interface ServiceWarnings {
  /** Queues a Warning event about `service`; never throws, never waits. */
  warn(service: Service, reason: string, message: string): void;
  /** Writes what is queued and stops taking warnings. */
  stop(): Promise<void>;
}

export interface ServiceWarningsOptions {
  readonly kube: KubeClient;
  /** The events' `source.component`, e.g. `metal-cloud-provider`. */
  readonly component: string;
  readonly logger: ConsolaInstance;
  /** Stops the warnings when it aborts (the leadership term's signal). */
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

export function createServiceWarnings(options: ServiceWarningsOptions): ServiceWarnings {
  const recorder = createEventRecorder({
    client: options.kube,
    component: options.component,
    logger: options.logger,
    now: options.now ?? Date.now,
  });
  options.signal?.addEventListener("abort", () => void recorder.stop(), { once: true });
  return {
    warn(service, reason, message) {
      options.logger.warn(`Service ${service.metadata?.namespace}/${service.metadata?.name}: ${message}`);
      recorder.event(objectReference(Resources.services, service), "Warning", reason, message);
    },
    stop: () => recorder.stop(),
  };
}
