/**
 * Fault injection for the OpenStack emulator: latency before every API answer, a rate of 500 answers, and "answer
 * the next N calls under this path with this status" rules (a 503 from Nova, a 409, a 401 for a revoked token…).
 * Each answer is in the envelope of the service it hit. The random source is injected so a seed repeats a run.
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { OsError } from "./errors.ts";

const failRule = v.strictObject({
  /** Upper-case HTTP method; absent ⇒ any. */
  method: v.exactOptional(v.pipe(v.string(), v.toUpperCase(), v.picklist(["GET", "POST", "PUT", "DELETE"]))),
  /** Calls whose path starts with this, e.g. `/compute/v2.1/servers`. */
  pathPrefix: v.pipe(v.string(), v.startsWith("/", "must start with '/', e.g. /compute/v2.1/servers")),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
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
  check(method: string, path: string): OsError | undefined {
    const rule = this.#config.failNext.find(
      (r) => (r.method === undefined || r.method === method) && path.startsWith(r.pathPrefix),
    );
    if (rule) {
      rule.count--;
      if (rule.count === 0) this.#config.failNext = this.#config.failNext.filter((r) => r !== rule);
      return new OsError(rule.status, `injected fault: ${rule.status}`);
    }
    if (this.#config.errorRate > 0 && this.#random() < this.#config.errorRate) {
      return new OsError(500, "injected fault: the error rate");
    }
    return undefined;
  }
}
