/**
 * Scaleway's error envelope: `{"type", "message", …}` at the top level of the body, with fields by type —
 * `resource` and `resource_id` for `not_found`, `details: [{argument_name, reason, help_message}]` for
 * `invalid_arguments`, `method` and `reason` for `denied_authentication`, `help_message` for `too_many_requests`,
 * `resource`, `resource_id` and `current_state` for `transient_state`. These are the fields the official SDKs read
 * to tell the errors apart (scaleway-sdk-js `scw/errors/standard/*`).
 */
import type * as v from "valibot";
import { issuesOf } from "../../config/validate.ts";
import type { Envelope } from "../kit/api.ts";

/** Every `type` the emulator answers with, and its HTTP status. */
export const errorStatus = {
  invalid_arguments: 400,
  denied_authentication: 401,
  permissions_denied: 403,
  quotas_exceeded: 403,
  not_found: 404,
  method_not_allowed: 405,
  transient_state: 409,
  precondition_failed: 412,
  too_many_requests: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorType = keyof typeof errorStatus;

export const errorTypes = Object.keys(errorStatus) as ErrorType[];

/** Thrown by state and routes; the kit's handler answers with `body()`. */
export class ScwError extends Error {
  override readonly name = "ScwError";
  constructor(
    readonly type: ErrorType,
    message: string,
    /** The type's own fields (`resource`, `details`, …). */
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }

  get status(): number {
    return errorStatus[this.type];
  }

  body(): Record<string, unknown> {
    return { type: this.type, message: this.message, ...this.fields };
  }
}

/** `not_found` naming the resource kind (`instance_server`) and ID, as the SDK's `ResourceNotFoundError` reads. */
export function notFound(resource: string, id: string): ScwError {
  return new ScwError("not_found", "resource is not found", { resource, resource_id: id });
}

/** `invalid_arguments` naming each argument with its problem. */
export function invalidArguments(problems: Readonly<Record<string, string>>): ScwError {
  const details = Object.entries(problems).map(([name, help]) => ({
    argument_name: name,
    reason: "constraint",
    help_message: help,
  }));
  return new ScwError("invalid_arguments", "invalid argument(s)", { details });
}

function fromIssues(issues: readonly v.BaseIssue<unknown>[]): ScwError {
  const problems: Record<string, string> = {};
  for (const issue of issuesOf(issues)) {
    const name = issue.path || "body";
    problems[name] = problems[name] ? `${problems[name]}; ${issue.message}` : issue.message;
  }
  return invalidArguments(problems);
}

export const scalewayEnvelope: Envelope<ScwError> = {
  owns: (err): err is ScwError => err instanceof ScwError,
  answer: (err) => Response.json(err.body(), { status: err.status }),
  unauthorized: () =>
    new ScwError("denied_authentication", "authentication is denied", {
      method: "api_key",
      reason: "invalid_argument",
    }),
  noSuchPath: (path) =>
    new ScwError("not_found", `no such endpoint: ${path}`, { resource: "endpoint", resource_id: path }),
  methodNotAllowed: (method, path, allowed) =>
    new ScwError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
  rateLimited: () =>
    new ScwError("too_many_requests", "too many requests", { help_message: "slow down and retry later" }),
  notJson: () => invalidArguments({ body: "the request body is not valid JSON" }),
  invalid: fromIssues,
  serverError: (message) => new ScwError("internal_error", message),
};
