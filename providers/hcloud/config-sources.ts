/**
 * Where the hcloud provider's settings come from: the environment, as hccm reads it, and an optional cloud-config
 * file whose keys are the same variable names. The environment wins, setting by setting, as it would for hccm
 * (which has no cloud-config at all). Secrets may come from a file named by `<NAME>_FILE`, as hcloud-go's
 * `LookupEnvWithFile` allows; the file's content is trimmed.
 */
import type { ConfigIssue } from "../../config/errors.ts";

/** A value and where it came from, for messages: `HCLOUD_NETWORK (from the cloud-config)`. */
export interface Setting {
  readonly value: string;
  readonly from: "environment" | "cloud-config" | "file";
}

/** The settings that may be given as `<NAME>_FILE`, and whose values never appear in a message. */
export const secretNames = ["HCLOUD_TOKEN", "ROBOT_USER", "ROBOT_PASSWORD"] as const;

/**
 * Variables of the same prefixes that other Hetzner tools read (the `hcloud` CLI, hcloud-go), which may share an
 * environment with the manager; never reported as typos.
 */
const foreignNames = new Set(["HCLOUD_CONTEXT", "HCLOUD_CONFIG", "HCLOUD_POLL_INTERVAL", "HCLOUD_QUIET"]);

export interface GatherInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The cloud-config's mapping, already parsed; `undefined` when no file was given. */
  readonly file: Readonly<Record<string, unknown>> | undefined;
  /** Every variable the provider reads. */
  readonly known: readonly string[];
  readonly readFile: (path: string) => Promise<string>;
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
  const known = new Set([...input.known, ...secretNames.map((n) => `${n}_FILE`)]);
  const fromFile = new Map<string, string>();
  for (const [key, raw] of Object.entries(input.file ?? {})) {
    if (!known.has(key)) {
      const near = nearest(key, known);
      issues.push({
        path: key,
        message: `is not a setting of the hcloud provider${near ? `; did you mean ${near}?` : ""} (keys are hccm's environment variable names)`,
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
    } else if (/^(HCLOUD|ROBOT)_/.test(key) && !foreignNames.has(key)) {
      const near = nearest(key, known);
      if (near) issues.push({ path: key, message: `is not read by the hcloud provider; did you mean ${near}?` });
    }
  }

  const settings = new Map<string, Setting>();
  for (const name of input.known) {
    const env = fromEnv.get(name);
    const file = fromFile.get(name);
    if (env !== undefined) settings.set(name, { value: env, from: "environment" });
    else if (file !== undefined) settings.set(name, { value: file, from: "cloud-config" });
  }
  for (const name of secretNames) {
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
  readFile: (path: string) => Promise<string>,
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
    try {
      const text = (await readFile(path)).trim();
      if (text === "") issues.push({ path: fileKey, message: `names "${path}", which is empty` });
      return text === "" ? undefined : { value: text, from: "file" };
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? String(err);
      issues.push({ path: fileKey, message: `cannot read "${path}": ${reason}` });
      return undefined;
    }
  }
  return undefined;
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
