/**
 * The scaleway provider: scw CCM's environment in, a `CloudProvider` over the Scaleway APIs out, with
 * `instancesV2` over Instances and Elastic Metal servers (scw CCM's `DISABLE_INTERFACES=instances` turns it off).
 * `loadBalancer` over the Load Balancer API (scw CCM's `DISABLE_INTERFACES=loadbalancer`, or the manager's
 * `--controllers=-service`, turns it off). Like scw CCM it has no cluster ID of Kubernetes' kind
 * (`hasClusterID` false). The factory calls no API: `doctor` asks `verifyAccess`, and the start proves the keys the
 * same way, so a wrong key stops the manager naming SCW_SECRET_KEY.
 */
import type { ConsolaInstance } from "consola";
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { findInCauseChain } from "../errors.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { CloudApiError, cloudFailureKind } from "../kit/http/errors.ts";
import type { RuntimeHandle } from "../kit/runtime-handle.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { ScalewayAnnotations } from "./annotations.ts";
import { createScwClient, scalewayRateLimit } from "./api/client.ts";
import { type LoadBalancersApi, ScwLoadBalancers } from "./api/load-balancers.ts";
import { HttpServersApi, type ServersApi } from "./api/servers.ts";
import { readScalewayConfig, type ScalewayConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { createScalewayLoadBalancer } from "./load-balancers.ts";
import { scalewaySettingDocs } from "./settings-reference.ts";

export const scalewayProviderName = "scaleway";

export const scalewaySettings: ProviderSettings<ScalewayConfig> = {
  reference: scalewaySettingDocs,
  async read(input) {
    const { config, warnings } = await readScalewayConfig(input);
    return { value: config, warnings };
  },
};

export const scaleway = defineProvider({
  name: scalewayProviderName,
  settings: scalewaySettings,
  rateLimit: scalewayRateLimit,
  // scw CCM's settings change no annotation's accepted values, so one set judges every Service.
  webhooks: {
    [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((s) => ScalewayAnnotations.read(s).problems),
  },
  create(ctx) {
    const client = createScwClient({
      ...ctx.http,
      secretKey: ctx.settings.secretKey,
      url: ctx.settings.apiUrl,
      extraUserAgent: ctx.settings.extraUserAgent,
    });
    return scalewayProvider({
      config: ctx.settings,
      servers: new HttpServersApi(client),
      loadBalancers: new ScwLoadBalancers(client),
      logger: ctx.logger,
      runtime: ctx.runtime,
    });
  },
});

export interface ScalewayParts {
  readonly config: ScalewayConfig;
  readonly servers: ServersApi;
  /** The Load Balancer API; without it (tests of nodes only) no `loadBalancer` is offered. */
  readonly loadBalancers?: LoadBalancersApi | undefined;
  readonly logger?: ConsolaInstance | undefined;
  /** Warning events about Services, once the manager initializes the provider; without it (tests) log only. */
  readonly runtime?: RuntimeHandle | undefined;
}

export function scalewayProvider(parts: ScalewayParts) {
  const { config, servers, loadBalancers, logger, runtime } = parts;
  const loadBalancer =
    loadBalancers && !config.disabled.loadBalancer
      ? createScalewayLoadBalancer({
          api: loadBalancers,
          config,
          logger,
          warn: (service, reason, message) => {
            if (runtime) runtime.serviceWarnings.warn(service, reason, message);
            else logger?.warn(`Service ${service.metadata?.namespace}/${service.metadata?.name}: ${message}`);
          },
        })
      : undefined;

  /** The project when one is set (proving it too), else the Instances of the region's first zone. */
  async function checkAccess(ctx: CallContext): Promise<void> {
    try {
      if (config.projectID !== undefined) await servers.getProject(ctx, config.projectID);
      else await servers.countInstanceServers(ctx, config.zone ?? `${config.region}-1`);
    } catch (err) {
      throw new Error(`scaleway: ${why(err)}: ${(err as Error).message}`, { cause: err });
    }
  }

  function why(err: unknown): string {
    if (cloudFailureKind(err) === "credentials") {
      return "the API refused SCW_SECRET_KEY; set SCW_ACCESS_KEY and SCW_SECRET_KEY to an API key whose policy can read Instances, Elastic Metal and IPAM";
    }
    if (config.projectID !== undefined && findInCauseChain(err, CloudApiError)?.status === 404) {
      return `SCW_DEFAULT_PROJECT_ID=${config.projectID} is not a project this API key can read`;
    }
    return `the Scaleway API at SCW_API_URL=${config.apiUrl} did not answer as expected`;
  }

  return {
    providerName: scalewayProviderName,
    hasClusterID: () => false,
    async initialize(ctx: ProviderRuntime) {
      await checkAccess({ signal: ctx.signal });
      const nodes = config.disabled.instances ? "instances off (DISABLE_INTERFACES)" : "Instances and Elastic Metal";
      ctx.logger.info(`scaleway: ${nodes} at ${config.apiUrl}, region ${config.region}`);
    },
    verifyAccess: checkAccess,
    ...(config.disabled.instances ? {} : { instancesV2: createInstances({ servers, config }) }),
    ...(loadBalancer ? { loadBalancer } : {}),
    rateLimit: scalewayRateLimit,
  } satisfies CloudProvider;
}
