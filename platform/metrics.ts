/**
 * What every floor's metrics are built with. Kubernetes' metrics library prefixes help texts with the stability
 * level (`[ALPHA] …`, `[BETA] …`); we do the same so scrapes read like upstream's.
 *
 * Metrics live in a registry made by `createMetricsRegistry()` — never prom-client's global one — and each floor's
 * accessors are get-or-create per registry (`perRegistry`), so several controllers, queues and providers can share
 * one registry.
 */
import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * How often the event-loop delay is sampled for `nodejs_eventloop_lag_*`. prom-client's default, 10 ms, is a timer
 * that wakes the process 100 times a second: about 0.6 % of a core on an idle 2-core host, most of the idle
 * manager's CPU (docs/performance.md). Once a second keeps the metrics and lets an idle manager sleep.
 */
export const EVENT_LOOP_SAMPLE_MS = 1000;

/** A registry with the process and runtime metrics (`process_*`, `nodejs_*`) already in it. */
export const createMetricsRegistry = ({ defaultMetrics = true }: { defaultMetrics?: boolean } = {}): Registry => {
  const registry = new Registry();
  if (defaultMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
};

/** `count` buckets from `start`, each `factor` times the previous (upstream `ExponentialBuckets`). */
export const exponentialBuckets = (start: number, factor: number, count: number): number[] => {
  const buckets: number[] = [];
  for (let next = start, i = 0; i < count; i++, next *= factor) buckets.push(next);
  return buckets;
};

/** A help text at upstream's ALPHA stability level. */
export const alpha = (help: string) => `[ALPHA] ${help}`;
/** A help text at upstream's BETA stability level. */
export const beta = (help: string) => `[BETA] ${help}`;

const cached = new WeakMap<Registry, Map<string, unknown>>();

/** One instance per registry and key: metrics cannot be registered twice, and unfinished-work gauges need state. */
export const perRegistry = <T>(registry: Registry, key: string, make: () => T): T => {
  let entries = cached.get(registry);
  if (!entries) {
    entries = new Map();
    cached.set(registry, entries);
  }
  if (!entries.has(key)) entries.set(key, make());
  return entries.get(key) as T;
};
