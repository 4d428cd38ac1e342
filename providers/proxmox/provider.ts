/**
 * The proxmox provider: validated config in, a `CloudProvider` over one or more Proxmox VE clusters out.
 * InstancesV2 only (like the peer); load balancers come from another provider (docs/providers/proxmox.md shows
 * metal's pools beside it). Read-only towards Proxmox VE; towards Kubernetes it patches the topology labels of
 * initialised Nodes whose VM moved, from the bulk lookup it already makes.
 */
import { readFile as readFileFromDisk } from "node:fs/promises";
import type { ConsolaInstance } from "consola";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import type { KubeClient } from "../../kube/client-types.ts";
import { Resources } from "../../kube/client-types.ts";
import type { CallContext, CloudProvider, ProviderFactoryInput, ProviderRuntime, RateLimit } from "../cloud.ts";
import type { RetryPolicy } from "../kit/http/retry-policy.ts";
import type { ProxmoxApi } from "./api/client.ts";
import { ProxmoxHttpApi } from "./api/http.ts";
import { type Cluster, Clusters } from "./clusters.ts";
import { type ClusterConfig, type ProxmoxConfig, parseProxmoxConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { planRelabel } from "./labels.ts";

export const proxmoxProviderName = "proxmox";

/**
 * Proxmox VE documents no API limit; its pveproxy serves a handful of workers. This paces the provider's calls to
 * each cluster's API and sizes the node controller's parallel joins.
 */
export const proxmoxRateLimit: RateLimit = { qps: 20, burst: 20 };

/** Per attempt; the peer sets none and relies on the caller's deadline. */
const TIMEOUT_MS = 10_000;

export interface ProxmoxProviderDeps {
  readonly readFile?: (path: string) => Promise<string>;
  readonly fetch?: typeof fetch;
  /** Default the kit's; tests that want each answer as the cluster gave it set `maxRetries: 0`. */
  readonly retry?: Partial<RetryPolicy>;
}

/** The registered factory: every problem of the file and of the files it names is one `ConfigError`. */
export async function createProxmoxProvider(
  input: ProviderFactoryInput,
  deps: ProxmoxProviderDeps = {},
): Promise<CloudProvider> {
  const source = input.configSource ?? "the proxmox cloud-config";
  const config = parseProxmoxConfig(input.config, source);
  const read = deps.readFile ?? ((path: string) => readFileFromDisk(path, "utf8"));
  const issues: ConfigIssue[] = [];
  const clusters: Cluster[] = [];
  for (const [i, c] of config.clusters.entries()) {
    const file = async (key: keyof ClusterConfig, path: string | undefined, trim: boolean) => {
      if (path === undefined) return undefined;
      try {
        const text = await read(path);
        const value = trim ? text.trim() : text;
        if (value.trim() === "") issues.push({ path: `clusters[${i}].${key}`, message: `"${path}" is empty` });
        return value;
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? String(err);
        issues.push({ path: `clusters[${i}].${key}`, message: `cannot read "${path}": ${reason}` });
        return undefined;
      }
    };
    const tokenID = c.token_id ?? (await file("token_id_file", c.token_id_file, true));
    const tokenSecret = c.token_secret ?? (await file("token_secret_file", c.token_secret_file, true));
    const ca = await file("ca_file", c.ca_file, false);
    if (tokenID === undefined || tokenSecret === undefined) continue;
    const api = new ProxmoxHttpApi({
      url: c.url,
      region: c.region,
      tokenID,
      tokenSecret,
      ca,
      insecure: c.insecure,
      timeoutMs: TIMEOUT_MS,
      metrics: input.metrics,
      rateLimit: proxmoxRateLimit,
      ...(deps.fetch && { fetch: deps.fetch }),
      ...(deps.retry && { retry: deps.retry }),
    });
    clusters.push({ region: c.region, api });
  }
  if (issues.length > 0) throw new ConfigError(source, issues);
  return proxmoxProvider(config.features, clusters);
}

/** The provider over any `ProxmoxApi` per region (the factory passes the HTTP ones). */
export function proxmoxProvider(
  features: ProxmoxConfig["features"],
  list: readonly { region: string; api: ProxmoxApi }[],
) {
  const clusters = new Clusters(list);
  let runtime: { kube: KubeClient; logger: ConsolaInstance } | undefined;
  /** Nodes with a label patch under way, so overlapping refreshes do not send the same patch twice. */
  const patching = new Set<string>();

  const instancesV2 = createInstances(clusters, {
    features,
    logger: () => runtime?.logger,
    afterBulk: async (answers) => {
      const rt = runtime;
      if (!rt) return;
      for (const { node, metadata } of answers) {
        const name = node.metadata?.name ?? "";
        const labels = planRelabel(node, metadata, features.force_update_labels);
        if (!labels || patching.has(name)) continue;
        patching.add(name);
        try {
          await rt.kube.patch(Resources.nodes, name, "merge", { metadata: { labels } });
          rt.logger.info(`node ${name}: labels ${JSON.stringify(labels)} follow its VM`);
        } catch (err) {
          rt.logger.warn(`node ${name}: could not update labels ${JSON.stringify(labels)}: ${(err as Error).message}`);
        } finally {
          patching.delete(name);
        }
      }
    },
  });

  return {
    providerName: proxmoxProviderName,
    // Proxmox VMs carry no cluster tag to filter by.
    hasClusterID: () => true,
    initialize(ctx: ProviderRuntime) {
      runtime = { kube: ctx.kube, logger: ctx.logger };
    },
    /** Every cluster's token, with each failing cluster named: its version and its guest listing. */
    verifyAccess: async (ctx: CallContext) => {
      const failures: string[] = [];
      for (const region of clusters.regions) {
        const api = clusters.get(region)!.api;
        try {
          await api.version(ctx);
          await api.listVMs(ctx);
        } catch (err) {
          failures.push(`cluster ${region}: ${(err as Error).message}`);
        }
      }
      if (failures.length > 0) {
        throw new Error(
          `${failures.length} of ${clusters.regions.length} Proxmox clusters failed:\n  ${failures.join("\n  ")}`,
        );
      }
    },
    instancesV2,
    rateLimit: proxmoxRateLimit,
  } satisfies CloudProvider;
}
