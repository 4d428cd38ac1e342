/**
 * The event recorder's counters (not upstream: client-go drops events silently).
 */
import { Counter, type Registry } from "prom-client";
import { perRegistry } from "./metrics.ts";

export interface EventRecorderMetrics {
  readonly dropped: Counter<"reason">;
}

export const eventRecorderMetrics = (registry: Registry): EventRecorderMetrics =>
  perRegistry(registry, "events", () => ({
    dropped: new Counter({
      name: "event_recorder_dropped_events_total",
      help: "Events not written to the API: reason=queue_full (the recorder's queue was full) or write_failed.",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
  }));
