/**
 * The event recorder: core/v1 Events as upstream's legacy recorder writes them, without ever blocking a controller.
 *
 * - `event()` returns at once; events go through a bounded queue (`DEFAULT_MAX_QUEUE`) to up to
 *   `EVENT_WRITES_IN_FLIGHT` writes at once, one at a time per event key (./keyed-writers.ts): events about
 *   different objects are written in parallel, a repeat waits for its predecessor. A full queue drops the event and
 *   counts it (`event_recorder_dropped_events_total{reason="queue_full"}`).
 * - A repeat of the same (object, type, reason, message, source) within the window PATCHes `count` and
 *   `lastTimestamp` of the event already written instead of creating another (client-go's correlator; its
 *   message aggregation and per-object spam filter are not reproduced). If that event is gone, it is re-created.
 * - Write failures are counted; the first of a run of failures is logged as an error, the rest at debug level until
 *   a write succeeds again. Events are best effort, as upstream: a refusal is not retried, except a 429 (the API
 *   server's flow control, or a throttling proxy), which waits its Retry-After (1 s without one) and tries again, up
 *   to 5 tries in all, as client-go's REST client does under upstream's recorder. The wait holds only that event's
 *   write (and its key's repeats); the other writes go on, within what the client's pacer allows. The recorder has
 *   a client and pacer of its own (kube/pacing.ts: a flow with its own window, and its token bucket at
 *   `--kube-api-qps` when the operator set it), so events never delay Node writes, and a node's `Synced`
 *   event is written seconds after its initialisation even when thousands of Nodes initialise at once.
 * - Naming and placement as upstream: `<object name>.<hex nanoseconds>`, in the object's namespace, `default` for
 *   cluster-scoped objects such as nodes. The nanoseconds are unique in the process (`eventNanos`), across all its
 *   recorders, as client-go's nanosecond clock makes them; a name taken anyway (another process, a clock set back) is
 *   answered 409 AlreadyExists, and the event is created again under a fresh name rather than dropped.
 */

import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import {
  isAlreadyExists,
  isNotFound,
  KubeApiError,
  type KubeClient,
  type ResourceRef,
  Resources,
} from "../kube/client-types.ts";
import type { Now, Sleep } from "../kube/clock.ts";
import { abortableSleep } from "../kube/clock.ts";
import type { Event, KubeObject, ObjectReference } from "../kube/objects.ts";
import { isTermOver } from "../kube/write-fence.ts";
import { type EventRecorderMetrics, eventRecorderMetrics } from "./events-metrics.ts";
import { createKeyedWriters } from "./keyed-writers.ts";
import { formatTime } from "./timestamps.ts";

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  /** Queues an event about `object`; never throws, never waits. */
  event(object: ObjectReference, type: EventType, reason: string, message: string): void;
  /** Resolves when every queued event has been written (or has failed). */
  flush(): Promise<void>;
  /** Stops accepting events and flushes the queue. */
  stop(): Promise<void>;
}

export interface EventRecorderOptions {
  readonly client: KubeClient;
  /** `source.component` and `reportingComponent`, e.g. `cloud-node-controller`. */
  readonly component: string;
  /** `source.host` and `reportingInstance`. */
  readonly host?: string;
  readonly logger: ConsolaInstance;
  readonly now: Now;
  /** Waits out a 429's Retry-After before the next try (default: the wall clock). */
  readonly sleep?: Sleep;
  /** Events waiting to be written (those in flight not counted) before new ones are dropped. `DEFAULT_MAX_QUEUE`. */
  readonly maxQueue?: number;
  /** Event writes in flight at once. `EVENT_WRITES_IN_FLIGHT`. */
  readonly maxInFlight?: number;
  /** Repeats within this window update the existing event. Default 10 minutes. */
  readonly dedupWindowMs?: number;
  /** Distinct events remembered for de-duplication (least recently seen forgotten first). Default 4096. */
  readonly cacheSize?: number;
  readonly registry?: Registry;
}

/** A reference with `apiVersion` filled in from the resource (upstream tests require it for nodes). */
export const objectReference = (ref: ResourceRef, obj: KubeObject): ObjectReference => {
  const meta = obj.metadata ?? {};
  const reference: ObjectReference = {
    apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version,
    kind: ref.kind,
    name: meta.name ?? "",
  };
  if (ref.namespaced && meta.namespace) reference.namespace = meta.namespace;
  if (meta.uid) reference.uid = meta.uid;
  if (meta.resourceVersion) reference.resourceVersion = meta.resourceVersion;
  return reference;
};

/** `{apiVersion: "v1", kind: "Node", name, uid}` — the explicit node reference upstream's controllers build. */
export const nodeReference = (name: string, uid?: string): ObjectReference =>
  uid ? { apiVersion: "v1", kind: "Node", name, uid } : { apiVersion: "v1", kind: "Node", name };

interface Pending {
  readonly object: ObjectReference;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly at: number;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastSeen: number;
}

/**
 * Event writes one recorder has in flight at once. One writer at 5-10 ms a POST (more on a busy API server) could
 * not keep up with thousands of Nodes initialised within seconds: at 5000 Nodes two thirds of the `Synced` events
 * were dropped from a full queue and the rest were 20-40 s late. 16 writes outrun the node controller's own writes;
 * the client's pacer still holds them (its token bucket at an explicit `--kube-api-qps`, and its window of at most
 * kube/pacing.ts's DEFAULT_MAX_IN_FLIGHT, 32, per client, which the recorders of one manager share).
 */
export const EVENT_WRITES_IN_FLIGHT = 16;
/**
 * Events waiting before new ones are dropped: upstream's broadcaster queue (client-go's `maxQueuedEvents`), which
 * drops when full too. With parallel writers it drains 16 times faster than one writer, so a burst of Nodes no
 * longer fills it; a bigger bound would only hold more memory (about half a KiB an event) for events that would be
 * late anyway.
 */
export const DEFAULT_MAX_QUEUE = 1000;

/**
 * The last nanosecond stamp handed out. Process-wide on purpose: each controller has its own recorder, and two
 * recorders naming events from millisecond clocks with counters of their own gave two events about one object the
 * same name, so the second was refused 409 and lost.
 */
let lastNanos = 0n;

/** A stamp for an event written at `atMs`: its time in nanoseconds, past every stamp this process handed out. */
export const eventNanos = (atMs: number): bigint => {
  const nanos = BigInt(Math.floor(atMs)) * 1_000_000n;
  lastNanos = nanos > lastNanos ? nanos : lastNanos + 1n;
  return lastNanos;
};

/** Creates of one event answered 409 AlreadyExists, each under a fresh name, before it is dropped. */
const NAME_TAKEN_TRIES = 5;

/** Tries of one event write answered 429 before it is dropped. */
const THROTTLED_TRIES = 5;
const DEFAULT_THROTTLE_WAIT_MS = 1000;
/** Longer Retry-Afters are cut to this, so stopping never waits long on an event. */
const MAX_THROTTLE_WAIT_MS = 10_000;

export const createEventRecorder = (options: EventRecorderOptions): EventRecorder => {
  const { client, component, host, logger, now } = options;
  const sleep = options.sleep ?? abortableSleep;
  const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
  const window = options.dedupWindowMs ?? 10 * 60_000;
  const cacheSize = options.cacheSize ?? 4096;
  const metrics: EventRecorderMetrics | undefined = options.registry && eventRecorderMetrics(options.registry);
  const source = host ? { component, host } : { component };
  const seen = new Map<string, Seen>();
  let stopped = false;
  let failing = false;
  let warnedFull = false;

  const keyOf = (p: Pending): string => {
    const o = p.object;
    return JSON.stringify([
      component,
      host ?? "",
      o.kind,
      o.namespace,
      o.name,
      o.fieldPath,
      o.uid,
      o.apiVersion,
      p.type,
      p.reason,
      p.message,
    ]);
  };

  const remember = (key: string, entry: Seen) => {
    seen.delete(key);
    seen.set(key, entry);
    if (seen.size > cacheSize) seen.delete(seen.keys().next().value as string);
  };

  const create = async (p: Pending, name: string, count: number, firstTimestamp: string): Promise<Event> => {
    const namespace = p.object.namespace || "default";
    const body: Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace },
      involvedObject: p.object,
      reason: p.reason,
      message: p.message,
      type: p.type,
      source,
      firstTimestamp,
      lastTimestamp: formatTime(p.at),
      count,
      reportingComponent: component,
      reportingInstance: host ?? "",
    };
    return client.create<Event>(Resources.events, body, { namespace });
  };

  /** Creates the event under `name`, or under a fresh name each time the one tried is taken. */
  const createNamed = async (p: Pending, name: string, count: number, firstTimestamp: string) => {
    for (let tries = 1; ; tries++) {
      try {
        const created = await create(p, name, count, firstTimestamp);
        return { created, name };
      } catch (err) {
        if (!isAlreadyExists(err) || tries >= NAME_TAKEN_TRIES) throw err;
        name = `${p.object.name}.${eventNanos(p.at).toString(16)}`;
      }
    }
  };

  const write = async (p: Pending): Promise<void> => {
    const key = keyOf(p);
    const previous = seen.get(key);
    const lastTimestamp = formatTime(p.at);
    if (previous && p.at - previous.lastSeen <= window) {
      const count = previous.count + 1;
      const opts = { namespace: previous.namespace };
      let name = previous.name;
      try {
        await client.patch<Event>(Resources.events, previous.name, "strategic", { count, lastTimestamp }, opts);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        ({ name } = await createNamed(p, previous.name, count, previous.firstTimestamp));
      }
      remember(key, { ...previous, name, count, lastSeen: p.at });
      return;
    }
    const { created, name } = await createNamed(
      p,
      `${p.object.name}.${eventNanos(p.at).toString(16)}`,
      1,
      lastTimestamp,
    );
    const namespace = created.metadata?.namespace ?? p.object.namespace ?? "default";
    remember(key, { name, namespace, count: 1, firstTimestamp: lastTimestamp, lastSeen: p.at });
  };

  /** `attempt` again after each 429's Retry-After, up to THROTTLED_TRIES in all; any other failure is final. */
  const throttled = async (attempt: () => Promise<void>): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 429) || tries >= THROTTLED_TRIES || stopped) throw err;
        await sleep(Math.min(err.retryAfterMs ?? DEFAULT_THROTTLE_WAIT_MS, MAX_THROTTLE_WAIT_MS));
      }
    }
  };

  const writeOne = async (p: Pending) => {
    try {
      await throttled(() => write(p));
      failing = false;
    } catch (err) {
      seen.delete(keyOf(p));
      metrics?.dropped.inc({ reason: "write_failed" });
      const text = `Server rejected event (will not retry!) ${p.object.kind}/${p.object.name} ${p.reason}: ${(err as Error).message}`;
      // An event refused because the term ended (stopping, or leadership lost) is expected, not the server's fault.
      if (failing || isTermOver(err)) logger.debug(text);
      else logger.error(text);
      failing = true;
    }
  };

  // The key is the de-duplication key: a repeat waits for the write that created (or last patched) its event.
  const writers = createKeyedWriters<Pending>({
    maxInFlight: options.maxInFlight ?? EVENT_WRITES_IN_FLIGHT,
    maxQueued: maxQueue,
    keyOf,
    write: writeOne,
  });

  return {
    event(object, type, reason, message) {
      if (stopped) return;
      if (type !== "Normal" && type !== "Warning") {
        logger.error(`Unsupported event type: '${type}'`);
        return;
      }
      logger.debug(
        `Event occurred object="${object.namespace ? `${object.namespace}/` : ""}${object.name}" kind="${object.kind}" apiVersion="${object.apiVersion ?? ""}" type="${type}" reason="${reason}" message="${message}"`,
      );
      if (!writers.offer({ object: { ...object }, type, reason, message, at: now() })) {
        metrics?.dropped.inc({ reason: "queue_full" });
        if (!warnedFull) logger.warn(`event queue full (${maxQueue}); dropping events`);
        warnedFull = true;
        return;
      }
      warnedFull = false;
    },
    flush() {
      return writers.idle();
    },
    async stop() {
      stopped = true;
      await writers.idle();
    },
  };
};
