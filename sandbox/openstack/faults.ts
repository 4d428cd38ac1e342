/**
 * Fault injection for the OpenStack emulator, on the kit's rules (sandbox/kit/faults.ts): latency before every API
 * answer, a rate of 500 answers, and "answer the next N calls under this path with this status" rules (a 503 from
 * Nova, a 409, a 401 for a revoked token…). OpenStack has no error codes of its own, so a rule names an HTTP status;
 * each answer is in the envelope of the service it hit.
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { FaultRules, faultEntries } from "../kit/faults.ts";
import { OsError } from "./errors.ts";

const failRule = v.strictObject({
  /** Upper-case HTTP method; absent ⇒ any. */
  method: v.exactOptional(v.pipe(v.string(), v.toUpperCase(), v.picklist(["GET", "POST", "PUT", "DELETE"]))),
  /** Calls whose path starts with this, e.g. `/compute/v2.1/servers`. */
  pathPrefix: v.pipe(v.string(), v.startsWith("/", "must start with '/', e.g. /compute/v2.1/servers")),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const faultsSchema = v.strictObject(faultEntries(failRule));

export type FaultConfig = v.InferOutput<typeof faultsSchema>;

export class Faults extends FaultRules<FaultConfig, OsError> {
  constructor(random: Random) {
    super({
      random,
      schema: faultsSchema,
      ruleError: (rule) => new OsError(rule.status, `injected fault: ${rule.status}`),
      rateError: () => new OsError(500, "injected fault: the error rate"),
    });
  }
}
