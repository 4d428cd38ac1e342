/**
 * A provider's own Warning events (a Service's contradicting settings, a Robot Node's misconfiguration, a Node the
 * composite keeps): one recorder type for every provider and every kind of object. Events go through the
 * framework's recorder: never blocking, a repeat within ten minutes counted on the event already written, so a
 * warning given on every sync stays one event. Each distinct warning is also logged once (the lifecycle monitor may
 * ask every few seconds). The recorder writes through the provider's Kubernetes client and stops when the
 * provider's signal (the leadership term's) aborts.
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef } from "../../kube/client-types.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { createEventRecorder, objectReference } from "../../platform/events.ts";

/** Warnings about objects of one kind. */
export interface WarningRecorder<T extends KubeObject> {
  /** Queues a Warning event about `obj` and logs it; never throws, never waits. */
  warn(obj: T, reason: string, message: string): void;
}

export interface WarningRecorderOptions {
  readonly resource: ResourceRef;
  /** Absent ⇒ the warnings are only logged (before `initialize` hands over a client: `doctor`, `plan`, tests). */
  readonly kube?: KubeClient | undefined;
  /** The events' `source.component`, e.g. `metal-cloud-provider`. */
  readonly component: string;
  readonly logger: ConsolaInstance;
  /** Stops the events when it aborts (the leadership term's signal). */
  readonly signal?: AbortSignal | undefined;
  readonly now?: () => number;
}

const MAX_REMEMBERED = 4096;

export function createWarningRecorder<T extends KubeObject>(
  options: WarningRecorderOptions,
): WarningRecorder<T> & { stop(): Promise<void> } {
  const { kube, resource, logger } = options;
  const recorder =
    kube &&
    createEventRecorder({
      client: kube,
      component: options.component,
      logger,
      now: options.now ?? Date.now,
    });
  if (recorder) options.signal?.addEventListener("abort", () => void recorder.stop(), { once: true });
  const logged = new Set<string>();
  return {
    warn(obj, reason, message) {
      const name = obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata?.name;
      const key = `${name}\n${reason}\n${message}`;
      if (!logged.has(key)) {
        if (logged.size >= MAX_REMEMBERED) logged.clear();
        logged.add(key);
        logger.warn(`${resource.kind} ${name ?? "(unnamed)"}: ${message}`);
      }
      recorder?.event(objectReference(resource, obj), "Warning", reason, message);
    },
    stop: async () => {
      await recorder?.stop();
    },
  };
}

/** Warnings said in the log alone (no client: unit tests, a provider built outside a term); none without a logger. */
export function loggedWarnings<T extends KubeObject>(
  resource: ResourceRef,
  logger: ConsolaInstance | undefined,
): WarningRecorder<T> {
  return logger ? createWarningRecorder<T>({ resource, logger, component: "" }) : { warn() {} };
}
