/**
 * Where a provider's settings come from, as its declaration says (`defineProvider({ settings })`): the kit reads
 * every source (`--cloud-config`, the environment, the secret files they name), validates the result with the
 * provider's one valibot schema, and throws one `ConfigError` listing every problem, with secrets left out.
 *
 * Two shapes cover the providers: `cloudConfigSettings`, a YAML/JSON file with its own keys (metal, proxmox, the
 * sandbox), and settings named like environment variables that a file may also carry (hcloud's, read with
 * named-settings.ts inside its own `read`).
 */
import type * as v from "valibot";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import { parseCloudConfig } from "../config.ts";
import { type ReadFile, readSecretFile } from "./secret-file.ts";
import type { SettingDoc } from "./settings-reference.ts";

/** What the kit hands a settings reader. */
export interface SettingsInput {
  /** The provider's name, for the default source: `the acme cloud-config`. */
  readonly name: string;
  /** The `--cloud-config` text, or `undefined` when none was given. */
  readonly config: string | undefined;
  /** Where `config` came from (`--cloud-config=/etc/x.yaml`), for messages. */
  readonly configSource: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: ReadFile;
}

/** The settings, and what the operator should hear about them that is no error (logged at `initialize`). */
export interface SettingsRead<S> {
  readonly value: S;
  readonly warnings?: readonly string[];
}

export interface ProviderSettings<S> {
  /** Reads and validates every source; throws one `ConfigError` listing every problem. */
  read(input: SettingsInput): Promise<SettingsRead<S>> | SettingsRead<S>;
  /**
   * Every setting read, documented: `npx bun scripts/gen-docs.ts` writes it into the provider's page (its `settings`
   * section), and the provider's test keeps it equal to what `read` reads.
   */
  readonly reference?: readonly SettingDoc[];
}

/** What `cloudConfigSettings`' `resolve` may use to finish the settings. */
export interface ResolveTools {
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The secret in the file at `path` (trimmed unless `trim` is false), or `undefined` after recording the problem
   * under `at` (the key that named the file); every problem is reported together once `resolve` returns.
   */
  secretFile(path: string, at: string, options?: { readonly trim?: boolean }): Promise<string | undefined>;
  /** Records a problem no schema sees (a credential missing from every source); reported with the others. */
  issue(path: string, message: string): void;
}

export interface CloudConfigSettingsOptions<T, S> {
  /** The file's schema; a function of the environment when one rule spans both (a token from either). */
  readonly schema:
    | v.GenericSchema<unknown, T>
    | ((env: Readonly<Record<string, string | undefined>>) => v.GenericSchema<unknown, T>);
  /** Turns the validated file into the settings: reads the secret files it names. Default: the file as it is. */
  readonly resolve?: (config: T, tools: ResolveTools) => Promise<S> | S;
  /** The keys' reference (`clusters[].url`), for the provider's page; a test keeps it equal to `schema`'s keys. */
  readonly reference?: readonly SettingDoc[];
}

/** Settings from `--cloud-config` (YAML or JSON; no file reads as `{}`), validated by one schema. */
export function cloudConfigSettings<T, S = T>(options: CloudConfigSettingsOptions<T, S>): ProviderSettings<S> {
  return {
    ...(options.reference && { reference: options.reference }),
    async read(input) {
      const source = input.configSource ?? `the ${input.name} cloud-config`;
      const schema = typeof options.schema === "function" ? options.schema(input.env) : options.schema;
      const config = parseCloudConfig(schema, input.config, source) as T;
      if (!options.resolve) return { value: config as unknown as S };
      const issues: ConfigIssue[] = [];
      let cause: unknown;
      const value = await options.resolve(config, {
        env: input.env,
        async secretFile(path, at, { trim = true } = {}) {
          const read = await readSecretFile(path, { readFile: input.readFile, trim });
          if (read.ok) return read.value;
          issues.push({ path: at, message: read.message });
          cause ??= read.cause;
          return undefined;
        },
        issue: (path, message) => void issues.push({ path, message }),
      });
      if (issues.length > 0) throw new ConfigError(source, issues, cause === undefined ? undefined : { cause });
      return { value };
    },
  };
}
