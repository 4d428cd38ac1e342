/**
 * The public-access firewall's runner (upstream: cloud-controller-manager/do/firewall_controller.go): every Service
 * event marks the firewall stale and one loop brings it in line, so a burst of events is one reconcile. The
 * firewall last read or written is kept, so an event costs no API call unless the rules change; every
 * `resyncMs` (DO CCM's 5 minutes) it is read again, by ID and else by name, so a change made by hand (a rule
 * removed, the firewall deleted) is undone. Only the firewall named `PUBLIC_ACCESS_FIREWALL_NAME` is ever read
 * for writing, and nothing is ever deleted. A failure is logged and retried after 1 s, doubling up to 5 minutes.
 */

import type { Sleep } from "../../../kube/clock.ts";
import { waitForCacheSync } from "../../../kube/informer.ts";
import type { CallContext, ProviderController, ProviderControllerContext } from "../../cloud.ts";
import type { Firewall, FirewallsApi } from "../api/firewalls.ts";
import { desiredFirewall, type FirewallSettings, planFirewall, ruleKey } from "./plan.ts";

export const FIREWALL_RESYNC_MS = 5 * 60_000;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 5 * 60_000;

export interface FirewallControllerOptions {
  readonly api: FirewallsApi;
  readonly settings: FirewallSettings;
  readonly now: () => number;
  readonly sleep: Sleep;
  /** How often the firewall is read again from the API; default 5 minutes. */
  readonly resyncMs?: number;
}

export function publicAccessFirewall(o: FirewallControllerOptions): ProviderController {
  return { name: "public-access-firewall", run: (ctx) => runFirewall(o, ctx) };
}

async function runFirewall(o: FirewallControllerOptions, ctx: ProviderControllerContext): Promise<void> {
  const { signal, logger } = ctx;
  const call: CallContext = { signal, fence: ctx.fence };
  const services = ctx.informers.services();
  let stale = true;
  let wake = new AbortController();
  const kick = () => {
    stale = true;
    wake.abort();
  };
  const stop = services.addEventHandler({ onAdd: kick, onUpdate: kick, onDelete: kick });
  const resyncMs = o.resyncMs ?? FIREWALL_RESYNC_MS;
  let known: Firewall | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let lastNotes = "";

  /** The firewall by the ID last seen, else by name (DO CCM's `Get`): `undefined` when there is none. */
  async function read(): Promise<Firewall | undefined> {
    if (known) {
      const byId = await o.api.getFirewall(call, known.id);
      if (byId && byId.name === o.settings.name) return byId;
      if (!byId) logger.warn(`the firewall ${o.settings.name} (${known.id}) is gone; looking for it by name`);
    }
    return (await o.api.listFirewalls(call)).find((f) => f.name === o.settings.name);
  }

  async function reconcile(refresh: boolean): Promise<void> {
    if (refresh || !known) {
      known = await read();
      readAt = o.now();
    }
    const { spec, notes } = desiredFirewall(services.list(), o.settings);
    const said = notes.join("\n");
    if (said !== lastNotes) for (const note of notes) logger.warn(`firewall ${o.settings.name}: ${note}`);
    lastNotes = said;
    const action = planFirewall(known, spec);
    if (action.kind === "none") return;
    if (action.kind === "update") {
      logger.info(`updating the firewall ${o.settings.name} (${action.id}): ${action.drift.join("; ")}`);
      const updated = await o.api.updateFirewall(call, action.id, action.spec);
      if (updated) {
        known = updated;
        return;
      }
      logger.warn(`the firewall ${o.settings.name} (${action.id}) was deleted meanwhile; creating it again`);
    }
    known = undefined;
    logger.info(
      `creating the firewall ${o.settings.name}: ${spec.inbound.map(ruleKey).join("; ") || "no inbound rule"}`,
    );
    known = await o.api.createFirewall(call, spec);
  }

  try {
    if (!(await waitForCacheSync([services], signal))) return;
    while (!signal.aborted) {
      const due = o.now() - readAt >= resyncMs;
      if (stale || due) {
        stale = false;
        try {
          await reconcile(due);
          failures = 0;
        } catch (err) {
          if (signal.aborted) break;
          failures++;
          stale = true;
          const delay = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (failures - 1));
          logger.error(`firewall ${o.settings.name}: ${(err as Error).message}; retrying in ${delay / 1000}s`);
          await o.sleep(delay, signal);
          continue;
        }
      }
      if (stale) continue;
      wake = new AbortController();
      await o.sleep(Math.max(0, readAt + resyncMs - o.now()), AbortSignal.any([signal, wake.signal]));
    }
  } finally {
    stop();
  }
}
