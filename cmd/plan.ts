/**
 * `cloud-controller-manager plan [same flags as a run] [-o json]`: every write the manager would make on its first
 * pass, and none of them. It lists the Nodes and Services once, asks the cloud what the controllers would ask (reads
 * only: a load balancer is previewed with `planLoadBalancer`, never ensured), runs each enabled controller's planner
 * (`controllers/dry-run/`), and prints the writes grouped by object with the controller's reason. No lease, no informer,
 * no Event: it needs only read permissions (deploy/kubernetes/plan-rbac.yaml).
 *
 * Exit 0: nothing would change; 2: something would (or may: a provider that cannot preview its load balancers);
 * 1: the plan could not be made or is incomplete (bad flags, an API or cloud read failed).
 *
 * A provider with `initialize` (metal reads its inventory from ConfigMaps, hcloud maps routes to Nodes) is started as
 * the manager starts it, over shared informers (list and watch), and stopped once the plan is made. Belt and braces:
 * the Kubernetes client and every provider call carry a write fence that refuses every write, so a provider that
 * tried one anyway would fail the plan (exit 1) instead of changing anything.
 */
import { defineCommand } from "citty";
import { type ConsolaInstance, createConsola } from "consola";
import { Registry } from "prom-client";
import { gatherPlan, planExitCode, renderPlanJson, renderPlanText } from "../controllers/dry-run/index.ts";
import { enabledControllers } from "../controllers/names.ts";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import { createInformerFactory } from "../kube/informer-factory.ts";
import type { Node, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { TermOverError, type WriteFence } from "../kube/write-fence.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import { createProviderRuntime } from "../providers/runtime.ts";
import type { Subcommand, SubcommandEnv } from "./command.ts";
import type { Options } from "./options.ts";
import { readSubcommandFlags } from "./subcommand-options.ts";

type Print = (text: string) => void;

export const planCommand: Subcommand = (env) =>
  defineCommand({
    meta: {
      name: "plan",
      description: "show every write the manager would make, and make none; exit 2 if any (-o json for machines)",
    },
    run: async ({ rawArgs }) =>
      runPlan(env, rawArgs, {
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
      }),
  });

/** `-o json`, `-o=json`, `-ojson`, `--output json`, `--output=json` (and `text`); the rest is the manager's flags. */
export function splitOutputFlag(argv: readonly string[]): { output: string; rest: string[]; error?: string } {
  let output = "text";
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const joined = /^(?:-o=?|--output=)(.+)$/.exec(arg);
    if (joined?.[1] !== undefined) {
      output = joined[1];
      continue;
    }
    if (arg === "-o" || arg === "--output") {
      const next = argv[i + 1];
      if (next === undefined) return { output, rest, error: `${arg} needs a value: text or json` };
      output = next;
      i++;
      continue;
    }
    rest.push(arg);
  }
  if (output !== "text" && output !== "json") {
    return { output, rest, error: `-o/--output: "${output}" is not an output format; use -o json or -o text` };
  }
  return { output, rest };
}

export async function runPlan(
  env: SubcommandEnv,
  argv: readonly string[],
  io: { stdout: Print; stderr: Print },
): Promise<number> {
  const split = splitOutputFlag(argv);
  const { parsed, presetErrors, built } = readSubcommandFlags(env, split.rest);
  const errors = [
    ...(split.error ? [split.error] : []),
    ...parsed.errors,
    ...(parsed.positionals.length > 0 ? [`plan takes no arguments, got [${parsed.positionals.join(" ")}]`] : []),
    ...presetErrors,
    ...(built.ok ? [] : built.errors),
  ];
  if (errors.length > 0 || !built.ok) {
    io.stderr(
      `error: ${env.binaryName} plan: invalid command line:\n${errors.map((e) => `  - ${e}\n`).join("")}Run '${env.invocation} plan --help' for the flags.\n`,
    );
    return 1;
  }
  const o = built.options;
  // Ends the provider's background work and the informers once the plan is made.
  const done = new AbortController();
  const signal = AbortSignal.any([env.signal, done.signal]);
  try {
    return await plan(env, o, split.output, signal, io);
  } finally {
    done.abort();
  }
}

/** Every write is refused: `plan` must change nothing, whatever a provider tries. */
const refuseWrites: WriteFence = {
  enter(what) {
    throw new TermOverError(`plan makes no write; refused: ${what}`);
  },
};

async function plan(
  env: SubcommandEnv,
  o: Options,
  output: string,
  signal: AbortSignal,
  io: { stdout: Print; stderr: Print },
): Promise<number> {
  // Warnings and errors only, on stderr: stdout carries the plan (JSON with -o json).
  const logger = createConsola({
    level: o.verbosity >= 4 ? 4 : 1,
    reporters: [{ log: (l) => io.stderr(`${l.type} ${l.tag ? `${l.tag}] ` : ""}${l.args.map(String).join(" ")}\n`) }],
  });
  let client: KubeClient;
  let nodes: Node[];
  let services: Service[];
  try {
    const transport = loadTransport({
      kubeconfig: o.kubeconfig || undefined,
      master: o.master || undefined,
      env: process.env,
      signal,
    });
    client = createKubeClient(transport, {
      qps: o.kubeApiQps,
      burst: o.kubeApiBurst,
      userAgent: "cloud-controller-manager/plan",
      fence: refuseWrites,
    });
    nodes = (await client.list<Node>(Resources.nodes, { signal })).items;
    services = (await client.list<Service>(Resources.services, { signal })).items;
  } catch (err) {
    io.stderr(
      `error: ${env.binaryName} plan: cannot read Nodes and Services: ${(err as Error).message}\n  fix: pass --kubeconfig=<path> (or run in-cluster) for an identity that may list and watch nodes and services (deploy/kubernetes/plan-rbac.yaml)\n`,
    );
    return 1;
  }

  let provider: CloudProvider;
  try {
    provider = await env.registry.init(o.cloudProvider, o.cloudConfig || undefined, process.env, {
      logger,
      maxAnswerBytes: o.cloudApiMaxAnswerBytes,
    });
  } catch (err) {
    io.stderr(`error: ${env.binaryName} plan: cloud provider "${o.cloudProvider}": ${(err as Error).message}\n`);
    return 1;
  }
  if (!provider.hasClusterID() && !o.allowUntaggedCloud) {
    io.stderr(
      `error: ${env.binaryName} plan: the manager would not start with these flags: no ClusterID found (set it in the cloud-config, or pass --allow-untagged-cloud)\n`,
    );
    return 1;
  }
  try {
    await initializeProvider(provider, client, logger, signal);
  } catch (err) {
    io.stderr(
      `error: ${env.binaryName} plan: cloud provider "${o.cloudProvider}" failed to initialize: ${(err as Error).message}\n`,
    );
    return 1;
  }

  const result = await gatherPlan({
    provider,
    controllers: enabledControllers(o.controllers),
    nodes,
    services,
    options: {
      clusterName: o.clusterName,
      clusterCIDR: o.clusterCIDR,
      configureCloudRoutes: o.configureCloudRoutes,
      allocateNodeCIDRs: o.allocateNodeCIDRs,
      cidrAllocatorType: o.cidrAllocatorType,
    },
    ctx: { signal, fence: refuseWrites },
    now: Date.now,
  });
  io.stdout(output === "json" ? renderPlanJson(result) : renderPlanText(result));
  return planExitCode(result);
}

/** How long a provider may take to start (its caches, its first cloud read) before the plan gives up. */
const INITIALIZE_TIMEOUT_MS = 60_000;

/** `initialize` as the manager calls it, over shared informers of this plan's own (reads only). */
async function initializeProvider(
  provider: CloudProvider,
  client: KubeClient,
  logger: ConsolaInstance,
  signal: AbortSignal,
): Promise<void> {
  if (!provider.initialize) return;
  const informers = createInformerFactory({ client, logger: logger.withTag("informers") });
  informers.start(signal);
  const runtime = createProviderRuntime({
    signal,
    logger: logger.withTag(provider.providerName),
    kube: client,
    metrics: new Registry(),
    informers,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`did not finish within ${INITIALIZE_TIMEOUT_MS / 1000}s`)),
      INITIALIZE_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([provider.initialize(runtime), late]);
  } finally {
    clearTimeout(timer);
  }
}
