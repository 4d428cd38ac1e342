/**
 * The scaleway provider: scw CCM's environment in, a `CloudProvider` over the Scaleway APIs out, with
 * `instancesV2` over Instances and Elastic Metal servers (scw CCM's `DISABLE_INTERFACES=instances` turns it off).
 * Load balancers are not part of this version yet. Like scw CCM it has no cluster ID of Kubernetes' kind
 * (`hasClusterID` false). The factory calls no API: `doctor` asks `verifyAccess`, and the start proves the keys the
 * same way, so a wrong key stops the manager naming SCW_SECRET_KEY.
 */
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { findInCauseChain } from "../errors.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { CloudApiError, cloudFailureKind } from "../kit/http/errors.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { ScalewayAnnotations } from "./annotations.ts";
import { createScwClient, scalewayRateLimit } from "./api/client.ts";
import { HttpServersApi, type ServersApi } from "./api/servers.ts";
import { readScalewayConfig, type ScalewayConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
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
    return scalewayProvider({ config: ctx.settings, servers: new HttpServersApi(client) });
  },
});

export interface ScalewayParts {
  readonly config: ScalewayConfig;
  readonly servers: ServersApi;
}

export function scalewayProvider(parts: ScalewayParts) {
  const { config, servers } = parts;

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
    rateLimit: scalewayRateLimit,
  } satisfies CloudProvider;
}
