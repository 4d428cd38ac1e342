/**
 * Warning events about a Service that do not stop its sync: settings that contradict each other, where the provider
 * picks one and says which (metal: the kube-vip annotation and `spec.loadBalancerIP` asking for different
 * addresses). A problem that does stop the sync is an error instead (`InvalidAnnotationsError`), which the service
 * controller reports as its own Warning event.
 *
 * Events go through the provider's warning events (../warning-events.ts): never blocking, a repeat within ten
 * minutes counted on the event already written, so a warning given on every sync stays one event.
 */
import { Resources } from "../../../kube/client-types.ts";
import type { Service } from "../../../kube/objects.ts";
import { createWarningRecorder, type WarningRecorderOptions } from "../warning-events.ts";

export interface ServiceWarnings {
  /** Queues a Warning event about `service`; never throws, never waits. */
  warn(service: Service, reason: string, message: string): void;
  /** Writes what is queued and stops taking warnings. */
  stop(): Promise<void>;
}

export type ServiceWarningsOptions = Omit<WarningRecorderOptions, "resource">;

export function createServiceWarnings(options: ServiceWarningsOptions): ServiceWarnings {
  return createWarningRecorder<Service>({ ...options, resource: Resources.services });
}
