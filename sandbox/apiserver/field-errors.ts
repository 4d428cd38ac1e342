/**
 * Validation findings and the `422 Invalid` error built from them, worded like the real server's field errors
 * (`spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`).
 */
import { ApiError, type StatusCause } from "./status-errors.ts";

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueForbidden"
  | "FieldValueTooLong";

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  /** The text after `<field>: `. */
  readonly message: string;
}

/** Strings quoted, numbers and structures as JSON (the real server prints Go values; JSON is the close match). */
const show = (value: unknown): string => JSON.stringify(value) ?? "null";

export const required = (field: string, detail?: string): FieldError => ({
  type: "FieldValueRequired",
  field,
  message: detail ? `Required value: ${detail}` : "Required value",
});

export const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: "FieldValueInvalid",
  field,
  message: `Invalid value: ${show(value)}: ${detail}`,
});

export const notSupported = (field: string, value: unknown, supported: readonly string[]): FieldError => ({
  type: "FieldValueNotSupported",
  field,
  message: `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
});

export const duplicate = (field: string, value: unknown): FieldError => ({
  type: "FieldValueDuplicate",
  field,
  message: `Duplicate value: ${show(value)}`,
});

export const forbiddenField = (field: string, detail: string): FieldError => ({
  type: "FieldValueForbidden",
  field,
  message: `Forbidden: ${detail}`,
});

export const tooLong = (field: string, max: number): FieldError => ({
  type: "FieldValueTooLong",
  field,
  message: `Too long: may not be more than ${max} bytes`,
});

/** `422 Invalid` for `kind "name"`; one error prints bare, several print as `[a, b]` like the real server. */
export const invalidError = (group: string, kind: string, name: string, errors: readonly FieldError[]): ApiError => {
  const parts = errors.map((e) => `${e.field}: ${e.message}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.type, message: e.message, field: e.field }));
  return new ApiError(422, "Invalid", `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes,
  });
};
