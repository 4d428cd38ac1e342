/**
 * How the Kubernetes client paces its requests: the client-side token bucket, or the API server's own flow control;
 * and in every mode, how many requests each client has out at once.
 *
 * Kubernetes has had API Priority and Fairness (APF) on by default since 1.20; a server that runs it answers with
 * `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID`. Three modes:
 *
 * - `explicit`: the operator set `--kube-api-qps` or `--kube-api-burst`. Their token bucket holds whatever the
 *   server says (explicit flags always win).
 * - `client-side`: no APF evidence yet, or an answer (2xx, not a watch) came without the headers. The token bucket
 *   at upstream's defaults (qps 20, burst 30) holds, as in every upstream controller manager.
 * - `apf`: the flags were not set and the server answered with APF's headers. The token bucket is lifted; the
 *   server's answers pace us instead.
 *
 * Each client of the manager (a controller, the shared informers, the event recorder, leader election) is a flow
 * of its own with a concurrency window (flow-window.ts): a few requests at first, doubling per window of successes
 * up to `maxInFlight` out at once, halved by a 429 to one of its requests, then grown back by one per window of
 * successes, never below one request at a time. A 429
 * to a request the flow sent alone makes that flow wait the answer's `Retry-After` (1 s without one), as client-go
 * does; no other flow waits for it, so a rejected controller neither stalls the others nor lease renewals.
 *
 * The mode only moves from `client-side` to `apf` (one answer with the headers suffices), never back: a proxy or an
 * unauthenticated answer without headers proves nothing about a server already seen running APF. It is logged once
 * when decided, with the reason, and exposed as `cloud_controller_manager_client_pacing{mode}` (1 for the mode in
 * force).
 */
import { Gauge, type Registry } from "prom-client";
import { abortableSleep, type Now, type Sleep } from "./clock.ts";
import {
  type FlowOutcome,
  hasRoom,
  isBusy,
  openWindow,
  outcomeOf,
  settle,
  type Ticket,
  ticketFor,
} from "./flow-window.ts";
import { parseRetryAfter } from "./http.ts";
import { createTokenBucket } from "./rate-limiter.ts";

export type PacingMode = "explicit" | "client-side" | "apf";

export const PACING_MODES: readonly PacingMode[] = ["explicit", "client-side", "apf"];

/** APF's response headers (k8s.io/apiserver flowcontrol filter). */
export const APF_HEADERS = ["x-kubernetes-pf-flowschema-uid", "x-kubernetes-pf-prioritylevel-uid"] as const;

/** Upstream's `--kube-api-qps`/`--kube-api-burst` defaults. */
export const DEFAULT_QPS = 20;
export const DEFAULT_BURST = 30;

/** Requests one client may have awaiting their answer at once, in every mode: its window when fully open. */
export const DEFAULT_MAX_IN_FLIGHT = 32;
/** A flow's pause after a 429, sent alone, that names no `Retry-After` (APF's own rejections say 1 s). */
export const DEFAULT_RETRY_AFTER_MS = 1000;
/** The longest pause one `Retry-After` may impose; a larger value is taken as this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** What a request's answer tells the pacing. */
export interface Answer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** A watch or other long-running request: APF does not handle these, so no headers are expected. */
  readonly longRunning?: boolean;
}

/** One request's place: `done` exactly once, with the answer or without one (a transport failure, an abort). */
export interface Admission {
  /**
   * Frees the place; true when the answer was API Priority and Fairness's rejection (a 429 with its headers): the
   * request never ran, so it may be sent again, through `admit` (the flow's window has narrowed by then, or the
   * flow waits the Retry-After).
   */
  done(answer?: Answer): boolean;
}

/** The pacing of one client. */
export interface Pacer {
  /** Resolves when the request may go; rejects with the signal's reason if it aborts first. */
  admit(signal?: AbortSignal): Promise<Admission>;
}

export interface PacingOptions {
  readonly qps: number;
  readonly burst: number;
  /** The operator set `--kube-api-qps` or `--kube-api-burst`: their bucket holds, the server is not consulted. */
  readonly explicit: boolean;
  readonly maxInFlight?: number;
  readonly now?: Now;
  readonly sleep?: Sleep;
  /** Told once which mode is in force and why (and again if APF is seen after client-side was decided). */
  readonly log?: (message: string) => void;
  readonly registry?: Registry | undefined;
}

/** The pacing shared by every client of one manager: the mode; each client gets a pacer (a flow) of its own. */
export interface Pacing {
  readonly mode: PacingMode;
  /** A client's pacer: its own window, pause and token bucket. */
  pacer(): Pacer;
}

const byRegistry = new WeakMap<Registry, Gauge<"mode">>();

/** `cloud_controller_manager_client_pacing{mode}` on `registry`, registered once. */
export function pacingMetric(registry: Registry): Gauge<"mode"> {
  let gauge = byRegistry.get(registry);
  if (!gauge) {
    gauge = new Gauge({
      name: "cloud_controller_manager_client_pacing",
      help:
        "How the Kubernetes client paces its requests, 1 for the mode in force: explicit (--kube-api-qps/--kube-api-burst " +
        "set), client-side (upstream's token bucket, the API server showed no flow control), apf (the API server's " +
        "Priority and Fairness paces us). Not upstream.",
      labelNames: ["mode"],
      registers: [registry],
    });
    byRegistry.set(registry, gauge);
  }
  return gauge;
}

export const hasApfHeaders = (headers: Answer["headers"]): boolean => APF_HEADERS.some((h) => headers.get(h) !== null);

export function createPacing(opts: PacingOptions): Pacing {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const maxInFlight = Math.max(1, Math.floor(opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT));
  const gauge = opts.registry && pacingMetric(opts.registry);
  let mode: PacingMode = opts.explicit ? "explicit" : "client-side";
  let decided = false;

  const setMode = (next: PacingMode, why: string) => {
    mode = next;
    decided = true;
    for (const m of PACING_MODES) gauge?.set({ mode: m }, m === next ? 1 : 0);
    opts.log?.(why);
  };
  for (const m of PACING_MODES) gauge?.set({ mode: m }, m === mode ? 1 : 0);
  if (opts.explicit) {
    setMode(
      "explicit",
      `Kubernetes client pacing: client-side token bucket at --kube-api-qps=${opts.qps} --kube-api-burst=${opts.burst}, set explicitly (the API server's flow control is not consulted), at most ${maxInFlight} requests in flight per client, halved on each 429`,
    );
  }

  const observe = (answer: Answer) => {
    if (mode === "explicit" || mode === "apf" || answer.longRunning) return;
    if (hasApfHeaders(answer.headers)) {
      setMode(
        "apf",
        `Kubernetes client pacing: the API server's flow control (APF headers seen, --kube-api-qps/--kube-api-burst not set): client-side token bucket lifted, at most ${maxInFlight} requests in flight per client, halved on each 429`,
      );
    } else if (!decided && answer.status >= 200 && answer.status < 300) {
      setMode(
        "client-side",
        `Kubernetes client pacing: client-side token bucket at upstream's defaults --kube-api-qps=${opts.qps} --kube-api-burst=${opts.burst} (the API server answered without APF headers)`,
      );
    }
  };

  /** When a 429 says the flow may go again. */
  const pauseEnd = (answer: Answer): number => {
    const ms = parseRetryAfter(answer.headers.get("retry-after"), now) ?? DEFAULT_RETRY_AFTER_MS;
    return now() + Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  };

  return {
    get mode() {
      return mode;
    },
    pacer(): Pacer {
      const bucket = createTokenBucket({ qps: opts.qps, burst: opts.burst, now, sleep });
      const flow = createFlowSlots(maxInFlight);
      let pausedUntil = 0;
      const waitOutPause = async (signal?: AbortSignal) => {
        for (let t = now(); t < pausedUntil; t = now()) {
          await sleep(pausedUntil - t, signal);
          if (signal?.aborted) throw signal.reason;
        }
      };

      return {
        async admit(signal) {
          if (signal?.aborted) throw signal.reason;
          const ticket = await flow.take(signal);
          try {
            // Holding its slot: a pause set by the answer that freed it holds this request too.
            await waitOutPause(signal);
            if (mode !== "apf") await bucket.wait(signal);
          } catch (err) {
            flow.give(ticket, "neutral");
            throw err;
          }
          let once = false;
          return {
            done(answer) {
              if (once) return false;
              once = true;
              if (answer) observe(answer);
              const outcome = outcomeOf(answer?.status, answer?.longRunning);
              const pause = flow.give(ticket, outcome);
              if (pause && answer) pausedUntil = Math.max(pausedUntil, pauseEnd(answer));
              return outcome === "rejected" && answer !== undefined && hasApfHeaders(answer.headers);
            },
          };
        },
      };
    },
  };
}

/** One flow's window (flow-window.ts) and the requests waiting for one of its slots, served in order. */
function createFlowSlots(max: number) {
  let window = openWindow(max);
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const grant = (): Ticket => {
    const ticket = ticketFor(window);
    inFlight += 1;
    return ticket;
  };
  return {
    take(signal?: AbortSignal): Promise<Ticket> {
      if (hasRoom(window, inFlight) && waiting.length === 0) return Promise.resolve(grant());
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<Ticket>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener("abort", abort);
          resolve(grant());
        };
        const abort = () => {
          const i = waiting.indexOf(go);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal?.reason);
        };
        waiting.push(go);
        signal?.addEventListener("abort", abort, { once: true });
      });
    },
    /** Frees the ticket's slot, the window settled by the outcome; true when the flow must wait out a Retry-After. */
    give(ticket: Ticket, outcome: FlowOutcome): boolean {
      const step = settle(window, ticket, outcome, isBusy(window, inFlight, waiting.length));
      window = step.window;
      inFlight -= 1;
      while (hasRoom(window, inFlight) && waiting.length > 0) waiting.shift()?.();
      return step.pause;
    },
  };
}

/** A pacer that is only a token bucket (tests and tools that build a client without a manager's pacing). */
export function tokenBucketPacer(opts: { qps: number; burst: number; now?: Now; sleep?: Sleep }): Pacer {
  const bucket = createTokenBucket(opts);
  const admission: Admission = { done: () => false };
  return {
    async admit(signal) {
      await bucket.wait(signal);
      return admission;
    },
  };
}
