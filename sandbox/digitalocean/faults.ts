/**
 * Fault injection for the DigitalOcean emulator: latency before every answer, a rate of `server_error` answers,
 * and "answer the next N calls with this error" rules (429 `too_many_requests`, 422 `unprocessable_entity`, 5xx).
 * The random source is injected so a seed repeats a run exactly.
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { DoError, type ErrorId, errorIds } from "./errors.ts";

const failRule = v.strictObject({
  /** Upper-case HTTP method; absent ⇒ any. */
  method: v.exactOptional(v.pipe(v.string(), v.toUpperCase(), v.picklist(["GET", "POST", "PUT", "DELETE"]))),
  /** Calls whose path (after `/v2`) starts with this, e.g. `/load_balancers`. */
  pathPrefix: v.pipe(v.string(), v.startsWith("/", "must start with '/', e.g. /load_balancers")),
  id: v.picklist(errorIds as [ErrorId, ...ErrorId[]]),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const faultsSchema = v.strictObject({
  latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)), 0),
  errorRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
  failNext: v.optional(v.array(failRule), []),
});

export type FaultConfig = v.InferOutput<typeof faultsSchema>;

export class Faults {
  readonly #random: Random;
  #config: FaultConfig = v.parse(faultsSchema, {});

  constructor(random: Random) {
    this.#random = random;
  }

  /** The configuration, with the counts the rules have left. */
  get(): FaultConfig {
    return structuredClone(this.#config);
  }

  /** Replaces the whole configuration (already parsed by `faultsSchema`). */
  set(config: FaultConfig): FaultConfig {
    this.#config = structuredClone(config);
    return this.get();
  }

  get latencyMs(): number {
    return this.#config.latencyMs;
  }

  /** The error a call gets instead of its answer: the first matching rule, else the error rate; else undefined. */
  check(method: string, path: string): DoError | undefined {
    const rule = this.#config.failNext.find(
      (r) => (r.method === undefined || r.method === method) && path.startsWith(r.pathPrefix),
    );
    if (rule) {
      rule.count--;
      if (rule.count === 0) this.#config.failNext = this.#config.failNext.filter((r) => r !== rule);
      return new DoError(rule.id, `injected fault: ${rule.id}`);
    }
    if (this.#config.errorRate > 0 && this.#random() < this.#config.errorRate) {
      return new DoError("server_error", "injected fault: the error rate");
    }
    return undefined;
  }
}
