/**
 * The proxmox provider: validated config in, a `CloudProvider` over one or more Proxmox VE clusters out.
 * InstancesV2 only (like the peer); load balancers come from another provider (docs/providers/proxmox.md shows
 * metal's pools beside it). Read-only towards Proxmox VE; towards Kubernetes it patches the topology labels of
 * initialised Nodes whose VM moved, from the bulk lookup it already makes.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import { pemCertificates } from "../../platform/x509.ts";
import type { CallContext, CloudProvider, RateLimit } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import type { RuntimeHandle } from "../kit/runtime-handle.ts";
import { cloudConfigSettings } from "../kit/settings.ts";
import type { ProxmoxApi } from "./api/client.ts";
import { ProxmoxHttpApi } from "./api/http.ts";
import { Clusters } from "./clusters.ts";
import { type ProxmoxConfig, proxmoxConfigSchema } from "./config.ts";
import { createInstances } from "./instances.ts";
import { planRelabel } from "./labels.ts";
import { proxmoxSettingDocs } from "./settings-reference.ts";

export const proxmoxProviderName = "proxmox";

/**
 * Proxmox VE documents no API limit; its pveproxy serves a handful of workers. This paces the provider's calls to
 * each cluster's API and sizes the node controller's parallel joins.
 */
export const proxmoxRateLimit: RateLimit = { qps: 20, burst: 20 };

/** Per attempt; the peer sets none and relies on the caller's deadline. */
const TIMEOUT_MS = 10_000;

/** A cluster's entry with the secrets and the CA bundle its `*_file` keys name, read. */
export interface ClusterSettings {
  readonly url: string;
  readonly region: string;
  readonly insecure: boolean;
  readonly tokenID: string;
  readonly tokenSecret: string;
  readonly ca: string | undefined;
}

export interface ProxmoxSettings {
  readonly features: ProxmoxConfig["features"];
  readonly clusters: readonly ClusterSettings[];
}

/** The cloud-config, then every file it names, read by the kit: every problem of both is one `ConfigError`. */
export const proxmoxSettings = cloudConfigSettings<ProxmoxConfig, ProxmoxSettings>({
  schema: proxmoxConfigSchema,
  reference: proxmoxSettingDocs,
  async resolve(config, tools) {
    const clusters: ClusterSettings[] = [];
    for (const [i, c] of config.clusters.entries()) {
      const { token_id_file, token_secret_file, ca_file } = c;
      const at = (key: string) => `clusters[${i}].${key}`;
      const tokenID = c.token_id ?? (token_id_file && (await tools.secretFile(token_id_file, at("token_id_file"))));
      const tokenSecret =
        c.token_secret ?? (token_secret_file && (await tools.secretFile(token_secret_file, at("token_secret_file"))));
      // A PEM bundle is kept as written.
      const ca = ca_file === undefined ? undefined : await tools.secretFile(ca_file, at("ca_file"), { trim: false });
      if (ca !== undefined) {
        try {
          pemCertificates(ca);
        } catch (err) {
          tools.issue(
            at("ca_file"),
            `${ca_file} ${(err as Error).message}; it must hold the PEM certificate (-----BEGIN CERTIFICATE-----) of the CA that signed the cluster's certificate`,
          );
        }
      }
      if (tokenID && tokenSecret) {
        clusters.push({ url: c.url, region: c.region, insecure: c.insecure, tokenID, tokenSecret, ca });
      }
    }
    return { features: config.features, clusters };
  },
});

/** The proxmox provider's declaration: one HTTP client per cluster, each paced to the declared rate limit. */
export const proxmox = defineProvider({
  name: proxmoxProviderName,
  settings: proxmoxSettings,
  rateLimit: proxmoxRateLimit,
  create(ctx) {
    const clusters = ctx.settings.clusters.map((c) => ({
      region: c.region,
      api: new ProxmoxHttpApi({
        ...ctx.http,
        url: c.url,
        region: c.region,
        tokenID: c.tokenID,
        tokenSecret: c.tokenSecret,
        ca: c.ca,
        insecure: c.insecure,
        timeoutMs: TIMEOUT_MS,
      }),
    }));
    return proxmoxProvider(ctx.settings.features, clusters, { logger: ctx.logger, runtime: ctx.runtime });
  },
});

export interface ProxmoxProviderDeps {
  /** Default silent. */
  readonly logger?: ConsolaInstance;
  /** The Kubernetes client, for the label patches; without one (tests) no label follows its VM. */
  readonly runtime?: Pick<RuntimeHandle, "current">;
}

/** The provider over any `ProxmoxApi` per region (the declaration passes the HTTP ones). */
export function proxmoxProvider(
  features: ProxmoxConfig["features"],
  list: readonly { region: string; api: ProxmoxApi }[],
  deps: ProxmoxProviderDeps = {},
) {
  const clusters = new Clusters(list);
  const { logger } = deps;
  /** Nodes with a label patch under way, so overlapping refreshes do not send the same patch twice. */
  const patching = new Set<string>();

  const instancesV2 = createInstances(clusters, {
    features,
    logger: () => logger,
    afterBulk: async (answers) => {
      const kube = deps.runtime?.current()?.kube;
      if (!kube) return;
      for (const { node, metadata } of answers) {
        const name = node.metadata?.name ?? "";
        const labels = planRelabel(node, metadata, features.force_update_labels);
        if (!labels || patching.has(name)) continue;
        patching.add(name);
        try {
          await kube.patch(Resources.nodes, name, "merge", { metadata: { labels } });
          logger?.info(`node ${name}: labels ${JSON.stringify(labels)} follow its VM`);
        } catch (err) {
          logger?.warn(`node ${name}: could not update labels ${JSON.stringify(labels)}: ${(err as Error).message}`);
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
    /** Every cluster's token, with each failing cluster named: its version and its guest listing. */
    verifyAccess: async (ctx: CallContext) => {
      const failures: string[] = [];
      const causes: unknown[] = [];
      for (const region of clusters.regions) {
        const api = clusters.get(region)!.api;
        try {
          await api.version(ctx);
          await api.listVMs(ctx);
        } catch (err) {
          failures.push(`cluster ${region}: ${(err as Error).message}`);
          causes.push(err);
        }
      }
      if (failures.length > 0) {
        // One failing cluster is the cause as it is, so whoever reads the kind of failure (doctor) can tell an
        // unreachable cluster from a refused token.
        throw new Error(
          `${failures.length} of ${clusters.regions.length} Proxmox clusters failed:\n  ${failures.join("\n  ")}`,
          { cause: causes.length === 1 ? causes[0] : new AggregateError(causes) },
        );
      }
    },
    instancesV2,
    rateLimit: proxmoxRateLimit,
  } satisfies CloudProvider;
}
