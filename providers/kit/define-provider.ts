/**
 * `defineProvider`: a provider is one declaration — its name, its settings, its declared rate limit and `create`,
 * which receives at construction everything the provider needs. The declaration yields the registry's factory
 * (`registerCloudProvider(definition.name, definition.factory)`), so the command, `doctor`, `plan` and the
 * conformance suite all build the provider the same way: through the declaration.
 *
 * ```ts
 * export const acme = defineProvider({
 *   name: "acme",
 *   settings: cloudConfigSettings({ schema: acmeConfigSchema }),
 *   rateLimit: { qps: 10, burst: 20 },
 *   create: (ctx) => acmeProvider(new HttpAcmeApi({ ...ctx.http, url: ctx.settings.url, token: … })),
 * });
 * ```
 *
 * The contract of `create(ctx)`:
 * - It runs once per process (and once per `doctor` or `plan`), after the settings were read and validated; it
 *   makes no cloud call (`doctor` asks `verifyAccess`; the manager calls `initialize`) and starts nothing.
 * - What it returns is the provider without `providerName` (the declaration's name) and usually without
 *   `rateLimit` (the declaration's); a provider whose limit depends on its settings (the composite) returns its own.
 * - The logger, metrics, clock and the HTTP kit's tuning are there at once; what exists only inside a leadership
 *   term — the Kubernetes client, the informers, Warning events — is behind `ctx.runtime`, which fills in when the
 *   manager calls `initialize` (the definition attaches it before the provider's own `initialize` runs).
 */
import { type ConsolaInstance, createConsola } from "consola";
import type { Registry } from "prom-client";
import { abortableSleep, type Now, type Sleep } from "../../kube/clock.ts";
import type { CloudProvider, ProviderFactory, ProviderFactoryInput, ProviderRuntime, RateLimit } from "../cloud.ts";
import type { CloudApiClientTuning } from "./http/client.ts";
import type { RetryPolicy } from "./http/retry-policy.ts";
import { createRuntimeHandle, type RuntimeHandle } from "./runtime-handle.ts";
import { type ReadFile, readFileFromDiskUtf8 } from "./secret-file.ts";
import type { ProviderSettings } from "./settings.ts";
import { type ProviderWebhook, WEBHOOK_NAME } from "./webhooks.ts";

/** What `create` receives. */
export interface ProviderContext<S> {
  /** The declaration's name, which is also `providerName`. */
  readonly name: string;
  /** The settings, read from every source and validated by the declaration's `settings`. */
  readonly settings: S;
  /** The manager's logger tagged with the provider's name (silent where nothing prints: unit tests, `doctor`). */
  readonly logger: ConsolaInstance;
  /** The registry served at `/metrics`; `undefined` where nothing serves it (the kit then keeps its own). */
  readonly metrics: Registry | undefined;
  readonly clock: { readonly now: Now; readonly sleep: Sleep };
  /**
   * For the provider's cloud-API clients (`new HttpAcmeApi({ ...ctx.http, … })`): the metrics, the declared rate
   * limit as the client's pacing, the logger for its retries, the clock, and what tests inject (fetch, retries).
   * The write fence comes with each call (`CallContext.fence`); the kit's client honours it.
   */
  readonly http: CloudApiClientTuning;
  /** Reads a file a setting names at construction (a CA bundle); the settings' secret files are already read. */
  readonly readFile: ReadFile;
  /** What the registry handed the factory: for providers built from other providers (the composite). */
  readonly input: ProviderFactoryInput;
  /** The Kubernetes client, informers and Warning events, once `initialize` runs. */
  readonly runtime: RuntimeHandle;
}

/** A provider as `create` returns it: the contract's object, named and rate-limited by the declaration. */
export type ProviderParts = Omit<CloudProvider, "providerName" | "rateLimit"> & {
  readonly providerName?: string;
  readonly rateLimit?: RateLimit | undefined;
};

export interface ProviderDeclaration<S, P extends ProviderParts> {
  /** The registered name: lower-case letters, digits and inner dashes; the executable's and the metrics' name. */
  readonly name: string;
  /** Where the settings come from and how they are validated; every problem is one `ConfigError`. */
  readonly settings: ProviderSettings<S>;
  /**
   * `CloudProvider.rateLimit`: what the cloud's API tolerates, or a function of the settings where an operator may
   * set it (hcloud's `HCLOUD_RATE_LIMIT_QPS`). Absent ⇒ the framework's defaults.
   */
  readonly rateLimit?: RateLimit | ((settings: S) => RateLimit | undefined) | undefined;
  /** The `source.component` of the provider's Warning events; default `<name>-cloud-provider`. */
  readonly eventsComponent?: string;
  /**
   * Admission webhooks by name (`CloudProvider.webhooks`), each built from the provider `create` returned:
   * `{ "acme-service-annotations": serviceAnnotationsWebhook((s) => AcmeAnnotations.read(s).problems) }`.
   */
  readonly webhooks?: Readonly<Record<string, ProviderWebhook>>;
  create(ctx: ProviderContext<S>): P | Promise<P>;
}

/** What tests inject when they build the shipped declaration over an emulator. */
export interface ProviderSeams {
  readonly fetch?: typeof fetch;
  readonly readFile?: ReadFile;
  readonly retry?: Partial<RetryPolicy>;
  readonly now?: Now;
  readonly sleep?: Sleep;
  readonly random?: () => number;
  /**
   * The clients' pacing instead of the declared rate limit (`{ qps: 0, burst: 1 }`: none), for tests that would
   * otherwise wait out a real cloud's limit; `provider.rateLimit` stays the declared one.
   */
  readonly pace?: RateLimit;
}

export interface ProviderDefinition<S, P extends ProviderParts> {
  readonly name: string;
  readonly settings: ProviderSettings<S>;
  /** The declared rate limit; `undefined` where it depends on the settings (then read `provider.rateLimit`). */
  readonly rateLimit: RateLimit | undefined;
  /** The declared webhooks' names, sorted. */
  readonly webhookNames: readonly string[];
  /** For `registerCloudProvider(definition.name, definition.factory)`. */
  readonly factory: ProviderFactory;
  /** The factory with test seams: what the registry builds, over an emulator. */
  build(input: ProviderFactoryInput, seams?: ProviderSeams): Promise<P & CloudProvider>;
}

const silent = () => createConsola({ level: -999 });

export function defineProvider<S, P extends ProviderParts>(
  declaration: ProviderDeclaration<S, P>,
): ProviderDefinition<S, P> {
  const { name } = declaration;
  const webhooks = Object.entries(declaration.webhooks ?? {});
  for (const [webhook] of webhooks) {
    if (!WEBHOOK_NAME.test(webhook)) {
      throw new Error(
        `webhook name "${webhook}" of provider "${name}" is invalid: use lower-case letters, digits and inner dashes`,
      );
    }
  }
  async function build(input: ProviderFactoryInput, seams: ProviderSeams = {}): Promise<P & CloudProvider> {
    const readFile = seams.readFile ?? input.readFile ?? readFileFromDiskUtf8;
    const { value: settings, warnings = [] } = await declaration.settings.read({
      name,
      config: input.config,
      configSource: input.configSource,
      env: input.env,
      readFile,
    });
    const logger = (input.logger ?? silent()).withTag(name);
    const now = seams.now ?? input.now ?? Date.now;
    const sleep = seams.sleep ?? abortableSleep;
    const rateLimit =
      typeof declaration.rateLimit === "function" ? declaration.rateLimit(settings) : declaration.rateLimit;
    const runtime = createRuntimeHandle({
      component: declaration.eventsComponent ?? `${name}-cloud-provider`,
      logger,
      now,
    });
    const http: CloudApiClientTuning = {
      metrics: input.metrics,
      rateLimit: seams.pace ?? rateLimit,
      ...(input.maxAnswerBytes !== undefined && { maxAnswerBytes: input.maxAnswerBytes }),
      logger,
      now,
      sleep,
      ...(seams.fetch && { fetch: seams.fetch }),
      ...(seams.retry && { retry: seams.retry }),
      ...(seams.random && { random: seams.random }),
    };
    const parts = await declaration.create({
      name,
      settings,
      logger,
      metrics: input.metrics,
      clock: { now, sleep },
      http,
      readFile,
      input,
      runtime,
    });
    return finish(parts, {
      name,
      rateLimit,
      warnings,
      webhooks,
      attach: (rt) => runtime.attach(rt),
    });
  }
  return {
    name,
    settings: declaration.settings,
    rateLimit: typeof declaration.rateLimit === "function" ? undefined : declaration.rateLimit,
    webhookNames: webhooks.map(([webhook]) => webhook).sort(),
    factory: (input) => build(input),
    build,
  };
}

/**
 * The provider the registry hands out: `create`'s object with the declaration's name, rate limit and webhooks (built
 * from it), and an `initialize` that attaches the runtime handle (and says the settings' warnings) before the
 * provider's own runs. A class instance (the fake) keeps its identity: its `initialize` is wrapped in place.
 */
function finish<P extends ProviderParts>(
  parts: P,
  d: {
    name: string;
    rateLimit: RateLimit | undefined;
    warnings: readonly string[];
    webhooks: readonly (readonly [string, ProviderWebhook])[];
    attach: (rt: ProviderRuntime) => void;
  },
): P & CloudProvider {
  if (parts.providerName !== undefined && parts.providerName !== d.name) {
    throw new Error(`provider "${d.name}" created a provider named "${parts.providerName}"; they must match`);
  }
  const own = parts.initialize?.bind(parts);
  let warned = false;
  async function initialize(rt: ProviderRuntime): Promise<void> {
    d.attach(rt);
    // Once a process: a composite retries a part's `initialize`, and a new term calls it again.
    if (!warned) for (const warning of d.warnings) rt.logger.warn(warning);
    warned = true;
    await own?.(rt);
  }
  const withWebhooks = (provider: P & CloudProvider): P & CloudProvider => {
    if (d.webhooks.length === 0) return provider;
    const built = Object.fromEntries(d.webhooks.map(([name, make]) => [name, make(provider)]));
    Object.defineProperty(provider, "webhooks", { value: built, configurable: true, enumerable: true });
    return provider;
  };
  const proto = Object.getPrototypeOf(parts);
  if (proto !== Object.prototype && proto !== null) {
    Object.defineProperty(parts, "initialize", { value: initialize, configurable: true, writable: true });
    return withWebhooks(parts as P & CloudProvider);
  }
  return withWebhooks({
    ...parts,
    providerName: d.name,
    rateLimit: "rateLimit" in parts ? parts.rateLimit : d.rateLimit,
    initialize,
  } as P & CloudProvider);
}
