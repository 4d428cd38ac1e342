/**
 * Following one ConfigMap by name (the inventory, the kube-vip pools) through the shared informers: every change
 * hands the current object, or `undefined` when there is none, to `onChange`.
 */
import type { ConsolaInstance } from "consola";
import { waitForCacheSync } from "../../kube/informer.ts";
import type { ConfigMap } from "../../kube/objects.ts";
import type { ProviderInformers } from "../cloud.ts";

export interface ConfigMapRef {
  readonly namespace: string;
  readonly name: string;
}

export interface WatchConfigMapOptions {
  readonly informers: ProviderInformers;
  readonly ref: ConfigMapRef;
  readonly logger: ConsolaInstance;
  /** The leadership term: delivery stops when it aborts. */
  readonly signal: AbortSignal;
  onChange(configMap: ConfigMap | undefined): void;
}

/**
 * Follows the ConfigMap until `signal` aborts; resolves true once the first state (an absent ConfigMap included)
 * was delivered, false if aborted first. A handler that throws is logged; later changes are still delivered.
 */
export async function watchConfigMap(options: WatchConfigMapOptions): Promise<boolean> {
  const { ref, logger, signal } = options;
  if (signal.aborted) return false;
  const informer = options.informers.configMaps(ref);
  const deliver = (cm: ConfigMap | undefined) => {
    try {
      options.onChange(cm);
    } catch (err) {
      logger.error(`ConfigMap ${ref.namespace}/${ref.name}: could not apply it`, err);
    }
  };
  // Events before the first state are dropped: that state is read from the cache afterwards, so it includes them.
  let started = false;
  const remove = informer.addEventHandler({
    onAdd: (cm) => started && deliver(cm),
    onUpdate: (_old, cm) => started && deliver(cm),
    onDelete: () => started && deliver(undefined),
  });
  signal.addEventListener("abort", remove, { once: true });
  if (!(await waitForCacheSync([informer], signal))) return false;
  started = true;
  deliver(informer.list()[0]);
  return true;
}
