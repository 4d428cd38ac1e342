/**
 * Settings named like environment variables (`HCLOUD_TOKEN`), as the Go cloud-controller-managers read theirs: from
 * the environment and from an optional cloud-config file whose keys are the same names. The environment wins,
 * setting by setting. A secret may come from a file named by `<NAME>_FILE` in either source (hcloud-go's
 * `LookupEnvWithFile`), read by the kit's one secret-file reader. The kit reports what an operator gets wrong about
 * the sources themselves (a key no setting has, a variable that looks like a typo of one, a secret given twice, a
 * file it cannot read) and keeps secrets out of every message; the provider's valibot schema judges the values.
 */
import * as v from "valibot";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import { issuesOf } from "../../config/validate.ts";
import { parseCloudConfig } from "../config.ts";
import { type ReadFile, readSecretFile } from "./secret-file.ts";

/** A value and where it came from, for messages: `HCLOUD_NETWORK (from the cloud-config)`. */
export interface Setting {
  readonly value: string;
  readonly from: "environment" | "cloud-config" | "file";
}

/** What a provider declares about its named settings. */
export interface NamedSettings {
  /** The provider's name, for messages: `is not a setting of the hcloud provider`. */
  readonly provider: string;
  /** Every variable the provider reads. */
  readonly known: readonly string[];
  /** The settings that may be given as `<NAME>_FILE`, and whose values never appear in a message. */
  readonly secrets: readonly string[];
  /** Variables of this shape that are not known are checked for typos (`/^(HCLOUD|ROBOT)_/`). */
  readonly prefix: RegExp;
  /** Variables of the prefix that other tools read and may share the environment; never reported as typos. */
  readonly foreign?: readonly string[];
  /** Said after an unknown cloud-config key, e.g. `keys are hccm's environment variable names`. */
  readonly fileKeys?: string;
}

export interface GatherInput extends NamedSettings {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The cloud-config's mapping, already parsed; `undefined` when no file was given. */
  readonly file: Readonly<Record<string, unknown>> | undefined;
  readonly readFile: ReadFile;
}

/**
 * Each known setting's value with its source, and every problem of the sources: an unknown cloud-config key, a
 * `HCLOUD_*`/`ROBOT_*` variable that looks like a typo of a known one, a value that is not a scalar, a secret
 * given both ways in one source, a secret file that cannot be read. An empty value counts as unset.
 */
export async function gatherSettings(
  input: GatherInput,
): Promise<{ settings: Map<string, Setting>; issues: ConfigIssue[] }> {
  const issues: ConfigIssue[] = [];
  const known = new Set([...input.known, ...input.secrets.map((n) => `${n}_FILE`)]);
  const foreign = new Set(input.foreign ?? []);
  const fromFile = new Map<string, string>();
  for (const [key, raw] of Object.entries(input.file ?? {})) {
    if (!known.has(key)) {
      const near = nearest(key, known);
      issues.push({
        path: key,
        message: `is not a setting of the ${input.provider} provider${near ? `; did you mean ${near}?` : ""}${input.fileKeys ? ` (${input.fileKeys})` : ""}`,
      });
    } else if (raw === null || raw === undefined) {
    } else if (typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean") {
      if (String(raw) !== "") fromFile.set(key, String(raw));
    } else {
      issues.push({
        path: key,
        message: "must be a single value (a string, a number or true/false), not a list or mapping",
      });
    }
  }
  const fromEnv = new Map<string, string>();
  for (const [key, value] of Object.entries(input.env)) {
    if (known.has(key)) {
      if (value !== undefined && value !== "") fromEnv.set(key, value);
    } else if (input.prefix.test(key) && !foreign.has(key)) {
      const near = nearest(key, known);
      if (near)
        issues.push({ path: key, message: `is not read by the ${input.provider} provider; did you mean ${near}?` });
    }
  }

  const settings = new Map<string, Setting>();
  for (const name of input.known) {
    const env = fromEnv.get(name);
    const file = fromFile.get(name);
    if (env !== undefined) settings.set(name, { value: env, from: "environment" });
    else if (file !== undefined) settings.set(name, { value: file, from: "cloud-config" });
  }
  for (const name of input.secrets) {
    const secret = await secretSetting(name, fromEnv, fromFile, input.readFile, issues);
    if (secret) settings.set(name, secret);
    else settings.delete(name);
  }
  return { settings, issues };
}

/** The environment's value or file over the cloud-config's; each source may give the value or the file, not both. */
async function secretSetting(
  name: string,
  env: ReadonlyMap<string, string>,
  file: ReadonlyMap<string, string>,
  readFile: ReadFile,
  issues: ConfigIssue[],
): Promise<Setting | undefined> {
  const fileKey = `${name}_FILE`;
  for (const [source, values] of [
    ["environment", env],
    ["cloud-config", file],
  ] as const) {
    const value = values.get(name);
    const path = values.get(fileKey);
    if (value !== undefined && path !== undefined) {
      issues.push({ path: name, message: `is given in the ${source} both as ${name} and as ${fileKey}; keep one` });
      return undefined;
    }
    if (value !== undefined) return { value, from: source };
    if (path === undefined) continue;
    const read = await readSecretFile(path, { readFile });
    if (read.ok) return { value: read.value, from: "file" };
    issues.push({ path: fileKey, message: read.message });
    return undefined;
  }
  return undefined;
}

/**
 * A value's problem says what was given, unless the setting is a secret (redaction), and where, when that was the
 * cloud-config.
 */
export function describedIssue(
  issue: ConfigIssue,
  settings: ReadonlyMap<string, Setting>,
  secrets: readonly string[],
): ConfigIssue {
  const setting = settings.get(issue.path);
  if (!setting) return issue;
  const given =
    !secrets.includes(issue.path) && issue.message.startsWith("must") ? `is ${JSON.stringify(setting.value)}; ` : "";
  const where = setting.from === "cloud-config" ? " (set in the cloud-config)" : "";
  return { path: issue.path, message: `${given}${issue.message}${where}` };
}

/** The known name `key` most likely misspells (at most two edits, or the same letters without `_`), if any. */
export function nearest(key: string, known: Iterable<string>): string | undefined {
  const squash = (s: string) => s.toUpperCase().replaceAll("_", "");
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = squash(name) === squash(key) ? 0 : editDistance(key.toUpperCase(), name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

export interface ReadNamedSettingsInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  readonly configSource: string | undefined;
  readonly readFile: ReadFile;
}

export interface ReadNamedSettingsOptions<T> {
  /** The schema over the values by name (strings, as the environment gives them). */
  readonly schema: v.GenericSchema<Record<string, string | undefined>, T>;
  /** For the `ConfigError`: `the hcloud configuration (environment and cloud-config)`. */
  readonly source: string;
  /** What a cloud-config must be when it is no mapping: `a mapping of hccm's variable names to values`. */
  readonly fileShape: string;
  /**
   * Problems the schema shows only once every value is valid (checks across settings), found from what was given
   * when it is not, so they are reported together with the rest.
   */
  readonly acrossInvalid?: (flat: Readonly<Record<string, string>>) => readonly ConfigIssue[];
}

/**
 * Both sources read (`gatherSettings`) and validated by `schema`: the value, and each setting with its source; or
 * one `ConfigError` with every problem of the sources and of the values, each described once (`describedIssue`).
 */
export async function readNamedSettings<T>(
  named: NamedSettings,
  input: ReadNamedSettingsInput,
  options: ReadNamedSettingsOptions<T>,
): Promise<{ value: T; settings: Map<string, Setting> }> {
  const file =
    input.config === undefined
      ? undefined
      : parseCloudConfig(
          v.pipe(
            v.unknown(),
            v.check((x) => typeof x === "object" && x !== null && !Array.isArray(x), `must be ${options.fileShape}`),
            v.transform((x) => x as Record<string, unknown>),
          ),
          input.config,
          input.configSource ?? `the ${named.provider} cloud-config`,
        );
  const { settings, issues } = await gatherSettings({ ...named, env: input.env, file, readFile: input.readFile });
  const flat = Object.fromEntries([...settings].map(([key, s]) => [key, s.value]));
  const result = v.safeParse(options.schema, flat, { abortEarly: false });
  const found = result.success ? [] : issuesOf(result.issues).map((i) => describedIssue(i, settings, named.secrets));
  if (!result.success && options.acrossInvalid) found.push(...options.acrossInvalid(flat));
  const all = [...issues];
  for (const issue of found) {
    if (!all.some((i) => i.path === issue.path || i.path === `${issue.path}_FILE`)) all.push(issue);
  }
  if (all.length > 0 || !result.success) throw new ConfigError(options.source, all);
  return { value: result.output, settings };
}
