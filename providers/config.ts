/**
 * Shared help for provider cloud-configs: parse YAML or JSON text, validate it with the provider's valibot
 * schema, and turn every problem into a `ConfigError` that names the field and the fix.
 */
import type * as v from "valibot";
import { ConfigError } from "../config/errors.ts";
import { rejectMisreadYaml, validate } from "../config/validate.ts";

/** Parse a cloud-config (YAML, of which JSON is a subset) and validate it against `schema`. */
export function parseCloudConfig<S extends v.GenericSchema>(
  schema: S,
  text: string | undefined,
  source: string | undefined,
): v.InferOutput<S> {
  const where = source ?? "the cloud-config";
  let raw: unknown = {};
  if (text !== undefined && text.trim() !== "") {
    try {
      raw = Bun.YAML.parse(text);
    } catch (err) {
      throw new ConfigError(where, [{ path: "", message: `not valid YAML or JSON: ${(err as Error).message}` }], {
        cause: err,
      });
    }
    rejectMisreadYaml(text, where);
  }
  return validate(schema, raw ?? {}, where);
}
