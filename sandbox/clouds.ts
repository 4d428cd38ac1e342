/**
 * The real clouds' emulators `cloud-controller-manager sandbox --cloud=<name>` runs: each seeded with one machine
 * per sandbox machine, named as it so the sandbox's kubelets register their Nodes, and the provider's flags,
 * environment and cloud-config as its peer CCM's manifests set them, pointed at the emulator.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConsolaInstance } from "consola";
import { startDigitalOceanSandboxAccount } from "./digitalocean/sandbox-project.ts";
import { startHcloudSandboxProject } from "./hcloud/sandbox-project.ts";
import { SANDBOX_CLUSTER_CIDR, type SandboxCloud } from "./names.ts";
import { startOpenStackSandboxProject } from "./openstack/sandbox-project.ts";
import { startScalewaySandboxProject } from "./scaleway/sandbox-project.ts";

/** Hetzner's private networks route IPv4 only. */
const HCLOUD_CLUSTER_CIDR = SANDBOX_CLUSTER_CIDR.split(",")[0] ?? "";

/** A real cloud's emulator as the sandbox runs it: the provider, its flags, environment and cloud-config. */
export interface RealCloud {
  readonly provider: string;
  readonly banner: string;
  readonly machines: string;
  readonly env: Readonly<Record<string, string>>;
  /** `<dir>/<provider>.env`: the environment as `KEY=value` lines, for `set -a; . <file>`; none without env. */
  readonly envFile?: string | undefined;
  /** The cloud-config file the provider reads, when its peer takes one (OCCM's cloud.conf). */
  readonly cloudConfig?: string | undefined;
  /** Whether the provider has routes: its Nodes get pod CIDRs and wait for a route. */
  readonly routes: boolean;
  /** Whether the provider serves LoadBalancer Services; without, the sandbox makes none (they would never be ready). */
  readonly loadBalancers: boolean;
  readonly flags: (kubeconfig: string) => string[];
  stop(): Promise<void>;
}

type StartOptions = { readonly machines: readonly string[]; readonly dir: string; readonly logger: ConsolaInstance };

/** The emulator of `name`, started and seeded; its environment also written to `<dir>/<provider>.env`. */
export async function startRealCloud(name: Exclude<SandboxCloud, "sandbox">, o: StartOptions): Promise<RealCloud> {
  const real = await startEmulator(name, o);
  const vars = Object.entries(real.env);
  if (vars.length === 0) return real;
  const envFile = join(o.dir, `${real.provider}.env`);
  await writeFile(envFile, vars.map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
  return { ...real, envFile };
}

async function startEmulator(name: Exclude<SandboxCloud, "sandbox">, o: StartOptions): Promise<RealCloud> {
  const logger = o.logger.withTag(name);
  switch (name) {
    case "hcloud": {
      const project = startHcloudSandboxProject({ servers: o.machines, logger });
      // hccm's flags (its Deployment's), pointed at the sandbox.
      return {
        provider: "hcloud",
        banner: `hcloud emulator: ${project.emulator.endpoint} (docs/emulators.md), network k8s`,
        machines: "servers",
        env: project.env,
        routes: true,
        loadBalancers: true,
        flags: (kubeconfig) => [
          "--cloud-provider=hcloud",
          "--allow-untagged-cloud",
          `--kubeconfig=${kubeconfig}`,
          `--cluster-cidr=${HCLOUD_CLUSTER_CIDR}`,
          "--leader-elect=false",
          "--secure-port=0",
          "--webhook-secure-port=0",
        ],
        stop: () => project.stop(),
      };
    }
    case "digitalocean": {
      const account = startDigitalOceanSandboxAccount({ droplets: o.machines, logger });
      // DO CCM's Deployment's flags (`--leader-elect=false`), pointed at the sandbox. DigitalOcean has no routes:
      // pod networking is the CNI's, and no Node waits for a route.
      return {
        provider: "digitalocean",
        banner: `digitalocean emulator: ${account.emulator.endpoint} (docs/emulators.md), region nyc3, firewall k8s-public-access`,
        machines: "Droplets",
        env: account.env,
        routes: false,
        loadBalancers: true,
        flags: (kubeconfig) => [
          "--cloud-provider=digitalocean",
          `--kubeconfig=${kubeconfig}`,
          "--leader-elect=false",
          "--secure-port=0",
        ],
        stop: () => account.stop(),
      };
    }
    case "scaleway": {
      const project = startScalewaySandboxProject({ servers: o.machines, logger });
      const metal = project.baremetal;
      // scw CCM's Deployment's flags (its examples/k8s-scaleway-ccm-latest.yml), pointed at the sandbox; its
      // environment is the `scaleway-secret` Secret's, with SCW_API_URL and PN_ID. Scaleway has no routes here.
      return {
        provider: "scaleway",
        banner: `scaleway emulator: ${project.emulator.endpoint} (docs/emulators.md), zone fr-par-2, ${metal} of them Elastic Metal`,
        machines: "servers",
        env: project.env,
        routes: false,
        loadBalancers: true,
        flags: (kubeconfig) => [
          "--cloud-provider=scaleway",
          "--allow-untagged-cloud",
          `--kubeconfig=${kubeconfig}`,
          "--leader-elect=false",
          "--secure-port=0",
        ],
        stop: () => project.stop(),
      };
    }
    case "openstack": {
      const project = startOpenStackSandboxProject({ servers: o.machines, logger });
      const cloudConfig = join(o.dir, "cloud.conf");
      await writeFile(cloudConfig, project.cloudConf, { mode: 0o600 });
      // OCCM's DaemonSet's flags, its cloud.conf written where the sandbox writes its files. No routes here.
      return {
        provider: "openstack",
        banner: `openstack emulator: ${project.emulator.base} (docs/emulators.md), region RegionOne, cloud.conf ${cloudConfig}`,
        machines: "servers",
        env: {},
        cloudConfig,
        routes: false,
        loadBalancers: true,
        flags: (kubeconfig) => [
          "--cloud-provider=openstack",
          `--cloud-config=${cloudConfig}`,
          "--cluster-name=kubernetes",
          `--kubeconfig=${kubeconfig}`,
          "--leader-elect=false",
          "--secure-port=0",
        ],
        stop: () => project.stop(),
      };
    }
  }
}

/**
 * The command line that runs the controllers against the emulator, as the user started the sandbox: the invocation
 * they ran holds the provider (the sandbox runs it in-process), where `<provider>-cloud-controller-manager` may not
 * be on PATH at all.
 */
export function commandLine(invocation: string, real: RealCloud, kubeconfig: string): string {
  const vars = Object.entries(real.env).map(([k, v]) => `${k}=${v}`);
  return [...vars, invocation, ...real.flags(kubeconfig)].join(" ");
}
