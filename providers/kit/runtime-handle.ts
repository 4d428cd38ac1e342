/**
 * The lazy half of a provider's context: what exists only inside a leadership term (the Kubernetes client, the
 * shared informers, Warning events), handed to the provider at construction as a handle that fills in when the
 * manager calls `initialize`. A provider reads it when it acts, never copies it into a `let` of its own.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import type { ProviderRuntime } from "../cloud.ts";
import { createWarningRecorder, type WarningRecorder } from "./warning-events.ts";

export interface RuntimeHandle {
  /**
   * The current term's runtime (client, informers, signal), or `undefined` before `initialize` (`doctor`, `plan`
   * before it starts the provider, unit tests). A new term replaces it.
   */
  current(): ProviderRuntime | undefined;
  /** Resolves with the first term's runtime once `initialize` runs; never rejects. */
  ready(): Promise<ProviderRuntime>;
  /** Warnings about Nodes: logged only before `initialize`, Warning events too after it. */
  readonly nodeWarnings: WarningRecorder<Node>;
  /** Warnings about Services, as `nodeWarnings`. */
  readonly serviceWarnings: WarningRecorder<Service>;
}

export interface RuntimeHandleOptions {
  /** The events' `source.component`. */
  readonly component: string;
  /** The provider's logger, for warnings said before `initialize`. */
  readonly logger: ConsolaInstance;
  readonly now?: () => number;
}

/** The handle and its other end, which the definition calls from the provider's `initialize`. */
export function createRuntimeHandle(options: RuntimeHandleOptions): RuntimeHandle & {
  attach(runtime: ProviderRuntime): void;
} {
  let current: ProviderRuntime | undefined;
  let resolve!: (runtime: ProviderRuntime) => void;
  const ready = new Promise<ProviderRuntime>((r) => {
    resolve = r;
  });
  const recorders = (runtime: ProviderRuntime | undefined) => {
    const common = {
      component: options.component,
      logger: runtime?.logger ?? options.logger,
      kube: runtime?.kube,
      signal: runtime?.signal,
      ...(options.now && { now: options.now }),
    };
    return {
      nodes: createWarningRecorder<Node>({ ...common, resource: Resources.nodes }),
      services: createWarningRecorder<Service>({ ...common, resource: Resources.services }),
    };
  };
  let warnings = recorders(undefined);
  return {
    current: () => current,
    ready: () => ready,
    nodeWarnings: { warn: (node, reason, message) => warnings.nodes.warn(node, reason, message) },
    serviceWarnings: { warn: (service, reason, message) => warnings.services.warn(service, reason, message) },
    attach(runtime) {
      current = runtime;
      warnings = recorders(runtime);
      resolve(runtime);
    },
  };
}
