/**
 * Fault injection for the Hetzner Cloud emulator: latency before every answer, an error rate of `server_error`,
 * "answer the next N calls with this code" rules (`locked`, `conflict`, `bad_gateway`, …) and "end the next N
 * actions in error". The random source is injected so a seed repeats a run exactly.
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { type ErrorCode, errorCodes, HcloudError } from "./errors.ts";

const failRule = v.strictObject({
  /** Upper-case HTTP method; absent ⇒ any. */
  method: v.exactOptional(v.pipe(v.string(), v.toUpperCase(), v.picklist(["GET", "POST", "PUT", "DELETE"]))),
  /** Calls whose path (after `/v1`) starts with this, e.g. `/load_balancers`. */
  pathPrefix: v.pipe(v.string(), v.startsWith("/", "must start with '/', e.g. /load_balancers")),
  code: v.picklist(errorCodes as [ErrorCode, ...ErrorCode[]]),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

const actionRule = v.strictObject({
  /** Only actions with this command (`add_target`); absent ⇒ any. */
  command: v.exactOptional(v.pipe(v.string(), v.nonEmpty())),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const faultsSchema = v.strictObject({
  latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)), 0),
  errorRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
  failNext: v.optional(v.array(failRule), []),
  failActions: v.optional(v.array(actionRule), []),
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
  check(method: string, path: string): HcloudError | undefined {
    const rule = this.#config.failNext.find(
      (r) => (r.method === undefined || r.method === method) && path.startsWith(r.pathPrefix),
    );
    if (rule) {
      this.#config.failNext = consume(this.#config.failNext, rule);
      return new HcloudError(rule.code, `injected fault: ${rule.code}`);
    }
    if (this.#config.errorRate > 0 && this.#random() < this.#config.errorRate) {
      return new HcloudError("server_error", "injected fault: the error rate");
    }
    return undefined;
  }

  /** The error an action of `command` ends with, when a rule says it fails. */
  actionError(command: string): { code: string; message: string } | undefined {
    const rule = this.#config.failActions.find((r) => r.command === undefined || r.command === command);
    if (!rule) return undefined;
    this.#config.failActions = consume(this.#config.failActions, rule);
    return { code: "action_failed", message: `injected fault: action ${command} failed` };
  }
}

function consume<R extends { count: number }>(rules: R[], rule: R): R[] {
  rule.count--;
  return rule.count > 0 ? rules : rules.filter((r) => r !== rule);
}
