/**
 * API errors and the `Status` bodies kube-apiserver sends for them, byte-compatible in shape and wording so that
 * clients (ours, client-go in kubectl) classify them the same way they would against a real cluster.
 */

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field?: string;
}

/** Key order follows the real server's encoding: name, group, kind, uid, causes, retryAfterSeconds. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Group and plural of a resource, as error messages name it (`leases.coordination.k8s.io`). */
export interface GroupResource {
  readonly group: string;
  readonly plural: string;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  constructor(code: number, reason: string, message: string, details?: StatusDetails, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): StatusBody {
    return statusBody(this.code, this.reason, this.message, this.details);
  }
}

const statusBody = (code: number, reason: string, message: string, details?: StatusDetails): StatusBody => {
  let ordered: StatusDetails | undefined;
  if (details) {
    // The real server's field order; empty strings are left out like Go's omitempty.
    const { name, group, kind, uid, causes, retryAfterSeconds } = details;
    ordered = {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      ...(kind ? { kind } : {}),
      ...(uid !== undefined ? { uid } : {}),
      ...(causes?.length ? { causes } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(ordered ? { details: ordered } : {}),
    code,
  };
};

/** `nodes` or `leases.coordination.k8s.io`. */
const qualifiedResource = (gr: GroupResource): string => (gr.group ? `${gr.plural}.${gr.group}` : gr.plural);

const grDetails = (gr: GroupResource, name: string): StatusDetails => ({ name, group: gr.group, kind: gr.plural });

export const notFound = (gr: GroupResource, name: string): ApiError =>
  new ApiError(404, "NotFound", `${qualifiedResource(gr)} "${name}" not found`, grDetails(gr, name));

export const alreadyExists = (gr: GroupResource, name: string): ApiError =>
  new ApiError(409, "AlreadyExists", `${qualifiedResource(gr)} "${name}" already exists`, grDetails(gr, name));

export const conflict = (gr: GroupResource, name: string, why: string): ApiError =>
  new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    grDetails(gr, name),
  );

export const staleConflict = (gr: GroupResource, name: string): ApiError =>
  conflict(gr, name, "the object has been modified; please apply your changes to the latest version and try again");

export const badRequest = (message: string): ApiError => new ApiError(400, "BadRequest", message);

export const forbidden = (gr: GroupResource, name: string, why: string): ApiError => {
  const what = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ApiError(403, "Forbidden", `${what} is forbidden: ${why}`, grDetails(gr, name));
};

/** `410 Expired`, as for a watch or a continue token older than the compacted history. */
export const expired = (message: string): ApiError => new ApiError(410, "Expired", message);

export const methodNotAllowed = (): ApiError =>
  new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");

export const pathNotFound = (): ApiError =>
  new ApiError(404, "NotFound", "the server could not find the requested resource", {});

export const unsupportedMediaType = (accepted: readonly string[]): ApiError =>
  new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );

export const notAcceptable = (): ApiError =>
  new ApiError(
    406,
    "NotAcceptable",
    "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
  );

export const unauthorized = (): ApiError => new ApiError(401, "Unauthorized", "Unauthorized");

/** The reason and default message the real server uses for a bare HTTP status (fault injection uses these). */
const reasonForCode = (code: number): { reason: string; message: string } => {
  switch (code) {
    case 400:
      return { reason: "BadRequest", message: "the server rejected our request for an unknown reason" };
    case 401:
      return { reason: "Unauthorized", message: "Unauthorized" };
    case 403:
      return { reason: "Forbidden", message: "forbidden" };
    case 404:
      return { reason: "NotFound", message: "the server could not find the requested resource" };
    case 409:
      return { reason: "Conflict", message: "the server reported a conflict" };
    case 410:
      return { reason: "Expired", message: "the resource version is too old" };
    case 422:
      return { reason: "Invalid", message: "the server rejected our request due to an error in our request" };
    case 429:
      return { reason: "TooManyRequests", message: "Too many requests, please try again later." };
    case 503:
      return { reason: "ServiceUnavailable", message: "the server is currently unable to handle the request" };
    case 504:
      return { reason: "Timeout", message: "the server was unable to return a response in the time allotted" };
    default:
      return code >= 500
        ? { reason: "InternalError", message: "an error on the server has prevented the request from succeeding" }
        : { reason: "Unknown", message: `the server responded with the status code ${code}` };
  }
};

export const errorForCode = (code: number, retryAfterSeconds?: number): ApiError => {
  const { reason, message } = reasonForCode(code);
  return new ApiError(code, reason, message, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds });
};

/** Anything thrown below the HTTP layer, as an ApiError (unexpected errors become 500 InternalError). */
export const asApiError = (err: unknown): ApiError => {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, "InternalError", `Internal error occurred: ${message}`, undefined, { cause: err });
};
