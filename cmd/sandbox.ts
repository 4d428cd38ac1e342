/**
 * `cloud-controller-manager sandbox`: an embedded Kubernetes API, a simulated cloud with `--nodes` machines,
 * kubelets that register them, a LoadBalancer Service, and (unless `--controllers=false`) the real controllers
 * in-process with the `sandbox` provider. It writes a kubeconfig and a cloud-config, prints where they are and
 * how to watch, shows progress, and runs until interrupted (or until ready, with `--exit-when-ready`).
 *
 * `--cloud=hcloud` adds the Hetzner Cloud API emulator with one server per machine (same names, in network `k8s`)
 * and runs the `hcloud` provider against it instead; it prints the `HCLOUD_*` environment and, with
 * `--controllers=false`, the command that runs this executable's `hcloud` provider against it. `--cloud=digitalocean`
 * does the same with the DigitalOcean API emulator (one Droplet per machine), `--cloud=scaleway` with the Scaleway
 * emulator (Instances and Elastic Metal servers) and `--cloud=openstack` with the OpenStack emulator and a cloud.conf
 * (sandbox/clouds.ts).
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineCommand } from "citty";
import { createKubeClient } from "../kube/client.ts";
import { Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { createMetricsRegistry } from "../platform/metrics.ts";
import type { RealCloud } from "../sandbox/clouds.ts";
import { HCLOUD_MAX_NODES, SANDBOX_CLUSTER_CIDR, type SandboxCloud, sandboxClouds } from "../sandbox/names.ts";
import { parseArgv } from "./argv.ts";
import type { Subcommand } from "./command.ts";
import { createRootLogger } from "./logger.ts";
import { buildOptions } from "./options.ts";

const positiveInt = (name: string, value: string, max: number): number | string => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= max
    ? n
    : `--${name} must be a whole number from 0 to ${max}, got "${value}"`;
};

export const sandboxCommand: Subcommand = (env) =>
  defineCommand({
    meta: {
      name: "sandbox",
      description: "run an embedded Kubernetes API and simulated cloud with the real controllers",
    },
    args: {
      nodes: { type: "string", default: "3", description: "machines (and Nodes) to create" },
      services: { type: "string", default: "1", description: "LoadBalancer Services to create" },
      controllers: {
        type: "string",
        default: "true",
        description: "run the controllers in-process (false: run them yourself)",
      },
      dir: {
        type: "string",
        description: "where to write kubeconfig and cloud.yaml (default: a new temporary folder)",
      },
      port: { type: "string", default: "0", description: "API server port (0: any free port)" },
      cloud: {
        type: "string",
        default: "sandbox",
        description:
          "the cloud to run the provider against: sandbox, hcloud, digitalocean, scaleway or openstack (their API emulators)",
      },
      "exit-when-ready": { type: "boolean", default: false, description: "stop once every node and Service is ready" },
      v: { type: "string", default: "0", description: "log verbosity for the controllers" },
    },
    run: async ({ args }) => {
      const print = (line: string) => process.stdout.write(`${line}\n`);
      const errors: string[] = [];
      const known = new Set(["nodes", "services", "controllers", "dir", "port", "cloud", "exit-when-ready", "v", "_"]);
      for (const key of Object.keys(args)) {
        if (!known.has(key) && !/[A-Z]/.test(key)) errors.push(`unknown flag: --${key}`);
      }
      const nodes = positiveInt("nodes", String(args.nodes), 20_000);
      const services = positiveInt("services", String(args.services), 10_000);
      const port = positiveInt("port", String(args.port), 65_535);
      const controllers = String(args.controllers);
      for (const v of [nodes, services, port]) if (typeof v === "string") errors.push(v);
      if (controllers !== "true" && controllers !== "false")
        errors.push(`--controllers must be true or false, got "${controllers}"`);
      const cloudName = String(args.cloud) as SandboxCloud;
      if (!sandboxClouds.includes(cloudName))
        errors.push(`--cloud must be one of ${sandboxClouds.join(", ")}, got "${cloudName}"`);
      if (cloudName === "hcloud" && typeof nodes === "number" && nodes > HCLOUD_MAX_NODES)
        errors.push(`--nodes must be at most ${HCLOUD_MAX_NODES} with --cloud=hcloud, got ${nodes}`);
      if (errors.length > 0 || typeof nodes !== "number" || typeof services !== "number" || typeof port !== "number") {
        process.stderr.write(
          `error: sandbox: ${errors.join("; ")}\nRun '${env.invocation} sandbox --help' for its flags.\n`,
        );
        return 1;
      }
      const {
        commandLine,
        createMachines,
        startApiServer,
        startKubelets,
        startRealCloud,
        startSimulatedCloud,
        watchProgress,
      } = await import("./sandbox-parts.ts");
      const logger = createRootLogger({ verbosity: Number(args.v) || 0, format: "text" });
      const stop = new AbortController();
      const signal = AbortSignal.any([env.signal, stop.signal]);
      const dir = args.dir ? resolve(String(args.dir)) : await mkdtemp(join(tmpdir(), "ccm-sandbox-"));
      await mkdir(dir, { recursive: true });

      // SANDBOX_APF_HEADERS=false: an API server without flow control, whose clients keep their client-side limit.
      const flowControlHeaders = process.env.SANDBOX_APF_HEADERS !== "false";
      const api = await startApiServer({ port, logger: logger.withTag("apiserver"), flowControlHeaders });
      const cloudToken = randomBytes(16).toString("hex");
      const cloud = startSimulatedCloud({ token: cloudToken, logger: logger.withTag("cloud") });
      const kubeconfig = join(dir, "kubeconfig");
      const cloudConfig = join(dir, "cloud.yaml");
      await api.writeKubeconfig(kubeconfig);
      await writeFile(cloudConfig, `url: ${cloud.url}\ntoken: ${cloudToken}\n`, { mode: 0o600 });
      const machines = createMachines(cloud.state, nodes);
      const real =
        cloudName === "sandbox"
          ? undefined
          : await startRealCloud(cloudName, { machines: machines.map((m) => m.name), dir, logger });
      // Services the provider cannot serve would never be ready: say so rather than make them.
      const made = real && !real.loadBalancers ? 0 : services;
      try {
        print(`Kubernetes API:  ${api.url}`);
        print(`kubeconfig:      ${kubeconfig}`);
        if (real) {
          print(`${real.banner}, ${nodes} ${real.machines}`);
          for (const [key, value] of Object.entries(real.env)) print(`  ${key}=${value}`);
          if (real.envFile) print(`  (also in ${real.envFile}: set -a; . ${real.envFile}; set +a)`);
        } else {
          print(`cloud-config:    ${cloudConfig}`);
          print(`simulated cloud: ${cloud.url}/v1 (docs/sandbox.md)`);
        }
        if (made < services) print(`Services:        none (the ${real?.provider} provider has no load balancers yet)`);
        // kubectl watches one resource type at a time (`get nodes,services -w` is refused): one line each.
        print(`watch it:        kubectl --kubeconfig ${kubeconfig} get nodes -o wide -w`);
        print(`                 kubectl --kubeconfig ${kubeconfig} get services -o wide -w`);
        print(
          args["exit-when-ready"]
            ? "stops:           once every node and Service is ready"
            : `stop it:         Ctrl-C${args.dir ? "" : ` (removes ${dir})`}`,
        );
        if (controllers === "false") {
          print("run the controllers yourself:");
          print(
            real
              ? `  ${commandLine(env.invocation, real, kubeconfig)}`
              : `  ${env.invocation} --cloud-provider=sandbox --cloud-config=${cloudConfig} --kubeconfig=${kubeconfig} --cluster-cidr=${SANDBOX_CLUSTER_CIDR} --leader-elect=false --secure-port=0`,
          );
        }
        const client = createKubeClient(loadTransport({ kubeconfig }), { qps: 0, burst: 0, userAgent: "sandbox" });
        const progress = watchProgress({ client, print, logger: logger.withTag("progress"), signal });
        const kubelets = startKubelets({
          client,
          cloud: cloud.state,
          logger: logger.withTag("kubelet"),
          assignPodCIDRs: real ? real.routes : true,
          signal,
        });
        await kubelets.registered;
        for (let i = 1; i <= made; i++)
          await client.create(Resources.services, demoService(i), { namespace: "default" });

        let managed: Promise<number> = Promise.resolve(0);
        if (controllers === "true")
          managed = runControllers(env, { cloudConfig, kubeconfig, verbosity: Number(args.v) || 0, signal, real });
        if (args["exit-when-ready"]) {
          // Without controllers here, readiness is the user's manager's doing: wait for it alone.
          await (controllers === "true" ? Promise.race([progress.ready(), managed]) : progress.ready());
          stop.abort();
        }
        const code = await managed;
        await Promise.all([kubelets.done, progress.done]);
        return code;
      } finally {
        stop.abort();
        await real?.stop();
        await cloud.stop();
        await api.stop();
        // The kubeconfig and the cloud token live there; a folder the user named is theirs to keep.
        if (!args.dir) await rm(dir, { recursive: true, force: true });
      }
    },
  });

function runControllers(
  env: Parameters<Subcommand>[0],
  o: {
    cloudConfig: string;
    kubeconfig: string;
    verbosity: number;
    signal: AbortSignal;
    real: RealCloud | undefined;
  },
): Promise<number> {
  const provider = o.real ? o.real.provider : "sandbox";
  const flags = o.real
    ? o.real.flags(o.kubeconfig)
    : [
        "--cloud-provider=sandbox",
        `--cloud-config=${o.cloudConfig}`,
        `--kubeconfig=${o.kubeconfig}`,
        `--cluster-cidr=${SANDBOX_CLUSTER_CIDR}`,
        "--leader-elect=false",
        "--secure-port=0",
      ];
  const argv = [...flags, "--concurrent-service-syncs=4", `--v=${o.verbosity}`];
  const built = buildOptions(parseArgv(argv).values);
  if (!built.ok) throw new Error(`sandbox: internal flags invalid: ${built.errors.join("; ")}`);
  const logger = createRootLogger({ verbosity: o.verbosity, format: "text" }).withTag("ccm");
  const metrics = createMetricsRegistry();
  const providerEnv = o.real ? { ...process.env, ...o.real.env } : process.env;
  return env.registry
    .init(provider, o.real ? o.real.cloudConfig : o.cloudConfig, providerEnv, { metrics, logger })
    .then((provider) => env.runManager({ options: built.options, provider, logger, signal: o.signal, metrics }));
}

function demoService(i: number): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: i === 1 ? "hello" : `hello-${i}`, namespace: "default", labels: { app: "hello" } },
    spec: {
      type: "LoadBalancer",
      selector: { app: "hello" },
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
    },
  };
}
