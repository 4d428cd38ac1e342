/**
 * The digitalocean provider: DO CCM's environment in, a `CloudProvider` over the DigitalOcean API v2 out, with
 * the capabilities DO CCM offers: `instancesV2` over Droplets, and load balancers. Like DO CCM it has no cluster
 * ID of Kubernetes' kind (`hasClusterID` false). The factory calls no API: `doctor` asks `verifyAccess`, and the
 * start proves the token the same way, so a wrong one stops the manager naming DO_ACCESS_TOKEN.
 */
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { cloudFailureKind } from "../kit/http/errors.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { createDoClient } from "./api/client.ts";
import { type DropletsApi, HttpDropletsApi } from "./api/droplets.ts";
import { type DigitalOceanConfig, readDigitalOceanConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
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
  // DO_API_RATE_LIMIT_QPS, else inside the token's 5000 an hour.
  rateLimit: (config) => config.rateLimit,
  create(ctx) {
    const client = createDoClient({ ...ctx.http, token: ctx.settings.token, url: ctx.settings.apiUrl });
    return digitalOceanProvider({ config: ctx.settings, droplets: new HttpDropletsApi(client) });
  },
});

export interface DigitalOceanParts {
  readonly config: DigitalOceanConfig;
  readonly droplets: DropletsApi;
}

export function digitalOceanProvider(parts: DigitalOceanParts) {
  const { config, droplets } = parts;

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

  return {
    providerName: digitalOceanProviderName,
    hasClusterID: () => false,
    async initialize(ctx: ProviderRuntime) {
      await checkAccess({ signal: ctx.signal });
      ctx.logger.info(`digitalocean: instances at ${config.apiUrl}`);
    },
    verifyAccess: checkAccess,
    instancesV2: createInstances(droplets),
    rateLimit: config.rateLimit,
  } satisfies CloudProvider;
}
