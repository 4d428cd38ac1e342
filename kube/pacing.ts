/**
 * How the Kubernetes client paces its requests: the client-side token bucket, or the API server's own flow control.
 *
 * Kubernetes has had API Priority and Fairness (APF) on by default since 1.20; a server that runs it answers with
 * `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID`. Three modes:
 *
 * - `explicit`: the operator set `--kube-api-qps` or `--kube-api-burst`. Their token bucket holds whatever the
 *   server says (explicit flags always win).
 * - `client-side`: no APF evidence yet, or an answer (2xx, not a watch) came without the headers. The token bucket
 *   at upstream's defaults (qps 20, burst 30) holds, as in every upstream controller manager.
 * - `apf`: the flags were not set and the server answered with APF's headers. The token bucket is lifted; the
 *   server's answers pace us instead: a 429 (APF's rejection, or any throttling answer) pauses every client of
 *   this pacing for its `Retry-After` (1 s without one) and halves the answering client's in-flight bound, which
 *   grows back by one per success window; at most `maxInFlight` requests of one client are out at once.
 *
 * The mode only moves from `client-side` to `apf` (one answer with the headers suffices), never back: a proxy or an
 * unauthenticated answer without headers proves nothing about a server already seen running APF. It is logged once
 * when decided, with the reason, and exposed as `cloud_controller_manager_client_pacing{mode}` (1 for the mode in
 * force). A 429's `Retry-After` pauses the clients in every mode, as client-go waits it out before a retry.
 */
import { Gauge, type Registry } from "prom-client";
import { abortableSleep, type Now, type Sleep } from "./clock.ts";
import { parseRetryAfter } from "./http.ts";
import { createTokenBucket } from "./rate-limiter.ts";

export type PacingMode = "explicit" | "client-side" | "apf";

export const PACING_MODES: readonly PacingMode[] = ["explicit", "client-side", "apf"];

/** APF's response headers (k8s.io/apiserver flowcontrol filter). */
export const APF_HEADERS = ["x-kubernetes-pf-flowschema-uid", "x-kubernetes-pf-prioritylevel-uid"] as const;

/** Upstream's `--kube-api-qps`/`--kube-api-burst` defaults. */
export const DEFAULT_QPS = 20;
export const DEFAULT_BURST = 30;

/** Requests one client may have awaiting their answer at once under APF. */
export const DEFAULT_MAX_IN_FLIGHT = 32;
/** The pause after a 429 that names no `Retry-After` (APF's own rejections say 1 s). */
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
  done(answer?: Answer): void;
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

/** The pacing shared by every client of one manager: the mode and a 429's pause; each client gets its own pacer. */
export interface Pacing {
  readonly mode: PacingMode;
  /** A client's pacer; `scope` says whose pause a 429 sets and which pauses it waits out (PacerScope). */
  pacer(opts?: { readonly scope?: PacerScope }): Pacer;
}

/**
 * - `shared` (the controllers, the informers): a 429 pauses every shared and background client; waits that pause.
 * - `background` (the event recorder): a 429 pauses only this client, so events never delay Node writes; it still
 *   waits out the shared pause.
 * - `isolated` (leader election): a 429 pauses only this client, and it never waits for the others' pause, so a
 *   throttled controller cannot make the lease renewals miss their deadline.
 */
export type PacerScope = "shared" | "background" | "isolated";

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
  let pausedUntil = 0;

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
      `Kubernetes client pacing: client-side token bucket at --kube-api-qps=${opts.qps} --kube-api-burst=${opts.burst}, set explicitly (the API server's flow control is not consulted)`,
    );
  }

  /** When a 429 says the pause ends, or undefined for any other answer. */
  const pauseEnd = (answer: Answer): number | undefined => {
    if (answer.status !== 429) return undefined;
    const ms = parseRetryAfter(answer.headers.get("retry-after"), now) ?? DEFAULT_RETRY_AFTER_MS;
    return now() + Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  };

  const observe = (answer: Answer) => {
    if (mode === "explicit" || mode === "apf" || answer.longRunning) return;
    if (hasApfHeaders(answer.headers)) {
      setMode(
        "apf",
        `Kubernetes client pacing: the API server's flow control (APF headers seen, --kube-api-qps/--kube-api-burst not set): client-side token bucket lifted, at most ${maxInFlight} requests in flight per client, 429 Retry-After honoured`,
      );
    } else if (!decided && answer.status >= 200 && answer.status < 300) {
      setMode(
        "client-side",
        `Kubernetes client pacing: client-side token bucket at upstream's defaults --kube-api-qps=${opts.qps} --kube-api-burst=${opts.burst} (the API server answered without APF headers)`,
      );
    }
  };

  const waitOutPause = async (pauses: () => number, signal?: AbortSignal) => {
    for (let t = now(), until = pauses(); t < until; ) {
      await sleep(until - t, signal);
      if (signal?.aborted) throw signal.reason;
      t = now();
      until = pauses();
    }
  };

  return {
    get mode() {
      return mode;
    },
    pacer(o = {}): Pacer {
      const scope = o.scope ?? "shared";
      const bucket = createTokenBucket({ qps: opts.qps, burst: opts.burst, now, sleep });
      let ownPausedUntil = 0;
      const heard = (answer: Answer) => {
        const end = pauseEnd(answer);
        if (end !== undefined && scope === "shared") pausedUntil = Math.max(pausedUntil, end);
        else if (end !== undefined) ownPausedUntil = Math.max(ownPausedUntil, end);
        observe(answer);
      };
      const pauseToWait = scope === "isolated" ? () => 0 : () => pausedUntil;
      // Additive increase, multiplicative decrease of this client's in-flight bound under APF.
      let limit = maxInFlight;
      let inFlight = 0;
      const waiting: Array<() => void> = [];
      const release = () => {
        inFlight -= 1;
        while (inFlight < Math.floor(limit) && waiting.length > 0) {
          inFlight += 1;
          waiting.shift()?.();
        }
      };
      const slot = (signal?: AbortSignal): Promise<void> => {
        if (inFlight < Math.floor(limit) && waiting.length === 0) {
          inFlight += 1;
          return Promise.resolve();
        }
        if (signal?.aborted) return Promise.reject(signal.reason);
        return new Promise<void>((resolve, reject) => {
          const go = () => {
            signal?.removeEventListener("abort", abort);
            resolve();
          };
          const abort = () => {
            const i = waiting.indexOf(go);
            if (i >= 0) waiting.splice(i, 1);
            reject(signal?.reason);
          };
          waiting.push(go);
          signal?.addEventListener("abort", abort, { once: true });
        });
      };

      return {
        async admit(signal) {
          if (signal?.aborted) throw signal.reason;
          await waitOutPause(() => Math.max(pauseToWait(), ownPausedUntil), signal);
          if (mode !== "apf") {
            await bucket.wait(signal);
            return { done: (answer) => answer && heard(answer) };
          }
          await slot(signal);
          let once = false;
          return {
            done(answer) {
              if (once) return;
              once = true;
              if (answer?.status === 429) limit = Math.max(1, limit / 2);
              else if (answer && answer.status < 500) limit = Math.min(maxInFlight, limit + 1 / limit);
              if (answer) heard(answer);
              release();
            },
          };
        },
      };
    },
  };
}

/** A pacer that is only a token bucket (tests and tools that build a client without a manager's pacing). */
export function tokenBucketPacer(opts: { qps: number; burst: number; now?: Now; sleep?: Sleep }): Pacer {
  const bucket = createTokenBucket(opts);
  const admission: Admission = { done: () => {} };
  return {
    async admit(signal) {
      await bucket.wait(signal);
      return admission;
    },
  };
}
