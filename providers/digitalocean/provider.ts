/**
 * The digitalocean provider: DO CCM's environment in, a `CloudProvider` over the DigitalOcean API v2 out, with
 * the capabilities DO CCM offers: `instancesV2` over Droplets, and load balancers. Its cluster ID is the one its
 * load balancers are tagged with (`k8s:<DO_CLUSTER_ID>`, else `k8s:<--cluster-name>`), always known, so
 * `hasClusterID` is true: DO CCM's Deployment passes no `--allow-untagged-cloud` (its own initializer skips the
 * check), and the manager must start with those flags. The factory calls no API: `doctor` asks `verifyAccess`, and the
 * start proves the token the same way, so a wrong one stops the manager naming DO_ACCESS_TOKEN. Both also settle the
 * region (region.ts). With `PUBLIC_ACCESS_FIREWALL_NAME` the provider runs DO CCM's firewall controller.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Sleep } from "../../kube/clock.ts";
import type { Service } from "../../kube/objects.ts";
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { cloudFailureKind } from "../kit/http/errors.ts";
import type { RuntimeHandle } from "../kit/runtime-handle.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { DigitalOceanAnnotations, DigitalOceanIDAnnotations } from "./annotations.ts";
import { type CertificatesApi, HttpCertificatesApi } from "./api/certificates.ts";
import { createDoClient } from "./api/client.ts";
import { type DropletsApi, HttpDropletsApi } from "./api/droplets.ts";
import { type FirewallsApi, HttpFirewallsApi } from "./api/firewalls.ts";
import { HttpLoadBalancersApi, type LoadBalancersApi } from "./api/load-balancers.ts";
import { HttpRegionsApi, type RegionsApi } from "./api/regions.ts";
import { type DigitalOceanConfig, readDigitalOceanConfig } from "./config.ts";
import { publicAccessFirewall } from "./firewall/controller.ts";
import { createInstances } from "./instances.ts";
import { createDigitalOceanLoadBalancer } from "./load-balancers.ts";
import { resolveRegion } from "./region.ts";
import { digitalOceanSettingDocs } from "./settings-reference.ts";

export const digitalOceanProviderName = "digitalocean";

export const digitalOceanSettings: ProviderSettings<DigitalOceanConfig> = {
  reference: digitalOceanSettingDocs,
  async read(input) {
    const { config, warnings } = await readDigitalOceanConfig(input);
    return { value: config, warnings };
  },
};

export const digitalocean = defineProvider({
  name: digitalOceanProviderName,
  settings: digitalOceanSettings,
  // What the load balancers refuse, refused at admission already (docs/webhooks.md): the 37 annotations and the ID.
  webhooks: {
    [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((s) => [
      ...DigitalOceanAnnotations.read(s).problems,
      ...DigitalOceanIDAnnotations.read(s).problems,
    ]),
  },
  // DO_API_RATE_LIMIT_QPS, else inside the token's 5000 an hour.
  rateLimit: (config) => config.rateLimit,
  create(ctx) {
    const client = createDoClient({ ...ctx.http, token: ctx.settings.token, url: ctx.settings.apiUrl });
    return digitalOceanProvider({
      config: ctx.settings,
      droplets: new HttpDropletsApi(client),
      firewalls: new HttpFirewallsApi(client),
      regions: new HttpRegionsApi(client),
      clock: ctx.clock,
      ...(ctx.http.fetch && { fetch: ctx.http.fetch }),
      loadBalancers: new HttpLoadBalancersApi(client),
      certificates: new HttpCertificatesApi(client),
      logger: ctx.logger,
      runtime: ctx.runtime,
    });
  },
});

export interface DigitalOceanParts {
  readonly config: DigitalOceanConfig;
  readonly droplets: DropletsApi;
  readonly firewalls: FirewallsApi;
  readonly regions: RegionsApi;
  readonly clock: { readonly now: () => number; readonly sleep: Sleep };
  /** For the metadata service; default the global one. */
  readonly fetch?: typeof fetch;
  readonly loadBalancers: LoadBalancersApi;
  readonly certificates: CertificatesApi;
  readonly logger?: ConsolaInstance | undefined;
  /** The Kubernetes client and Warning events, once the manager initializes the provider; without it, log only. */
  readonly runtime?: RuntimeHandle | undefined;
}

export function digitalOceanProvider(parts: DigitalOceanParts) {
  const { config, droplets, runtime, logger } = parts;
  /** `REGION`, else the metadata service's answer once `initialize` asked it: where load balancers are made. */
  let region = config.region;
  const loadBalancer = createDigitalOceanLoadBalancer({
    lbs: parts.loadBalancers,
    certificates: parts.certificates,
    droplets,
    config: {
      vpcID: config.vpcID,
      clusterID: config.clusterID,
      defaultLoadBalancerType: config.defaultLoadBalancerType,
      get region() {
        return region;
      },
    },
    logger,
    warn: (service, reason, message) =>
      runtime ? runtime.serviceWarnings.warn(service, reason, message) : logger?.warn(message),
    annotate: async (ctx, service, annotations) => {
      const kube = runtime?.current()?.kube;
      if (!kube) return;
      await kube.patch<Service>(
        Resources.services,
        service.metadata?.name ?? "",
        "merge",
        { metadata: { annotations } },
        { namespace: service.metadata?.namespace ?? "default", signal: ctx.signal },
      );
    },
  });

  async function checkAccess(ctx: CallContext): Promise<void> {
    try {
      await droplets.getAccount(ctx);
    } catch (err) {
      const why =
        cloudFailureKind(err) === "credentials"
          ? "the API refused DO_ACCESS_TOKEN; set it to a token with read and write scope (Control Panel → API → Tokens)"
          : `the DigitalOcean API at DO_OVERRIDE_URL=${config.apiUrl} did not answer as expected`;
      throw new Error(`digitalocean: ${why}: ${(err as Error).message}`, { cause: err });
    }
  }

  async function settleRegion(ctx: CallContext) {
    const regionSources = { configured: config.region, metadataUrl: config.metadataUrl, regions: parts.regions };
    return resolveRegion(ctx, { ...regionSources, ...(parts.fetch && { fetch: parts.fetch }) });
  }

  const firewall = config.firewall && {
    ...config.firewall,
    defaultLoadBalancerType: config.defaultLoadBalancerType,
  };

  return {
    providerName: digitalOceanProviderName,
    hasClusterID: () => true,
    async initialize(ctx: ProviderRuntime) {
      await checkAccess({ signal: ctx.signal });
      const settled = await settleRegion({ signal: ctx.signal });
      region = settled.region;
      ctx.logger.info(
        `digitalocean: instances and load balancers at ${config.apiUrl}, region ${region} (from ${settled.from})`,
      );
    },
    async verifyAccess(ctx: CallContext) {
      await checkAccess(ctx);
      await settleRegion(ctx);
    },
    controllers: firewall
      ? [publicAccessFirewall({ api: parts.firewalls, settings: firewall, ...parts.clock })]
      : undefined,
    instancesV2: createInstances(droplets),
    loadBalancer,
    rateLimit: config.rateLimit,
  } satisfies CloudProvider;
}
