/**
 * Watching one ConfigMap by name (the inventory, the kube-vip pools): an informer limited to that name, whose
 * every change hands the current object, or `undefined` when there is none, to `onChange`.
 */
import type { ConsolaInstance } from "consola";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import { createInformer, waitForCacheSync } from "../../kube/informer.ts";
import type { ConfigMap } from "../../kube/objects.ts";
import type { Sleep } from "../../kube/sleep.ts";

export interface ConfigMapRef {
  readonly namespace: string;
  readonly name: string;
}

export interface WatchConfigMapOptions {
  readonly kube: KubeClient;
  readonly ref: ConfigMapRef;
  readonly logger: ConsolaInstance;
  readonly signal: AbortSignal;
  onChange(configMap: ConfigMap | undefined): void;
  readonly sleep?: Sleep;
}

/** Starts watching until `signal` aborts; resolves true after the first complete read, false if aborted first. */
export async function watchConfigMap(options: WatchConfigMapOptions): Promise<boolean> {
  const { ref, logger } = options;
  const informer = createInformer<ConfigMap>({
    client: options.kube,
    ref: Resources.configMaps,
    logger,
    namespace: ref.namespace,
    fieldSelector: `metadata.name=${ref.name}`,
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const deliver = (cm: ConfigMap | undefined) => {
    try {
      options.onChange(cm);
    } catch (err) {
      logger.error(`ConfigMap ${ref.namespace}/${ref.name}: could not apply it`, err);
    }
  };
  informer.addEventHandler({
    onAdd: (cm) => informer.hasSynced() && deliver(cm),
    onUpdate: (_old, cm) => informer.hasSynced() && deliver(cm),
    onDelete: () => deliver(undefined),
  });
  void informer.run(options.signal).catch((err) => logger.error(`ConfigMap ${ref.namespace}/${ref.name}`, err));
  const synced = await waitForCacheSync([informer], options.signal);
  // The first state, delivered once the first list is complete (an absent ConfigMap included).
  if (synced) deliver(informer.list()[0]);
  return synced;
}
