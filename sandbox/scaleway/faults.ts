/**
 * Fault injection for the Scaleway emulator: the kit's latency, rate of `internal_error` answers and "answer the
 * next N calls with this error" rules, named by Scaleway's error `type` (`too_many_requests`, `transient_state`,
 * `service_unavailable`, …).
 */
import * as v from "valibot";
import type { Random } from "../cloud/random.ts";
import { FaultRules, failRule, faultEntries } from "../kit/faults.ts";
import { type ErrorType, errorTypes, ScwError } from "./errors.ts";

export const faultsSchema = v.strictObject(
  faultEntries(failRule("type", errorTypes, "/instance/v1/zones/fr-par-1/servers")),
);

export type FaultConfig = v.InferOutput<typeof faultsSchema>;

/** The fields the SDKs need to read an injected error as its type. */
function injected(type: ErrorType): ScwError {
  const message = `injected fault: ${type}`;
  switch (type) {
    case "not_found":
      return new ScwError(type, message, { resource: "injected", resource_id: "injected" });
    case "too_many_requests":
      return new ScwError(type, message, { help_message: "injected: slow down" });
    case "invalid_arguments":
      return new ScwError(type, message, {
        details: [{ argument_name: "injected", reason: "constraint", help_message: message }],
      });
    case "denied_authentication":
      return new ScwError(type, message, { method: "api_key", reason: "invalid_argument" });
    case "transient_state":
      return new ScwError(type, message, { resource: "injected", resource_id: "injected", current_state: "busy" });
    default:
      return new ScwError(type, message);
  }
}

export class Faults extends FaultRules<FaultConfig, ScwError> {
  constructor(random: Random) {
    super({
      random,
      schema: faultsSchema,
      ruleError: (rule) => injected(rule.type as ErrorType),
      rateError: () => new ScwError("internal_error", "injected fault: the error rate"),
    });
  }
}
