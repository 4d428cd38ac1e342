/**
 * Fault injection every cloud API emulator offers through its control API: latency before every answer, a rate of
 * server errors, and "answer the next N calls with this error" rules matched by method and path prefix. The codes
 * are the cloud's own (its error envelope's); the random source is injected so a seed repeats a run exactly. An
 * emulator with more kinds of fault (hcloud's failed actions) extends `FaultRules` and adds entries to the schema.
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** One "fail the next `count` calls" rule; `key` is the field naming the cloud's error (`code`, DO's `id`). */
export function failRule<C extends string, K extends string>(key: K, codes: readonly C[], example: string) {
  return v.strictObject({
    /** Upper-case HTTP method; absent ⇒ any. */
    method: v.exactOptional(v.pipe(v.string(), v.toUpperCase(), v.picklist(methods))),
    /** Calls whose path (after the API's prefix) starts with this. */
    pathPrefix: v.pipe(v.string(), v.startsWith("/", `must start with '/', e.g. ${example}`)),
    count: v.pipe(v.number(), v.integer(), v.minValue(1)),
    ...({ [key]: v.picklist(codes as [C, ...C[]]) } as { [P in K]: v.PicklistSchema<[C, ...C[]], undefined> }),
  });
}

/** The entries every emulator's fault schema has; spread them into its `v.strictObject`. */
export function faultEntries<R extends v.GenericSchema>(rule: R) {
  return {
    latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)), 0),
    errorRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
    failNext: v.optional(v.array(rule), []),
  };
}

export interface BaseFaultConfig {
  latencyMs: number;
  errorRate: number;
  failNext: { method?: string; pathPrefix: string; count: number }[];
}

export interface FaultRulesOptions<C extends BaseFaultConfig, E> {
  readonly random: Random;
  readonly schema: v.GenericSchema<unknown, C>;
  /** The error a `failNext` rule answers with. */
  readonly ruleError: (rule: C["failNext"][number]) => E;
  /** The error the error rate answers with. */
  readonly rateError: () => E;
}

export class FaultRules<C extends BaseFaultConfig, E> {
  readonly #o: FaultRulesOptions<C, E>;
  protected config: C;

  constructor(options: FaultRulesOptions<C, E>) {
    this.#o = options;
    this.config = v.parse(options.schema, {});
  }

  /** The configuration, with the counts the rules have left. */
  get(): C {
    return structuredClone(this.config);
  }

  /** Replaces the whole configuration (already checked by the schema). */
  set(config: C): C {
    this.config = structuredClone(config);
    return this.get();
  }

  get latencyMs(): number {
    return this.config.latencyMs;
  }

  /** The error a call gets instead of its answer: the first matching rule, else the error rate; else undefined. */
  check(method: string, path: string): E | undefined {
    const rule = this.config.failNext.find(
      (r) => (r.method === undefined || r.method === method) && path.startsWith(r.pathPrefix),
    );
    if (rule) {
      this.config.failNext = consume(this.config.failNext, rule);
      return this.#o.ruleError(rule);
    }
    if (this.config.errorRate > 0 && this.#o.random() < this.config.errorRate) return this.#o.rateError();
    return undefined;
  }
}

/** One use of `rule`: its count goes down, and it leaves the list at 0. */
export function consume<R extends { count: number }>(rules: R[], rule: R): R[] {
  rule.count--;
  return rule.count > 0 ? rules : rules.filter((r) => r !== rule);
}
