/**
 * The openstack provider: OCCM's `cloud.conf` in, a `CloudProvider` over Keystone v3, Nova and Neutron out, with
 * `instancesV2` over servers. Load balancers (Octavia) and routes come later; their settings are read already.
 * Like OCCM it has a cluster ID of Kubernetes' kind (`HasClusterID` true). The factory calls no API: `doctor` asks
 * `verifyAccess` (a token, then Nova and Neutron in its catalog), and the start proves the same, so wrong
 * credentials stop the manager naming the `[Global]` keys.
 */
import { redactUrlCredentials } from "../../net/url-credentials.ts";
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { cloudFailureKind } from "../kit/http/errors.ts";
import type { ReadFile } from "../kit/secret-file.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { createKeystoneClient, OpenStackService, openStackRateLimit } from "./api/client.ts";
import { type ComputeApi, HttpComputeApi } from "./api/compute.ts";
import { KeystoneSession } from "./api/keystone.ts";
import type { AuthOptions } from "./auth-options.ts";
import { type OpenStackConfig, readOpenStackConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { openStackSettingDocs } from "./settings-reference.ts";

export const openStackProviderName = "openstack";

export const openStackSettings: ProviderSettings<OpenStackConfig> = {
  reference: openStackSettingDocs,
  async read(input) {
    const { config, warnings } = await readOpenStackConfig(input);
    return { value: config, warnings };
  },
};

export const openstack = defineProvider({
  name: openStackProviderName,
  settings: openStackSettings,
  rateLimit: openStackRateLimit,
  eventsComponent: "cloud-provider-openstack",
  async create(ctx) {
    const { auth, metadata } = ctx.settings;
    const fetch = await tlsFetch(auth, ctx.http.fetch ?? globalThis.fetch, ctx.readFile);
    const tuning = { ...ctx.http, fetch, timeoutMs: metadata.requestTimeoutMs };
    const session = new KeystoneSession({
      client: createKeystoneClient(auth.authUrl, tuning),
      auth,
      now: ctx.clock.now,
    });
    const where = { interface: auth.interface, region: auth.region };
    const nova = new OpenStackService({ ...tuning, ...where, session, type: "compute", name: "nova" });
    const neutron = new OpenStackService({
      ...tuning,
      ...where,
      session,
      type: "network",
      name: "neutron",
      suffix: "/v2.0",
    });
    return openStackProvider({
      config: ctx.settings,
      compute: new HttpComputeApi(nova, neutron),
      keystone: session,
      nova,
      neutron,
      logger: ctx.logger,
    });
  },
});

/** `fetch` with `[Global] ca-file`, `cert-file` and `key-file` read once, and `tls-insecure`. */
async function tlsFetch(auth: AuthOptions, base: typeof fetch, readFile: ReadFile): Promise<typeof fetch> {
  const read = async (path: string | undefined, key: string) => {
    if (path === undefined) return undefined;
    try {
      return await readFile(path);
    } catch (err) {
      throw new Error(`openstack: [Global] ${key} names "${path}", which cannot be read`, { cause: err });
    }
  };
  const ca = await read(auth.caFile, "ca-file");
  const cert = await read(auth.certFile, "cert-file");
  const key = await read(auth.keyFile, "key-file");
  if (!ca && !cert && !auth.tlsInsecure) return base;
  const tls = {
    ...(auth.tlsInsecure ? { rejectUnauthorized: false } : {}),
    ...(ca ? { ca } : {}),
    ...(cert && key ? { cert, key } : {}),
  };
  return ((input: string | URL | Request, init?: RequestInit) => base(input, { ...init, tls })) as typeof fetch;
}

export interface OpenStackParts {
  readonly config: OpenStackConfig;
  readonly compute: ComputeApi;
  readonly keystone: { token(ctx: CallContext): Promise<unknown> };
  /** For `verifyAccess`: each must be in the token's catalog. */
  readonly nova: { baseUrl(ctx: CallContext): Promise<string> };
  readonly neutron: { baseUrl(ctx: CallContext): Promise<string> };
  readonly logger?: { warn(message: string): void };
}

export function openStackProvider(parts: OpenStackParts) {
  const { config, compute } = parts;

  async function checkAccess(ctx: CallContext): Promise<void> {
    let step = `Keystone at [Global] auth-url=${redactUrlCredentials(config.auth.authUrl)}`;
    try {
      await parts.keystone.token(ctx);
      step = "the compute (Nova) endpoint";
      const novaUrl = await parts.nova.baseUrl(ctx);
      step = "the network (Neutron) endpoint";
      await parts.neutron.baseUrl(ctx);
      step = `Nova at ${redactUrlCredentials(novaUrl)}`;
      await compute.listFlavors(ctx);
    } catch (err) {
      const why =
        cloudFailureKind(err) === "credentials"
          ? "Keystone or the service refused the credentials of [Global] (auth-url, user, password or application credential, project)"
          : `${step} did not answer as expected`;
      throw new Error(`openstack: ${why}: ${(err as Error).message}`, { cause: err });
    }
  }

  return {
    providerName: openStackProviderName,
    hasClusterID: () => true,
    async initialize(ctx: ProviderRuntime) {
      await checkAccess({ signal: ctx.signal });
      ctx.logger.info(`openstack: instances from Nova and Neutron, region ${config.auth.region ?? "(any)"}`);
    },
    verifyAccess: checkAccess,
    instancesV2: createInstances({
      compute,
      networking: config.networking,
      region: config.auth.region,
      regionalProviderIDs: config.regionalProviderIDs,
      logger: parts.logger,
    }),
  } satisfies Omit<CloudProvider, "rateLimit">;
}
