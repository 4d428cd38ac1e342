/**
 * `bun run bench`: every benchmark of the project, against the compiled all-in-one executable, the sandbox's API
 * emulator and its simulated cloud. Prints one table on stdout (progress on stderr) and writes it as JSON.
 * These are measurements, not tests: nothing here runs in `npm test`. Figures and how to read them:
 * docs/performance.md.
 *
 *   bun run bench                         every benchmark, at a tenth of the size and at the full size
 *   bun run bench --only=nodes,services   some of them (nodes, services, startup, footprint, hcloud, digitalocean, scaleway, openstack)
 *   bun run bench --size=tenth            one size (tenth | full | both)
 *   bun run bench --runs=10               start-up runs to take the median of (default 10)
 *   bun run bench --window=60             each of the two steady-state windows, in seconds (default 60)
 *   bun run bench --only=footprint --size=full --footprint-nodes=1000   the footprint at 1000 Nodes, 400 Services
 *   bun run bench --out=build/bench/results.json
 *   bun run bench --markdown=build/bench/results.json   print a saved run as Markdown tables, run nothing
 *   bun run bench --reuse-build           keep build/bench-bin as it is (default: rebuild, ~3 s, so the
 *                                         figures describe the working tree)
 *   bun run bench --against-upstream      ours beside upstream's Go CCM 1.20 on a real kube-apiserver 1.20
 *                                         (scripts/bench/upstream/; builds it from Debian's source the first
 *                                         time, minutes); with --sizes=1000,5000, --services=100, --runs
 *                                         (start-up runs), --ours=<executable>, --keep-snapshots=<folder>,
 *                                         --only-ours (upstream neither built nor run), --level-nodes=1000
 *                                         (joins in a one-share APF level that rejects, then queues; 0: none),
 *                                         --levels=rejecting,queuing (which of them)
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { dirname, relative, resolve } from "node:path";
import { parseScriptArgs } from "../../platform/script-args.ts";
import { benchExecutable } from "./ccm.ts";
import type { BenchContext, Benchmark } from "./context.ts";
import { digitalOceanApiCallsBenchmark } from "./digitalocean-api-calls.ts";
import { footprintBenchmark } from "./footprint.ts";
import { hcloudApiCallsBenchmark } from "./hcloud-api-calls.ts";
import { openstackApiCallsBenchmark, scalewayApiCallsBenchmark } from "./node-refresh-calls.ts";
import { nodesBenchmark } from "./nodes.ts";
import { type BenchResult, renderMarkdown, renderTable, SCALES, type Scale, toJson } from "./report.ts";
import { servicesBenchmark } from "./services.ts";
import { startupBenchmark } from "./startup.ts";
import { againstUpstreamOptions, runAgainstUpstream } from "./upstream/index.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const BENCHMARKS: readonly Benchmark[] = [
  startupBenchmark,
  nodesBenchmark,
  servicesBenchmark,
  footprintBenchmark,
  hcloudApiCallsBenchmark,
  digitalOceanApiCallsBenchmark,
  scalewayApiCallsBenchmark,
  openstackApiCallsBenchmark,
];

const USAGE = `usage: npm run bench -- [--only=startup,nodes,services,footprint,hcloud,digitalocean,scaleway,openstack] [--size=tenth|full|both]
       [--runs=10] [--window=60] [--footprint-nodes=N] [--out=build/bench/results.json] [--reuse-build] [--markdown=<results.json>]
       [--against-upstream [--sizes=1000,5000] [--services=100] [--ours=…] [--keep-snapshots=…] [--only-ours]
       [--level-nodes=1000] [--levels=rejecting,queuing]]
Builds the host all-in-one and times it (docs/performance.md); writes the results as JSON and prints a table.`;

function options(argv: string[]) {
  const parsed = parseScriptArgs("bench", USAGE, argv, {
    only: { type: "string" },
    size: { type: "string", default: "both" },
    runs: { type: "string", default: "10" },
    window: { type: "string", default: "60" },
    "footprint-nodes": { type: "string" },
    out: { type: "string", default: "build/bench/results.json" },
    "reuse-build": { type: "boolean", default: false },
    markdown: { type: "string" },
    "against-upstream": { type: "boolean", default: false },
    sizes: { type: "string", default: "1000,5000" },
    services: { type: "string", default: "100" },
    ours: { type: "string" },
    "keep-snapshots": { type: "string" },
    "only-ours": { type: "boolean", default: false },
    "level-nodes": { type: "string", default: "1000" },
    levels: { type: "string", default: "rejecting,queuing" },
  });
  if (!parsed.ok) {
    process.stdout.write(parsed.stdout);
    process.stderr.write(parsed.stderr);
    process.exit(parsed.code);
  }
  const { values } = parsed;
  const known = new Map(BENCHMARKS.map((b) => [b.id, b]));
  const only = values.only?.split(",").map((s) => s.trim()) ?? [...known.keys()];
  const unknown = only.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new Error(`--only: unknown ${unknown.join(", ")}; known: ${[...known.keys()].join(", ")}`);
  const scales: Scale[] =
    values.size === "both" ? [...SCALES] : SCALES.includes(values.size as Scale) ? [values.size as Scale] : [];
  if (scales.length === 0) throw new Error(`--size must be tenth, full or both, got "${values.size}"`);
  const runs = Number(values.runs);
  const window = Number(values.window);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, got "${values.runs}"`);
  if (!(window > 0)) throw new Error(`--window must be a number of seconds > 0, got "${values.window}"`);
  const footprintNodes = values["footprint-nodes"] === undefined ? undefined : Number(values["footprint-nodes"]);
  if (footprintNodes !== undefined && !(Number.isInteger(footprintNodes) && footprintNodes > 0))
    throw new Error(`--footprint-nodes must be a whole number of Nodes > 0, got "${values["footprint-nodes"]}"`);
  return {
    againstUpstream: values["against-upstream"]
      ? againstUpstreamOptions(values.sizes, values.runs, values["reuse-build"], values.services, {
          ours: values.ours,
          keepSnapshots: values["keep-snapshots"],
          onlyOurs: values["only-ours"],
          levelNodes: values["level-nodes"],
          levels: values.levels,
        })
      : undefined,
    benchmarks: only.map((id) => known.get(id) as Benchmark),
    scales,
    runs,
    window,
    footprintNodes,
    out: resolve(ROOT, values.out),
    reuse: values["reuse-build"],
    markdown: values.markdown,
  };
}

async function machine(exe: string) {
  const version = Bun.spawnSync([exe, "--version"]).stdout.toString().trim();
  const commit = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  const dirty =
    Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: ROOT }).stdout.length > 0;
  return {
    date: new Date().toISOString(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    bun: Bun.version,
    platform: `${process.platform}-${process.arch}`,
    executable: relative(ROOT, exe),
    executableVersion: version,
    commit: dirty ? `${commit} (with uncommitted changes)` : commit,
  };
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  if (o.againstUpstream) {
    await runAgainstUpstream(o.againstUpstream);
    return;
  }
  if (o.markdown) {
    process.stdout.write(renderMarkdown(await Bun.file(resolve(ROOT, o.markdown)).json()));
    return;
  }
  const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  log(o.reuse ? "reusing build/bench-bin if present" : "building the host all-in-one into build/bench-bin");
  const exe = await benchExecutable(o.reuse);
  const built = await machine(exe); // the tree the executable was built from, before other work changes it
  const ctx: BenchContext = {
    exe,
    scales: o.scales,
    log,
    startupRuns: o.runs,
    steadySeconds: o.window,
    footprintNodes: o.footprintNodes,
  };
  const started = performance.now();
  const results: BenchResult[] = [];
  for (const b of o.benchmarks) {
    log(`${b.id}: ${b.title}`);
    results.push(await b.run(ctx));
  }
  const about = { ...built, totalSeconds: Math.round((performance.now() - started) / 1000) };
  await mkdir(dirname(o.out), { recursive: true });
  await writeFile(o.out, `${JSON.stringify(toJson(results, about), null, 2)}\n`);
  process.stdout.write(`${renderTable(results)}\n\n`);
  process.stdout.write(
    `machine: ${about.cpus} × ${about.cpuModel}, ${about.memoryGiB} GiB, Bun ${about.bun}, ${about.commit}; ${about.totalSeconds} s\n`,
  );
  process.stdout.write(`wrote ${relative(ROOT, o.out)}\n`);
}

if (import.meta.main) {
  try {
    await main();
    process.exit(0); // the emulator's keep-alive sockets would hold the process open for a while
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
}
