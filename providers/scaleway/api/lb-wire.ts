/** The Load Balancer API's wire forms the schemas share: optional text and lists, and durations. */
import * as v from "valibot";

export const text = v.optional(v.nullable(v.string()), "");
export const strings = v.optional(v.nullable(v.array(v.string())), []);
export const maybe = <S extends v.GenericSchema>(s: S) => v.optional(v.nullable(s));

/** `"5s"`, `"0.500s"`, `"1.5s"` → milliseconds. */
export const durationMs = v.pipe(
  v.string(),
  v.regex(/^\d+(\.\d+)?s$/, "is not a duration in seconds"),
  v.transform((t) => Math.round(Number(t.slice(0, -1)) * 1000)),
);

/** Milliseconds → the API's form: `5000` → `"5s"`, `500` → `"0.5s"`. */
export function wireDuration(ms: number): string {
  return `${ms / 1000}s`;
}
