/**
 * The Hetzner Cloud API's error envelope (`{"error": {"code", "message", "details"}}`) and the HTTP status each
 * code is answered with. Clients branch on `code`; the statuses follow the public API documentation.
 */
import type * as v from "valibot";
import { issuesOf } from "../../config/validate.ts";
import type { Envelope } from "../kit/api.ts";

/** Every code the emulator answers with, and its HTTP status. */
export const errorStatus = {
  invalid_input: 400,
  json_error: 400,
  unauthorized: 401,
  forbidden: 403,
  protected: 403,
  resource_limit_exceeded: 403,
  token_readonly: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  uniqueness_error: 409,
  service_error: 422,
  unsupported_error: 422,
  source_port_already_used: 422,
  target_already_defined: 422,
  server_not_attached_to_network: 422,
  load_balancer_already_attached: 422,
  load_balancer_not_attached_to_network: 422,
  targets_without_use_private_ip: 422,
  missing_ipv4: 422,
  ip_not_available: 422,
  no_subnet_available: 422,
  invalid_load_balancer_type: 422,
  networks_overlap: 422,
  cloud_resource_ip_not_allowed: 422,
  ip_not_owned: 422,
  target_not_found: 404,
  locked: 423,
  rate_limit_exceeded: 429,
  server_error: 500,
  bad_gateway: 502,
  maintenance: 503,
  resource_unavailable: 503,
  unavailable: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

export type ErrorDetails =
  | { fields: { name: string; messages?: string[] }[] }
  | { limits: { name: string }[] }
  | Record<string, never>;

/** Thrown by state and routes; the router turns it into the envelope. */
export class HcloudError extends Error {
  override readonly name = "HcloudError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  get status(): number {
    return errorStatus[this.code];
  }

  body(): { error: { code: string; message: string; details: ErrorDetails | null } } {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** `invalid_input` naming each field with its problems, as the API does. */
export function invalidInput(fields: Record<string, string[]>): HcloudError {
  const names = Object.keys(fields);
  const message = `invalid input in field${names.length > 1 ? "s" : ""} ${names.map((n) => `'${n}'`).join(", ")}`;
  return new HcloudError("invalid_input", message, {
    fields: names.map((name) => ({ name, messages: fields[name] ?? [] })),
  });
}

/** `invalid_input` from valibot issues, grouped by field path (the root is `body`). */
export function invalidFromIssues(issues: readonly v.BaseIssue<unknown>[], prefix = ""): HcloudError {
  const fields: Record<string, string[]> = {};
  for (const issue of issuesOf(issues)) {
    const name = prefix + (issue.path || "body");
    fields[name] = [...(fields[name] ?? []), issue.message];
  }
  return invalidInput(fields);
}

export function notFound(kind: string, id: number | string): HcloudError {
  return new HcloudError("not_found", `${kind} with ID '${id}' not found`);
}

/** `uniqueness_error` naming the field whose value is taken. */
export function notUnique(field: string, value: string): HcloudError {
  return new HcloudError("uniqueness_error", `${field} '${value}' is already used`, { fields: [{ name: field }] });
}

/** `resource_limit_exceeded` naming the limit. */
export function limitExceeded(limit: string, message: string): HcloudError {
  return new HcloudError("resource_limit_exceeded", message, { limits: [{ name: limit }] });
}

/** The envelope the kit's handler answers with (sandbox/kit/api.ts). */
export const hcloudEnvelope: Envelope<HcloudError> = {
  owns: (err): err is HcloudError => err instanceof HcloudError,
  answer: (err) => Response.json(err.body(), { status: err.status }),
  unauthorized: () => new HcloudError("unauthorized", "unable to authenticate: missing or wrong bearer token"),
  noSuchPath: (path) => new HcloudError("not_found", `no such endpoint: ${path}`),
  methodNotAllowed: (method, path, allowed) =>
    new HcloudError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
  rateLimited: () => new HcloudError("rate_limit_exceeded", "limit of requests per hour reached"),
  notJson: () => new HcloudError("json_error", "the request body is not valid JSON"),
  invalid: (issues) => invalidFromIssues(issues),
  serverError: (message) => new HcloudError("server_error", message),
};
