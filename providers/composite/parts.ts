/**
 * Building a composite's parts: each part's own factory, from the registry, with its own configuration exactly as
 * it takes it alone. Every problem of the composite's fields and of every part is collected into one `ConfigError`,
 * each part's prefixed with its path (`providers[1].config.loadBalancer.global.addresses[0]: …`).
 */
import * as v from "valibot";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import type { CloudProvider, ProviderFactory, ProviderFactoryInput } from "../cloud.ts";
import { parseCloudConfig } from "../config.ts";
import { type CompositeConfig, checkCompositeConfig, type PartConfig, schemesOf } from "./config.ts";

/** A part as the composite uses it. */
export interface Part {
  readonly name: string;
  readonly provider: CloudProvider;
  readonly schemes: readonly string[];
  /** Serves Nodes: `nodes` is not false and the provider has InstancesV2. */
  readonly servesNodes: boolean;
}

/** What the composite needs of the registry: the factories it may compose, and their names for messages. */
export interface PartFactories {
  factory(name: string): ProviderFactory | undefined;
  names(): string[];
}

export interface BuiltParts {
  readonly config: CompositeConfig;
  readonly parts: readonly Part[];
}

export const compositeProviderName = "composite";

export async function buildParts(factories: PartFactories, input: ProviderFactoryInput): Promise<BuiltParts> {
  const where = input.configSource ?? "the composite cloud-config";
  if (input.config === undefined || input.config.trim() === "") {
    throw new ConfigError(where, [
      {
        path: "providers",
        message:
          "is required: pass --cloud-config with a file that lists the providers to compose (see docs/composing-providers.md)",
      },
    ]);
  }
  const raw = parseCloudConfig(v.unknown(), input.config, where);
  const { config, issues } = checkCompositeConfig(raw);
  const entries = Array.isArray((raw as { providers?: unknown })?.providers)
    ? ((raw as { providers: unknown[] }).providers as unknown[])
    : [];
  const built = await Promise.all(entries.map((entry, i) => buildPart(factories, input, where, entry, i)));
  for (const result of built) issues.push(...result.issues);
  if (config && issues.length === 0) {
    const parts = built.map((b) => b.part).filter((p): p is Part => p !== undefined);
    issues.push(...capabilityIssues(config, parts));
    if (issues.length === 0) return { config, parts };
  }
  // Sorted by path, so each part's problems read together.
  throw new ConfigError(
    where,
    issues.toSorted((a, b) => a.path.localeCompare(b.path, "en", { numeric: true })),
  );
}

type PartResult = { part?: Part; issues: ConfigIssue[] };

/** Builds one entry when its own fields allow it; the schema reports the entries that do not. */
async function buildPart(
  factories: PartFactories,
  input: ProviderFactoryInput,
  where: string,
  entry: unknown,
  i: number,
): Promise<PartResult> {
  const at = `providers[${i}]`;
  if (typeof entry !== "object" || entry === null) return { issues: [] };
  const { name, config, schemes, nodes } = entry as Partial<PartConfig> & { config?: unknown };
  if (typeof name !== "string" || name === "" || name === compositeProviderName) return { issues: [] };
  if (config !== undefined && (typeof config !== "object" || config === null || Array.isArray(config))) {
    return { issues: [] };
  }
  const factory = factories.factory(name);
  if (!factory) {
    const known = factories.names().filter((n) => n !== compositeProviderName);
    return {
      issues: [
        { path: `${at}.name`, message: `"${name}" is not a provider of this executable; it knows ${known.join(", ")}` },
      ],
    };
  }
  let provider: CloudProvider;
  try {
    provider = await factory({
      config: config === undefined ? undefined : JSON.stringify(config),
      configSource: `${where} ${at}.config`,
      env: input.env,
      ...(input.metrics && { metrics: input.metrics }),
      ...(input.logger && { logger: input.logger }),
      ...(input.now && { now: input.now }),
      ...(input.readFile && { readFile: input.readFile }),
      ...(input.maxAnswerBytes !== undefined && { maxAnswerBytes: input.maxAnswerBytes }),
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      return {
        issues: err.issues.map((issue) => ({
          path: issue.path ? `${at}.config.${issue.path}` : `${at}.config`,
          message: issue.message,
        })),
      };
    }
    return { issues: [{ path: at, message: `provider "${name}" could not be built: ${(err as Error).message}` }] };
  }
  if (provider.providerName !== name) {
    return {
      issues: [{ path: `${at}.name`, message: `provider "${name}" built a provider named "${provider.providerName}"` }],
    };
  }
  const wantsNodes = nodes !== false;
  if (wantsNodes && !provider.instancesV2 && provider.instances) {
    return {
      issues: [
        {
          path: `${at}.nodes`,
          message: `provider "${name}" offers only the legacy Instances API, and the composite routes Nodes through InstancesV2; set nodes: false`,
        },
      ],
    };
  }
  const part = { name, provider, servesNodes: wantsNodes && provider.instancesV2 !== undefined } as const;
  return { part: { ...part, schemes: schemesOf({ name, schemes, nodes: wantsNodes } as PartConfig) }, issues: [] };
}

/** `loadBalancer` and `routes` must name a part that offers the capability. */
function capabilityIssues(config: CompositeConfig, parts: readonly Part[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const field of ["loadBalancer", "routes"] as const) {
    const name = config[field];
    const part = parts.find((p) => p.name === name);
    if (part && !part.provider[field]) {
      const offering = parts.filter((p) => p.provider[field]).map((p) => p.name);
      const hint = offering.length > 0 ? `providers that do here: ${offering.join(", ")}` : "no listed provider does";
      issues.push({
        path: field,
        message: `provider "${part.name}" offers no ${field} with this configuration; ${hint}`,
      });
    }
  }
  return issues;
}
