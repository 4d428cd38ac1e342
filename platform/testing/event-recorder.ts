/**
 * The event recorder's test bed: a recorder of `cloud-node-controller` on `cp-1` over the emulator client, driven by
 * a fake clock, with its metrics registry and captured logs.
 */

import { Resources } from "../../kube/client-types.ts";
import type { Event } from "../../kube/objects.ts";
import { FakeClock } from "../../kube/testdata/fake-clock.ts";
import { createEventRecorder } from "../events.ts";
import { createMetricsRegistry } from "../metrics.ts";
import { EmulatorKubeClient } from "./emulator-client.ts";
import { captureLogger } from "./logger.ts";

export function recorderBed(overrides: { maxQueue?: number; maxInFlight?: number } = {}) {
  const clock = new FakeClock("2026-01-01T00:00:00Z");
  const client = new EmulatorKubeClient({ now: clock.now });
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const { logger, logs } = captureLogger();
  const recorder = createEventRecorder({
    client,
    component: "cloud-node-controller",
    host: "cp-1",
    logger,
    now: clock.now,
    sleep: clock.sleep,
    registry,
    ...overrides,
  });
  const events = () => client.all<Event>(Resources.events);
  /** `event_recorder_dropped_events_total{reason}` as the registry says it now. */
  const dropped = async (reason: string) =>
    Number(
      new RegExp(`event_recorder_dropped_events_total\\{reason="${reason}"\\} (\\d+)`).exec(
        await registry.metrics(),
      )?.[1] ?? 0,
    );
  return { clock, client, registry, logs, recorder, events, dropped };
}
