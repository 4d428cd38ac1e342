/**
 * Fault injection for the DigitalOcean emulator: the kit's latency, rate of `server_error` answers and "answer the
 * next N calls with this error" rules, named by DigitalOcean's error `id` (429 `too_many_requests`, 422
 * `unprocessable_entity`, 5xx).
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { FaultRules, failRule, faultEntries } from "../kit/faults.ts";
import { DoError, type ErrorId, errorIds } from "./errors.ts";

export const faultsSchema = v.strictObject(faultEntries(failRule("id", errorIds, "/load_balancers")));

export type FaultConfig = v.InferOutput<typeof faultsSchema>;

export class Faults extends FaultRules<FaultConfig, DoError> {
  constructor(random: Random) {
    super({
      random,
      schema: faultsSchema,
      ruleError: (rule) => new DoError(rule.id as ErrorId, `injected fault: ${rule.id}`),
      rateError: () => new DoError("server_error", "injected fault: the error rate"),
    });
  }
}
