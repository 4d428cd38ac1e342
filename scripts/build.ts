/**
 * `npm run build`: one self-contained executable per shippable provider and the all-in-one, per target.
 *
 *   dist/<provider>-cloud-controller-manager-<os>-<arch>   (its provider, plus metal and the composite to compose with)
 *   dist/cloud-controller-manager-<os>-<arch>          (all providers, `--cloud-provider`, the `sandbox` command)
 *   dist/cloud-controller-manager-<version>.tgz         (the Helm chart of deploy/helm/, `helm package`d; linux-x64 hosts)
 *   dist/SHA256SUMS
 *   dist/sbom.cdx.json                                 (CycloneDX: the npm packages and runtime compiled in; scripts/sbom.ts)
 *
 * Providers are discovered from `providers/<name>/index.ts`; a provider opts out of shipping with
 * `export const shippable = false`, into every per-provider executable with `export const inEveryExecutable = true`
 * (metal, which the composite can add to any cloud), and out of an executable of its own while in all others with
 * `export const composesOthers = true` (the composite). Entries are generated into build/entries/ (nothing else to edit when a
 * provider is added). Cross-compiling needs Bun's runtime for the target: it is taken from the npm registry as
 * the `@oven/bun-<os>-<arch>` package (`npm pack`, which checks the registry's integrity hash) at exactly this
 * Bun's version, cached in .cache/bun-runtimes/.
 *
 * Options, after `--` when given through npm (`npm run build -- --target=linux-x64`; npm keeps those before it):
 * --target=linux-x64,linux-arm64 (default both plus the host), --provider=a,b (limit the per-provider executables),
 * --no-all-in-one, --version=v1.2.3 (default: package.json version and the git commit), --outdir=dist.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { $, type BunPlugin } from "bun";
import { BYTECODE_ORDER } from "./bytecode-order.ts";
import { helmBinary, noHelm } from "./lib/helm.ts";
import { sbomFor } from "./sbom.ts";

const ROOT = resolve(import.meta.dir, "..");
const TARGETS = {
  "linux-x64": { bun: "bun-linux-x64", npm: "@oven/bun-linux-x64" },
  "linux-arm64": { bun: "bun-linux-arm64", npm: "@oven/bun-linux-aarch64" },
} as const;
type Target = keyof typeof TARGETS;

export interface ProviderInfo {
  readonly name: string;
  readonly shippable: boolean;
  /**
   * `export const composesOthers = true`: built from the other providers of its executable (the composite). It is
   * in every executable and has none of its own. Set only when true.
   */
  readonly composesOthers?: true;
  /** `export const inEveryExecutable = true`: also in every per-provider executable, to compose with. Set only when true. */
  readonly inEveryExecutable?: true;
}

/** Every provider folder with an `index.ts`, whether it ships, and how it is bundled. */
export async function discoverProviders(root = ROOT): Promise<ProviderInfo[]> {
  const dir = join(root, "providers");
  const out: ProviderInfo[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const index = join(dir, entry.name, "index.ts");
    if (!entry.isDirectory() || !existsSync(index)) continue;
    const text = await readFile(index, "utf8");
    out.push({
      name: entry.name,
      shippable: !/export const shippable = false/.test(text),
      ...(/export const composesOthers = true/.test(text) && { composesOthers: true as const }),
      ...(/export const inEveryExecutable = true/.test(text) && { inEveryExecutable: true as const }),
    });
  }
  return out;
}

/** The providers a provider's own executable holds: itself, then those every executable holds (metal, composite). */
export function providersOfExecutable(name: string, providers: readonly ProviderInfo[]): string[] {
  const everywhere = providers.filter((p) => p.shippable && (p.inEveryExecutable || p.composesOthers));
  return [...new Set([name, ...everywhere.map((p) => p.name)])];
}

function hostTarget(): Target | undefined {
  const key = `${process.platform}-${process.arch}`;
  return key in TARGETS ? (key as Target) : undefined;
}

async function runtimeFor(target: Target): Promise<string | undefined> {
  if (target === hostTarget()) return undefined; // the running Bun is the host's runtime
  const { npm } = TARGETS[target];
  const cache = join(ROOT, ".cache", "bun-runtimes", `${basename(npm)}-${Bun.version}`);
  const binary = join(cache, "package", "bin", "bun");
  if (existsSync(binary)) return binary;
  await mkdir(cache, { recursive: true });
  console.log(`fetching ${npm}@${Bun.version} from the npm registry`);
  const tarball = (await $`npm pack --silent ${`${npm}@${Bun.version}`}`.cwd(cache).text()).trim().split("\n").pop();
  await $`tar xzf ${tarball} package/bin/bun`.cwd(cache);
  await rm(join(cache, tarball as string));
  return binary;
}

async function buildInfo(versionFlag: string | undefined) {
  const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
  const commit = (await $`git rev-parse --short=12 HEAD`.cwd(ROOT).nothrow().quiet().text()).trim() || "unknown";
  return { version: versionFlag ?? `v${pkg.version}`, commit, buildDate: new Date().toISOString() };
}

export function entrySource(providers: readonly string[], main: Record<string, unknown>, allInOne: boolean): string {
  const rel = (p: string) => JSON.stringify(relative(join(ROOT, "build", "entries"), join(ROOT, p)));
  // A provider's own executable evaluates its providers at start: it runs one of them. The all-in-one names each
  // (`registerLazily`, as providers/all.ts does) and loads only the one `--cloud-provider` builds, from a chunk of
  // its own (`splitting`): evaluating the seven others cost 1.5 MiB of idle RssAnon.
  const providerLines = allInOne
    ? [
        `import { globalRegistry } from ${rel("providers/registry.ts")};`,
        ...providers.map(
          (p) =>
            `globalRegistry.registerLazily(${JSON.stringify(p)}, () => import(${rel(`providers/${p}/index.ts`)}));`,
        ),
      ]
    : providers.map((p) => `import ${rel(`providers/${p}/index.ts`)};`);
  const lines = [
    "// Generated by scripts/build.ts; do not edit.",
    ...providerLines,
    `import { main } from ${rel("cmd/entry.ts")};`,
  ];
  const subcommands = allInOne ? "allInOneSubcommands" : "providerSubcommands";
  lines.push(`import { ${subcommands} } from ${rel("cmd/subcommands.ts")};`);
  lines.push(`await main({ ...${JSON.stringify(main)}, subcommands: ${subcommands} });`);
  return `${lines.join("\n")}\n`;
}

/**
 * What the executables import from `prom-client`, each from its own module under `prom-client/lib/`. The package's
 * index also loads the Pushgateway (node:http, node:https, node:zlib, node:url) and the cluster AggregatorRegistry
 * (node:cluster), which no executable uses: skipping them saves 1.3 MiB of anonymous memory and 1.0 MiB RSS on the
 * idle all-in-one (docs/performance.md, "Idle memory, second pass"). Importing anything else from prom-client fails
 * the build ("No matching export"); add it here. Runs from source load the whole package, as before.
 */
export const PROM_CLIENT_EXPORTS = {
  Counter: "counter",
  Gauge: "gauge",
  Histogram: "histogram",
  Registry: "registry",
  collectDefaultMetrics: "defaultMetrics",
} as const;

/** The module the executables get for `prom-client`: the exports above, each re-exported from its own file. */
export function promClientCoreSource(root = ROOT): string {
  return Object.entries(PROM_CLIENT_EXPORTS)
    .map(([name, file]) => {
      const path = Bun.resolveSync(`prom-client/lib/${file}.js`, root);
      return `export { default as ${name} } from ${JSON.stringify(path)};`;
    })
    .join("\n");
}

const promClientCore: BunPlugin = {
  name: "prom-client-core",
  setup(b) {
    b.onResolve({ filter: /^prom-client$/ }, () => ({ path: "prom-client", namespace: "prom-client-core" }));
    b.onLoad({ filter: /.*/, namespace: "prom-client-core" }, () => ({
      contents: promClientCoreSource(),
      loader: "js",
    }));
  },
};

/**
 * JavaScriptCore's tier-up thresholds at start-up, multiplied (`compile.jitPolicy`); the executable sets them back to
 * normal a minute after it started (cmd/entry.ts). A start-up wave — relisting the cluster, initialising the Nodes
 * that joined while no manager ran — is bound by the API server and the cloud, not by our code: in the side-by-side
 * bench 1000 joins took the same time with the JIT all but off, while the JIT's compilers (file-backed pages of the
 * runtime) and their code (anonymous pages) added 3-6 MiB at idle and about 15 MiB to the peak (docs/performance.md).
 * Left so, the periodic work over 5000 Nodes would cost more CPU at rest, interpreted. Not more than 30: a function
 * keeps the threshold it was given when it first ran, so at 1000 the code first run in that minute (the periodic
 * passes' own) waited some 33000 calls to leave the interpreter, and CPU at rest stayed above the build without it
 * for minutes; at 30 (about 1000 calls) it tiers up within a pass, and 1000 joins peak 6-9 MiB higher than at 1000.
 */
const JIT_POLICY = 30;

async function compile(entry: string, outfile: string, target: Target): Promise<void> {
  const executablePath = await runtimeFor(target);
  const result = await Bun.build({
    entrypoints: [entry],
    compile: {
      target: TARGETS[target].bun,
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      jitPolicy: JIT_POLICY,
      // The functions a run of the manager used first in the file (scripts/bytecode-order.ts).
      ...(existsSync(BYTECODE_ORDER) ? { bytecodeOrder: BYTECODE_ORDER } : {}),
      ...(executablePath ? { executablePath } : {}),
    },
    bytecode: true,
    // Code loaded by `import()` (the providers not chosen, the sandbox's emulators) goes into chunks of its own in
    // the executable, evaluated only when imported: in one bundle every module's top-level names would sit in one
    // module record at start (1.2 against 1.7 MiB of it, 1.1 MiB less RssAnon idle; docs/performance.md).
    splitting: true,
    format: "esm",
    minify: { whitespace: false, syntax: true, identifiers: false },
    // Embedded in the executable (about 1% of its size): stack traces and the JSON logs' `caller` (cmd/logger.ts)
    // name our .ts files and lines instead of the bundle's. The side file Bun also writes is not shipped.
    sourcemap: "linked",
    plugins: [promClientCore],
  } as Parameters<typeof Bun.build>[0]);
  if (!result.success) {
    throw new Error(`build of ${basename(outfile)} failed:\n${result.logs.map(String).join("\n")}`);
  }
  for (const out of result.outputs) if (out.path.endsWith(".map")) await rm(out.path, { force: true });
}

/**
 * `helm package` of deploy/helm/cloud-controller-manager into `outdir`, versioned as the executables (`v1.2.3` is
 * chart version 1.2.3 and appVersion v1.2.3), with the pinned Helm (scripts/lib/helm.ts). Returns the archive's
 * path, or undefined with the reason logged where that Helm cannot run.
 */
export async function packageChart(outdir: string, version: string): Promise<string | undefined> {
  const why = noHelm();
  if (why) {
    console.log(`chart not packaged: ${why}`);
    return undefined;
  }
  const helm = await helmBinary(join(ROOT, "build", "helm"));
  const chart = join(ROOT, "deploy", "helm", "cloud-controller-manager");
  const out =
    await $`${helm} package ${chart} --destination ${outdir} --version ${version.replace(/^v/, "")} --app-version ${version}`
      .quiet()
      .nothrow();
  const saved = /Successfully packaged chart and saved it to: (\S+)/.exec(out.stdout.toString())?.[1];
  if (out.exitCode !== 0 || !saved) throw new Error(`helm package failed:\n${out.stderr.toString().trim()}`);
  return saved;
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256")
    .update(new Uint8Array(await Bun.file(path).arrayBuffer()))
    .digest("hex");
}

export async function build(argv: string[]): Promise<string[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string" },
      provider: { type: "string" },
      "no-all-in-one": { type: "boolean", default: false },
      version: { type: "string" },
      outdir: { type: "string", default: "dist" },
    },
  });
  const host = hostTarget();
  const requested = values.target?.split(",") ?? [...new Set([...Object.keys(TARGETS), ...(host ? [host] : [])])];
  const unknown = requested.filter((t) => !(t in TARGETS));
  if (unknown.length > 0)
    throw new Error(`--target: unknown ${unknown.join(", ")}; known: ${Object.keys(TARGETS).join(", ")}`);
  const targets = requested as Target[];

  const discovered = await discoverProviders();
  const shipped = discovered.filter((p) => p.shippable);
  const providers = shipped.map((p) => p.name);
  const ownExecutables = shipped.filter((p) => !p.composesOthers).map((p) => p.name);
  const only = values.provider?.split(",");
  const missing = only?.filter((p) => !ownExecutables.includes(p)) ?? [];
  if (missing.length > 0)
    throw new Error(`--provider: no shippable provider ${missing.join(", ")}; have ${ownExecutables.join(", ")}`);
  const perProvider = only ?? ownExecutables;

  const info = await buildInfo(values.version);
  const outdir = resolve(ROOT, values.outdir);
  const entries = join(ROOT, "build", "entries");
  await mkdir(entries, { recursive: true });
  await mkdir(outdir, { recursive: true });

  const jobs: { entry: string; name: string }[] = [];
  for (const p of perProvider) {
    const entry = join(entries, `${p}.ts`);
    const binaryName = `${p}-cloud-controller-manager`;
    const bundled = providersOfExecutable(p, discovered);
    await writeFile(entry, entrySource(bundled, { binaryName, presetProvider: p, build: info }, false));
    jobs.push({ entry, name: binaryName });
  }
  if (!values["no-all-in-one"]) {
    const entry = join(entries, "all-in-one.ts");
    await writeFile(entry, entrySource(providers, { binaryName: "cloud-controller-manager", build: info }, true));
    jobs.push({ entry, name: "cloud-controller-manager" });
  }

  const built: string[] = [];
  for (const target of targets) {
    for (const job of jobs) {
      const outfile = join(outdir, `${job.name}-${target}`);
      const started = performance.now();
      await compile(job.entry, outfile, target);
      console.log(`built ${relative(ROOT, outfile)} (${((performance.now() - started) / 1000).toFixed(1)}s)`);
      built.push(outfile);
    }
  }
  const chart = await packageChart(outdir, info.version);
  if (chart) {
    console.log(`packaged ${relative(ROOT, chart)}`);
    built.push(chart);
  }
  await writeFile(
    join(outdir, "sbom.cdx.json"),
    await sbomFor(ROOT, { name: "cloud-controller-manager", version: info.version, timestamp: info.buildDate }),
  );
  const sums = await Promise.all(built.map(async (f) => `${await sha256(f)}  ${basename(f)}`));
  await writeFile(join(outdir, "SHA256SUMS"), `${sums.join("\n")}\n`);
  console.log(
    `wrote ${relative(ROOT, join(outdir, "SHA256SUMS"))} (${built.length} files, ${info.version} ${info.commit})`,
  );
  return built;
}

/** The build's options that npm takes for its own configuration when they come before `--`. */
const NPM_SWALLOWED = ["target", "provider", "all-in-one", "outdir"] as const;

/**
 * `npm run build --target=linux-x64` (no `--`) gives the options to npm, which warns "Unknown cli config" and hands
 * them to the script only as `npm_config_*` variables: the build would silently make everything. Returns the
 * message that says which command was meant, or undefined when npm kept none of the build's options.
 */
export function npmConfigLeftovers(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (env.npm_lifecycle_event !== "build") return undefined;
  const given = new Set(argv.map((a) => /^--(?:no-)?([^=]+)/.exec(a)?.[1]));
  const meant: string[] = [];
  for (const name of NPM_SWALLOWED) {
    const value = env[`npm_config_${name.replaceAll("-", "_")}`];
    if (value === undefined || given.has(name)) continue;
    if (name === "all-in-one") {
      if (value === "" || value === "false") meant.push("--no-all-in-one");
    } else meant.push(`--${name}=${value}`);
  }
  if (meant.length === 0) return undefined;
  return `npm kept ${meant.join(" ")} for itself (options before "--" are npm's); run: npm run build -- ${[...meant, ...argv].join(" ")}`;
}

if (import.meta.main) {
  try {
    const leftovers = npmConfigLeftovers(process.argv.slice(2), process.env);
    if (leftovers) throw new Error(leftovers);
    await build(process.argv.slice(2));
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  }
}
