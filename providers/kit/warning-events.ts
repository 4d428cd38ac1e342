/**
 * A provider's own Warning events (a Service's contradicting settings, a Robot Node's misconfiguration, a Node the
 * composite keeps), through the framework's recorder: never blocking, a repeat within ten minutes counted on the
 * event already written, so a warning given on every sync stays one event. The recorder writes through the
 * provider's Kubernetes client and stops when the provider's signal (the leadership term's) aborts.
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef } from "../../kube/client-types.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { createEventRecorder, objectReference } from "../../platform/events.ts";

export interface WarningEvents {
  /** Queues a Warning event about `obj` (of `resource`); never throws, never waits. */
  warn(resource: ResourceRef, obj: KubeObject, reason: string, message: string): void;
  /** Writes what is queued and stops taking events. */
  stop(): Promise<void>;
}

export interface WarningEventsOptions {
  readonly kube: KubeClient;
  /** The events' `source.component`, e.g. `metal-cloud-provider`. */
  readonly component: string;
  readonly logger: ConsolaInstance;
  /** Stops the events when it aborts (the leadership term's signal). */
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

export function createWarningEvents(options: WarningEventsOptions): WarningEvents {
  const recorder = createEventRecorder({
    client: options.kube,
    component: options.component,
    logger: options.logger,
    now: options.now ?? Date.now,
  });
  options.signal?.addEventListener("abort", () => void recorder.stop(), { once: true });
  return {
    warn: (resource, obj, reason, message) =>
      recorder.event(objectReference(resource, obj), "Warning", reason, message),
    stop: () => recorder.stop(),
  };
}
