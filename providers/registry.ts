/**
 * The provider registry: a provider module calls `registerCloudProvider` when it is imported; the command looks
 * the chosen name up and builds the provider from the cloud-config.
 *
 * The registry object is the one module-level value the design allows (registration is an import-time side
 * effect by contract); everything else takes a registry as an argument so tests can use their own.
 */
import { readFile } from "node:fs/promises";
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import { ConfigError } from "../config/errors.ts";
import type { CloudProvider, ProviderFactory } from "./cloud.ts";

export class ProviderRegistry {
  readonly #factories = new Map<string, ProviderFactory>();
  /** Factories standing in for a provider whose module is not loaded yet (`registerLazily`). */
  readonly #placeholders = new Set<ProviderFactory>();

  /**
   * Register a provider. A second registration of the same name is a programming error and throws, except over a
   * `registerLazily` placeholder: that is the provider's module registering itself as it is loaded.
   */
  register(name: string, factory: ProviderFactory): void {
    checkName(name);
    const current = this.#factories.get(name);
    if (current && !this.#placeholders.has(current)) throw new Error(`Cloud provider "${name}" was registered twice`);
    this.#factories.set(name, factory);
  }

  /**
   * Know a provider by name now and load its module (which registers it) only when it is built: the all-in-one
   * executable knows every provider, and evaluating the modules of the ones not chosen only cost memory.
   */
  registerLazily(name: string, load: () => Promise<unknown>): void {
    checkName(name);
    if (this.#factories.has(name)) throw new Error(`Cloud provider "${name}" was registered twice`);
    let loaded: Promise<ProviderFactory> | undefined;
    const placeholder: ProviderFactory = async (input) => {
      loaded ??= load().then(() => {
        const real = this.#factories.get(name);
        if (!real || real === placeholder)
          throw new Error(`loading cloud provider "${name}" registered nothing by that name`);
        return real;
      });
      return (await loaded)(input);
    };
    this.#placeholders.add(placeholder);
    this.#factories.set(name, placeholder);
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  /**
   * The factory registered under `name`, or undefined. For providers built from other providers (the composite),
   * which hand each part its own configuration instead of a file.
   */
  factory(name: string): ProviderFactory | undefined {
    return this.#factories.get(name);
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /**
   * Build the named provider from a cloud-config file path (or none). Every failure is one `Error` whose message
   * says what to do: an unknown name lists the known ones; an unreadable file names the path; a factory's
   * `ConfigError` keeps its list of problems (as `cause` and in the message). `metrics` is the registry the
   * manager serves and `logger` the manager's root logger, both handed to the factory.
   */
  async init(
    name: string,
    configPath: string | undefined,
    env: Readonly<Record<string, string | undefined>> = process.env,
    {
      metrics,
      logger,
      maxAnswerBytes,
    }: { readonly metrics?: Registry; readonly logger?: ConsolaInstance; readonly maxAnswerBytes?: number } = {},
  ): Promise<CloudProvider> {
    const factory = this.#factories.get(name);
    if (!factory) throw new UnknownProviderError(name, this.names());
    let config: string | undefined;
    if (configPath) {
      try {
        config = await readFile(configPath, "utf8");
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? String(err);
        throw new Error(`could not read --cloud-config "${configPath}": ${reason}`, { cause: err });
      }
    }
    let provider: CloudProvider;
    try {
      provider = await factory({
        config,
        configSource: configPath ? `--cloud-config=${configPath}` : undefined,
        env,
        ...(metrics && { metrics }),
        ...(logger && { logger }),
        ...(maxAnswerBytes !== undefined && { maxAnswerBytes }),
      });
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new Error(`could not init cloud provider "${name}": ${detail}`, { cause: err });
    }
    if (provider.providerName !== name) {
      throw new Error(`cloud provider "${name}" built a provider named "${provider.providerName}"; they must match`);
    }
    return provider;
  }
}

export class UnknownProviderError extends Error {
  override readonly name = "UnknownProviderError";
  readonly known: readonly string[];
  constructor(requested: string, known: readonly string[]) {
    const list = known.length > 0 ? known.join(", ") : "none";
    super(`unknown cloud provider "${requested}"; this executable knows: ${list}`);
    this.known = known;
  }
}

function checkName(name: string): void {
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name)) {
    throw new Error(`cloud provider name "${name}" is invalid: use lower-case letters, digits and inner dashes`);
  }
}

/** The process-wide registry that provider modules register into when imported. */
export const globalRegistry = new ProviderRegistry();

/**
 * Register a provider in the process-wide registry. Called at the top level of a provider's `index.ts`, with a
 * `defineProvider` declaration (`registerCloudProvider(acme.name, acme.factory)`).
 */
export function registerCloudProvider(name: string, factory: ProviderFactory): void {
  globalRegistry.register(name, factory);
}

export { ConfigError };
