/**
 * Fault injection for the Hetzner Cloud emulator: the kit's (latency, an error rate of `server_error`, "answer the
 * next N calls with this code" rules: `locked`, `conflict`, `bad_gateway`, …) and, Hetzner's own, "end the next N
 * actions in error".
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { consume, FaultRules, failRule, faultEntries } from "../kit/faults.ts";
import { type ErrorCode, errorCodes, HcloudError } from "./errors.ts";

const actionRule = v.strictObject({
  /** Only actions with this command (`add_target`); absent ⇒ any. */
  command: v.exactOptional(v.pipe(v.string(), v.nonEmpty())),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const faultsSchema = v.strictObject({
  ...faultEntries(failRule("code", errorCodes, "/load_balancers")),
  failActions: v.optional(v.array(actionRule), []),
});

export type FaultConfig = v.InferOutput<typeof faultsSchema>;

export class Faults extends FaultRules<FaultConfig, HcloudError> {
  constructor(random: Random) {
    super({
      random,
      schema: faultsSchema,
      ruleError: (rule) => new HcloudError(rule.code as ErrorCode, `injected fault: ${rule.code}`),
      rateError: () => new HcloudError("server_error", "injected fault: the error rate"),
    });
  }

  /** The error an action of `command` ends with, when a rule says it fails. */
  actionError(command: string): { code: string; message: string } | undefined {
    const rule = this.config.failActions.find((r) => r.command === undefined || r.command === command);
    if (!rule) return undefined;
    this.config.failActions = consume(this.config.failActions, rule);
    return { code: "action_failed", message: `injected fault: action ${command} failed` };
  }
}
