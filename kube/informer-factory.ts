/**
 * Shares one informer per resource and selection between all controllers, so each resource is listed and
 * watched once however many controllers read it.
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef } from "./client-types.ts";
import { createInformer, type Informer, type InformerOptions, waitForCacheSync } from "./informer.ts";
import type { KubeObject } from "./objects.ts";

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
  /** Used when this call creates the informer; a later caller of the same selection shares the first one's. */
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
      let inf = informers.get(key);
      if (!inf) {
        inf = createInformer<KubeObject>({
          ...opts,
          ref,
          ...(sel.namespace && { namespace: sel.namespace }),
          ...(sel.labelSelector && { labelSelector: sel.labelSelector }),
          ...(sel.fieldSelector && { fieldSelector: sel.fieldSelector }),
          ...(sel.transform && { transform: sel.transform as unknown as (obj: KubeObject) => KubeObject }),
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
