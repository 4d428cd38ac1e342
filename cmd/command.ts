/**
 * The `cloud-controller-manager` command: parse and validate every flag (all problems reported at once, exit 1,
 * nothing started), build the provider, then hand over to the manager. Subcommands (`sandbox`) are citty
 * commands of their own, dispatched by the first argument; help, completion and version are in builtins.ts.
 *
 * `runCli` returns the exit code; only the entry point exits the process.
 */
import { accessSync, constants, statSync } from "node:fs";
import { type CommandDef, defineCommand, runCommand } from "citty";
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import { isControllerEnabled } from "../controllers/names.ts";
import { cloudAllocatorProblem } from "../controllers/node-ipam/cloud-allocator.ts";
import { CidrAllocatorTypes } from "../controllers/node-ipam/config.ts";
import { selectWebhooks } from "../controllers/webhooks/index.ts";
import { redactUrlCredentials } from "../net/url-credentials.ts";
import { createMetricsRegistry } from "../platform/metrics.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import { compositeProviderName } from "../providers/composite/parts.ts";
import type { ProviderRegistry } from "../providers/registry.ts";
import { parseArgv } from "./argv.ts";
import { answerBuiltin, npmKeptFlags, subcommandEnv, subcommandSpecs } from "./builtins.ts";
import { commandSpec, renderHelp } from "./help.ts";
import { loadLeaderMigration } from "./leader-migration.ts";
import { createRootLogger } from "./logger.ts";
import { buildOptions, type Options } from "./options.ts";
import { type BuildInfo, renderVersion } from "./version.ts";

/** Runs the controllers until `signal` aborts; resolves with the exit code. Supplied by the entry point. */
export type RunManager = (input: {
  options: Options;
  provider: CloudProvider;
  logger: ConsolaInstance;
  signal: AbortSignal;
  /** The registry served at `/metrics`; the provider was built with it (`ProviderFactoryInput.metrics`). */
  metrics: Registry;
}) => Promise<number>;

/** What a subcommand is built with: the same registry, manager and stop signal as the main command. */
export interface SubcommandEnv {
  readonly registry: ProviderRegistry;
  readonly runManager: RunManager;
  readonly signal: AbortSignal;
  readonly build: BuildInfo;
  readonly binaryName: string;
  /** How a user types this executable, for the commands it prints (`npx bun cmd/main.ts` from source). */
  readonly invocation: string;
  /** Set in a per-provider executable. */
  readonly presetProvider: string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: each citty command is generic over its own args
export type Subcommand = (env: SubcommandEnv) => CommandDef<any>;

export interface CliInput {
  readonly argv: readonly string[];
  readonly binaryName: string;
  /** How a user types this executable, for the commands it prints; default `binaryName`. */
  readonly invocation?: string | undefined;
  /** Set in a per-provider executable: `--cloud-provider` defaults to it and may not name another. */
  readonly presetProvider?: string | undefined;
  readonly build: BuildInfo;
  readonly registry: ProviderRegistry;
  readonly runManager: RunManager;
  readonly subcommands?: Readonly<Record<string, Subcommand>>;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
  readonly signal: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function runCli(input: CliInput): Promise<number> {
  const stdout = input.stdout ?? ((t: string) => process.stdout.write(t));
  const writeErr = input.stderr ?? ((t: string) => process.stderr.write(t));
  // Errors quote flags, files and providers' messages: an endpoint's credentials stay out of them.
  const stderr = (t: string) => writeErr(redactUrlCredentials(t));
  const [first, ...rest] = input.argv;
  const answered = answerBuiltin(input, first, rest, { stdout, stderr }, (argv) => runCli({ ...input, argv }));
  if (answered !== undefined) return answered;
  const makeSub = first !== undefined ? input.subcommands?.[first] : undefined;
  if (makeSub && first !== undefined) {
    const sub = makeSub(subcommandEnv(input));
    const kept = npmKeptFlags(commandSpec(first, sub), rest, input.env ?? process.env);
    if (kept) {
      stderr(`error: ${kept}\n`);
      return 1;
    }
    let code = 0;
    const wrapped = defineCommand({
      ...sub,
      run: async (ctx) => {
        code = ((await sub.run?.(ctx)) as number | undefined) ?? 0;
      },
    });
    await runCommand(wrapped, { rawArgs: rest });
    return code;
  }

  let exitCode = 1;
  const root = defineCommand({
    meta: { name: input.binaryName, version: input.build.version, description: "Kubernetes cloud controller manager" },
    run: async () => {
      exitCode = await runRoot(input, stdout, stderr);
    },
  });
  await runCommand(root, { rawArgs: [] });
  return exitCode;
}

async function runRoot(input: CliInput, stdout: (t: string) => void, stderr: (t: string) => void): Promise<number> {
  const parsed = parseArgv(input.argv);
  if (parsed.values.has("help") && parsed.values.get("help") !== "false") {
    const subcommands = subcommandSpecs(input);
    const providers = input.registry.names();
    stdout(
      `${renderHelp({ binaryName: input.binaryName, presetProvider: input.presetProvider, providers, subcommands })}\n`,
    );
    return 0;
  }
  const version = parsed.values.get("version");
  if (version !== undefined && version !== "false") {
    stdout(`${renderVersion(input.binaryName, input.build, version === "raw")}\n`);
    return 0;
  }

  const values = new Map(parsed.values);
  const errors = [...parsed.errors];
  if (parsed.positionals.length > 0) {
    errors.push(`"${input.binaryName}" does not take any arguments, got [${parsed.positionals.join(" ")}]`);
  }
  if (input.presetProvider) {
    const choice = presetChoice(input.presetProvider, values.get("cloud-provider"), input.registry);
    if (choice.error) errors.push(choice.error);
    values.set("cloud-provider", choice.name);
  }
  const built = buildOptions(values);
  if (!built.ok)
    errors.push(
      ...built.errors.map((e) => (e.startsWith("--cloud-provider is required") ? providerRequired(input) : e)),
    );
  const providerName = values.get("cloud-provider");
  if (providerName && !input.registry.has(providerName)) {
    errors.push(
      `--cloud-provider: unknown cloud provider "${providerName}"; this executable knows: ${input.registry.names().join(", ") || "none"}`,
    );
  }
  if (errors.length > 0 || !built.ok) {
    stderr(`${formatErrors(input.binaryName, input.invocation ?? input.binaryName, errors)}\n`);
    return 1;
  }

  const { options } = built;
  const logger = createRootLogger({
    verbosity: options.verbosity,
    format: options.loggingFormat,
    vmodule: options.vmodule,
    splitStream: options.logTextSplitStream,
  });
  logger.info(`${input.binaryName} ${input.build.version} starting`);
  if (built.ignored.length > 0) {
    logger.warn(
      `flags accepted for compatibility but without effect here: ${built.ignored.map((f) => `--${f}`).join(", ")}`,
    );
  }
  for (const warning of built.warnings) logger.warn(warning);
  const metrics = createMetricsRegistry();
  // Every reason the manager cannot start is reported at once: a missing kubeconfig is not hidden behind a
  // provider that cannot start.
  const problems = startProblems(options);
  const migration = loadLeaderMigration(options);
  if (!migration.ok) problems.push(migration.problem);
  else for (const warning of migration.warnings) logger.warn(warning);
  let provider: CloudProvider | undefined;
  if (!problems.some((p) => p.startsWith("--cloud-config"))) {
    try {
      provider = await input.registry.init(options.cloudProvider, options.cloudConfig || undefined, input.env, {
        metrics,
        logger,
        maxAnswerBytes: options.cloudApiMaxAnswerBytes,
      });
    } catch (err) {
      problems.push(`Cloud provider could not be initialized: ${(err as Error).message}`);
    }
    // upstream: options/webhook.go Validate, against the webhooks this provider declares.
    if (provider)
      problems.push(...selectWebhooks(options.webhooks, provider.webhooks).errors.map((e) => `--webhooks: ${e}`));
  }
  const allocator = provider && nodeIpamProviderProblem(options, provider);
  if (allocator) problems.push(allocator);
  if (problems.length > 0 || !provider) {
    stderr(
      problems.length === 1
        ? `error: ${problems[0]}\n`
        : `error: ${input.binaryName} cannot start (${problems.length} problems):\n${problems.map(listItem).join("")}`,
    );
    return 1;
  }
  if (!provider.hasClusterID()) {
    if (!options.allowUntaggedCloud) {
      stderr(
        "error: no ClusterID found; a ClusterID is required for the cloud provider to function properly (set it in the cloud-config, or pass --allow-untagged-cloud)\n",
      );
      return 1;
    }
    logger.warn("detected a cluster without a ClusterID; a ClusterID will be required in the future");
  }
  const leaderMigrationConfig = migration.ok ? migration.config : undefined;
  return input.runManager({
    options: { ...options, leaderMigrationConfig },
    provider,
    logger,
    signal: input.signal,
    metrics,
  });
}

/** `--cidr-allocator-type=CloudAllocator` needs a provider that assigns pod CIDRs: said before anything starts. */
function nodeIpamProviderProblem(options: Options, provider: CloudProvider): string | undefined {
  const cloud = options.allocateNodeCIDRs && options.cidrAllocatorType === CidrAllocatorTypes.cloud;
  if (!cloud || !isControllerEnabled("node-ipam-controller", options.controllers)) return undefined;
  return cloudAllocatorProblem(provider);
}

/** A run without --cloud-provider: the providers to choose from, and the sandbox for a first look. */
function providerRequired(input: CliInput): string {
  const sandbox = input.subcommands?.sandbox
    ? `; for a first look without a cloud, run '${input.invocation ?? input.binaryName} sandbox'`
    : "";
  return `--cloud-provider is required: one of ${input.registry.names().join(", ") || "none"}${sandbox}`;
}

/** The files named on the command line that cannot be read, each with what to do; checked before anything starts. */
function startProblems(options: Options): string[] {
  const problems: string[] = [];
  const unreadable = (path: string): string | undefined => {
    try {
      if (!statSync(path).isFile()) return "is not a file";
      accessSync(path, constants.R_OK);
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return "does not exist (ENOENT)";
      if (code === "EACCES") return "cannot be read by this user (EACCES)";
      return `cannot be read (${code ?? (err as Error).message})`;
    }
  };
  const kubeconfig = options.kubeconfig && unreadable(options.kubeconfig);
  if (kubeconfig) {
    problems.push(
      `--kubeconfig "${options.kubeconfig}" ${kubeconfig}: pass the path of a readable kubeconfig, or leave --kubeconfig out to use $KUBECONFIG or the in-cluster config`,
    );
  }
  const cloudConfig = options.cloudConfig && unreadable(options.cloudConfig);
  if (cloudConfig) {
    problems.push(
      `--cloud-config "${options.cloudConfig}" ${cloudConfig}: pass the path of the ${options.cloudProvider} provider's configuration file (docs/providers/), or leave --cloud-config out if the provider reads its settings from the environment`,
    );
  }
  return problems;
}

/**
 * `--cloud-provider` in a per-provider executable: its own provider by default, or the composite, which composes it
 * with the other providers built in (metal); any other name is refused.
 */
export function presetChoice(
  preset: string,
  asked: string | undefined,
  registry: Pick<ProviderRegistry, "has">,
): { name: string; error?: string } {
  const composite = registry.has(compositeProviderName) ? compositeProviderName : undefined;
  if (asked === undefined || asked === preset || asked === composite) return { name: asked ?? preset };
  const or = composite ? ` (or --cloud-provider=${composite} to compose it with the providers built in)` : "";
  return {
    name: preset,
    error: `--cloud-provider=${asked}: this executable is built for --cloud-provider=${preset}${or}; use the all-in-one cloud-controller-manager for other providers`,
  };
}

function formatErrors(binaryName: string, invocation: string, errors: readonly string[]): string {
  const head = `error: ${binaryName}: invalid command line (${errors.length} problem${errors.length === 1 ? "" : "s"}):`;
  return [head, ...errors.map((e) => `  - ${e}`), `Run '${invocation} --help' for the flags.`].join("\n");
}

/**
 * One problem of a list, its own lines indented under it: a problem that is itself a list (a provider's
 * `ConfigError` with two problems) reads as one item holding two, not as three items.
 */
export function listItem(problem: string): string {
  return `  - ${problem.replaceAll("\n", "\n    ")}\n`;
}
