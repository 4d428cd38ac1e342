/**
 * Actions: what a mutating call returns, running from the call until `durationMs` later by the injected clock, then
 * `success` (or `error`, when a fault said so). While one runs, the resources it names are locked: another
 * mutating call on them is answered `locked`, as the API does. Status is read from the clock, so a test moves time
 * on instead of waiting.
 */
import { HcloudError } from "./errors.ts";

export type ResourceType = "server" | "load_balancer" | "network" | "certificate";

export interface ResourceRef {
  readonly id: number;
  readonly type: ResourceType;
}

export interface Action {
  id: number;
  command: string;
  status: "running" | "success" | "error";
  progress: number;
  started: string;
  finished: string | null;
  resources: ResourceRef[];
  error: { code: string; message: string } | null;
}

interface Stored {
  readonly id: number;
  readonly command: string;
  readonly resources: readonly ResourceRef[];
  readonly startedMs: number;
  readonly finishedMs: number;
  readonly error: { code: string; message: string } | null;
}

/** Actions are kept this many, newest last, so a long-running emulator does not grow without bound. */
export const ACTION_LIMIT = 10_000;

export class Actions {
  readonly #now: () => number;
  readonly #stored = new Map<number, Stored>();
  #nextId = 1;
  /** How long an action runs, in ms; 0 ⇒ it is done when the call answers. */
  durationMs: number;

  constructor(now: () => number, durationMs: number) {
    this.#now = now;
    this.durationMs = durationMs;
  }

  /** Starts an action; `error` makes it end in `error` instead of `success`. */
  start(command: string, resources: readonly ResourceRef[], error?: { code: string; message: string }): Action {
    const startedMs = this.#now();
    const id = this.#nextId++;
    const stored = { id, command, resources, startedMs, finishedMs: startedMs + this.durationMs, error: error ?? null };
    this.#stored.set(id, stored);
    if (this.#stored.size > ACTION_LIMIT) this.#stored.delete(this.#stored.keys().next().value as number);
    return this.#view(stored);
  }

  get(id: number): Action | undefined {
    const stored = this.#stored.get(id);
    return stored && this.#view(stored);
  }

  all(): Action[] {
    return [...this.#stored.values()].map((s) => this.#view(s));
  }

  /** The actions that name the resource, oldest first. */
  of(ref: ResourceRef): Action[] {
    return this.all().filter((a) => a.resources.some((r) => r.id === ref.id && r.type === ref.type));
  }

  /** Throws `locked` when an action still runs on one of `refs`. */
  assertUnlocked(...refs: ResourceRef[]): void {
    const now = this.#now();
    for (const stored of this.#stored.values()) {
      if (stored.finishedMs <= now) continue;
      const busy = stored.resources.find((r) => refs.some((x) => x.id === r.id && x.type === r.type));
      if (busy) {
        throw new HcloudError(
          "locked",
          `${busy.type} ${busy.id} is locked: action ${stored.id} (${stored.command}) is still running`,
        );
      }
    }
  }

  #view(s: Stored): Action {
    const now = this.#now();
    const done = now >= s.finishedMs;
    const span = s.finishedMs - s.startedMs;
    return {
      id: s.id,
      command: s.command,
      status: done ? (s.error ? "error" : "success") : "running",
      progress: done ? 100 : Math.min(99, Math.floor(((now - s.startedMs) / span) * 100)),
      started: new Date(s.startedMs).toISOString(),
      finished: done ? new Date(s.finishedMs).toISOString() : null,
      resources: s.resources.map((r) => ({ ...r })),
      error: done ? s.error : null,
    };
  }
}
