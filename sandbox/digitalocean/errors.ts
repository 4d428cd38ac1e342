/**
 * DigitalOcean's error envelope: `{"id", "message", "request_id"}` at the top level of the body, `id` a short name
 * of the HTTP status (`not_found` for 404). Clients branch on the status and show `message`. The request ID is
 * made once per request: it is the body's `request_id` and the `x-request-id` header on every answer.
 */
import type * as v from "valibot";
import { issuesOf } from "../../config/validate.ts";
import type { Envelope } from "../kit/api.ts";
import { json } from "../kit/router.ts";

/** Every `id` the emulator answers with, and its HTTP status. */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unprocessable_entity: 422,
  too_many_requests: 429,
  server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorId = keyof typeof errorStatus;

export const errorIds = Object.keys(errorStatus) as ErrorId[];

/** Thrown by state and routes; the kit's handler turns it into the envelope with the call's request ID. */
export class DoError extends Error {
  override readonly name = "DoError";
  constructor(
    readonly id: ErrorId,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  get status(): number {
    return errorStatus[this.id];
  }

  body(requestId: string): { id: string; message: string; request_id: string } {
    return { id: this.id, message: this.message, request_id: requestId };
  }
}

/** `unprocessable_entity` naming each field with its problem, from valibot issues (the root is `body`). */
export function invalidFromIssues(issues: readonly v.BaseIssue<unknown>[]): DoError {
  const parts = issuesOf(issues).map((i) => `${i.path || "body"}: ${i.message}`);
  return new DoError("unprocessable_entity", `request payload validation failed: ${parts.join("; ")}`);
}

export function unprocessable(message: string): DoError {
  return new DoError("unprocessable_entity", message);
}

export function notFound(): DoError {
  return new DoError("not_found", "The resource you were accessing could not be found.");
}

/** The envelope of one request, carrying its ID. */
export function doEnvelope(requestId: string): Envelope<DoError> {
  return {
    owns: (err): err is DoError => err instanceof DoError,
    answer: (err) => json(err.body(requestId), err.status),
    unauthorized: () => new DoError("unauthorized", "Unable to authenticate you"),
    noSuchPath: (path) => new DoError("not_found", `no such endpoint: ${path}`),
    methodNotAllowed: (method, path, allowed) =>
      new DoError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
    rateLimited: () => new DoError("too_many_requests", "API Rate limit exceeded."),
    notJson: () => new DoError("bad_request", "the request body is not valid JSON"),
    invalid: invalidFromIssues,
    serverError: (message) => new DoError("server_error", message),
    finish: (response) => {
      response.headers.set("x-request-id", requestId);
      return response;
    },
  };
}
