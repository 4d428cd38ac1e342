/**
 * Beyond upstream: a standby watches the Lease and is woken the moment the leader releases it (holder cleared,
 * or the Lease deleted), instead of noticing only after its next jittered retry — 2 to 4.4 s with the default
 * `--leader-elect-retry-period`. A released lease is then taken over in well under a second. Best effort: any
 * watch failure only means falling back to the retry period, so errors are logged at debug and retried.
 */
import type { ConsolaInstance } from "consola";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Sleep } from "../kube/clock.ts";
import type { Lease } from "../kube/objects.ts";

export interface LeaseWatchOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  /** The Lease version to watch from (the last one read). */
  readonly resourceVersion: () => string | undefined;
  readonly onReleased: () => void;
  readonly retryMs: number;
  readonly sleep: Sleep;
  readonly logger: ConsolaInstance;
  readonly signal: AbortSignal;
}

export async function watchLeaseRelease(o: LeaseWatchOptions): Promise<void> {
  while (!o.signal.aborted) {
    const from = o.resourceVersion();
    if (from) {
      try {
        const events = o.client.watch<Lease>(Resources.leases, {
          namespace: o.namespace,
          fieldSelector: `metadata.name=${o.name}`,
          resourceVersion: from,
          allowWatchBookmarks: true,
          signal: o.signal,
        });
        for await (const ev of events) {
          const released = ev.type === "DELETED" || (ev.type === "MODIFIED" && !ev.object.spec?.holderIdentity);
          if (released) o.onReleased();
        }
      } catch (err) {
        if (!o.signal.aborted) o.logger.debug(`watching lease ${o.namespace}/${o.name}: ${(err as Error).message}`);
      }
    }
    // Before the first read of the Lease there is nothing to watch from yet: look again soon, not a period later.
    await o.sleep(from ? o.retryMs : Math.min(50, o.retryMs), o.signal);
  }
}
