/**
 * Shares one informer per resource and selection between all controllers, so each resource is listed and
 * watched once however many controllers read it.
 *
 * Each informer caches its kind's keep-list (kube/trim.ts). A reader of a field beyond it says so with `keep`
 * when it asks for the informer; as the one informer is shared and already running, the first request of a
 * selection must carry every extra field: a later request for a field it does not keep is refused (a cache
 * without the field would silently read as "not set").
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef } from "./client-types.ts";
import { cacheTransform, createInformer, type Informer, type InformerOptions, waitForCacheSync } from "./informer.ts";
import type { KubeObject } from "./objects.ts";
import { type FieldPath, keptFields, uncovered } from "./trim.ts";

export type InformerFactoryOptions = Omit<
  InformerOptions<KubeObject>,
  "ref" | "namespace" | "labelSelector" | "fieldSelector" | "transform"
> & {
  readonly client: KubeClient;
  readonly logger: ConsolaInstance;
};

export interface InformerSelection<T extends KubeObject> {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * Fields to cache beyond the kind's keep-list (kube/trim.ts). Must come with the selection's first request:
   * a later request for a field the running informer does not keep throws.
   */
  readonly keep?: readonly FieldPath<T>[];
  /**
   * Replaces the keep-list transform; used when this call creates the informer, a later caller of the same
   * selection shares the first one's.
   */
  readonly transform?: (obj: T) => T;
}

export interface InformerFactory {
  /** The one informer for this resource and selection, created on first request. */
  forResource<T extends KubeObject>(ref: ResourceRef, selection?: InformerSelection<T>): Informer<T>;
  /** Runs every informer until the signal aborts, including those requested after this call. */
  start(signal: AbortSignal): void;
  /** True once every informer requested so far has synced; false if the signal aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
  /** Resolves when every started informer has stopped (after the start signal aborted). */
  stopped(): Promise<void>;
}

export function createInformerFactory(opts: InformerFactoryOptions): InformerFactory {
  const informers = new Map<string, Informer<KubeObject>>();
  /** The fields each keep-list informer caches, by the same key; absent for kinds cached whole. */
  const kept = new Map<string, readonly string[]>();
  const running: Promise<void>[] = [];
  let signal: AbortSignal | undefined;
  const launch = (inf: Informer<KubeObject>, s: AbortSignal) => {
    running.push(
      inf.run(s).catch((err) => {
        opts.logger.error(`informer for ${inf.ref.plural} stopped unexpectedly`, err);
      }),
    );
  };

  return {
    forResource<T extends KubeObject>(ref: ResourceRef, sel: InformerSelection<T> = {}): Informer<T> {
      const key = [ref.group, ref.version, ref.plural, sel.namespace, sel.labelSelector, sel.fieldSelector].join("|");
      const extra: readonly string[] = sel.keep ?? [];
      let inf = informers.get(key);
      if (inf) {
        const has = kept.get(key);
        const missing = has ? uncovered(has, extra) : [];
        if (missing.length > 0) {
          throw new Error(
            `the ${ref.plural} informer already runs without ${missing.join(", ")}: ask for these fields (keep) in ` +
              `the first request of ${ref.plural}, before anything else reads them (a provider: in initialize)`,
          );
        }
      } else {
        const defaults = sel.transform ? undefined : keptFields(ref);
        if (defaults) kept.set(key, [...defaults, ...extra]);
        inf = createInformer<KubeObject>({
          ...opts,
          ref,
          ...(sel.namespace && { namespace: sel.namespace }),
          ...(sel.labelSelector && { labelSelector: sel.labelSelector }),
          ...(sel.fieldSelector && { fieldSelector: sel.fieldSelector }),
          transform: sel.transform
            ? (sel.transform as unknown as (obj: KubeObject) => KubeObject)
            : cacheTransform<KubeObject>(ref, extra),
        });
        informers.set(key, inf);
        if (signal) launch(inf, signal);
      }
      return inf as unknown as Informer<T>;
    },
    start(s) {
      if (signal) throw new Error("informer factory already started");
      signal = s;
      for (const inf of informers.values()) launch(inf, s);
    },
    waitForCacheSync: (s) => waitForCacheSync([...informers.values()], s),
    stopped: async () => {
      await Promise.all(running);
    },
  };
}
