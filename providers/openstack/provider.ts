/**
 * The openstack provider: OCCM's `cloud.conf` in, a `CloudProvider` over Keystone v3, Nova, Neutron and Octavia
 * out, with `instancesV2` over servers and, unless `[LoadBalancer] enabled = false`, load balancers over Octavia.
 * Routes come later; their settings are read already.
 * Like OCCM it has a cluster ID of Kubernetes' kind (`HasClusterID` true). The factory calls no API: `doctor` asks
 * `verifyAccess` (a token, then Nova and Neutron in its catalog), and the start proves the same, so wrong
 * credentials stop the manager naming the `[Global]` keys.
 */
import type { ConsolaInstance } from "consola";
import { redactUrlCredentials } from "../../net/url-credentials.ts";
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { cloudFailureKind } from "../kit/http/errors.ts";
import type { RuntimeHandle } from "../kit/runtime-handle.ts";
import type { ReadFile } from "../kit/secret-file.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { OpenStackAnnotations } from "./annotations.ts";
import { createKeystoneClient, OpenStackService, openStackRateLimit } from "./api/client.ts";
import { type ComputeApi, HttpComputeApi } from "./api/compute.ts";
import { FloatingIPApi } from "./api/floating-ips.ts";
import { KeystoneSession } from "./api/keystone.ts";
import { OctaviaApi } from "./api/octavia.ts";
import type { AuthOptions } from "./auth-options.ts";
import { type OpenStackConfig, readOpenStackConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { createOpenStackLoadBalancer } from "./load-balancers.ts";
import { checkNamedNetworks, namedNetworks } from "./named-networks.ts";
import { openStackSettingDocs } from "./settings-reference.ts";

export const openStackProviderName = "openstack";

/**
 * How long a load balancer's `PENDING_*` status is waited on before the sync fails with a Warning, unless
 * `[LoadBalancer] pending-deadline` says otherwise.
 */
export const LOAD_BALANCER_DEADLINE_MS = 300_000;

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
  webhooks: {
    [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((s) => OpenStackAnnotations.read(s).problems),
  },
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
    const octavia = new OpenStackService({
      ...tuning,
      ...where,
      session,
      type: "load-balancer",
      name: "octavia",
      suffix: "/v2",
    });
    const floatingIPs = new FloatingIPApi(neutron);
    return openStackProvider({
      config: ctx.settings,
      compute: new HttpComputeApi(nova, neutron),
      octavia: new OctaviaApi(octavia, floatingIPs, {
        ...ctx.clock,
        deadlineMs: ctx.settings.loadBalancer["pending-deadline"],
      }),
      floatingIPs,
      octaviaEndpoint: octavia,
      runtime: ctx.runtime,
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
  readonly logger?: ConsolaInstance | undefined;
  /** Octavia and Neutron's floating IPs; without it (tests of nodes alone) there are no load balancers. */
  readonly octavia?: OctaviaApi | undefined;
  /** Neutron's floating IPs and subnets, with `octavia`. */
  readonly floatingIPs?: FloatingIPApi | undefined;
  /** For `verifyAccess` when load balancers are on: Octavia must be in the token's catalog. */
  readonly octaviaEndpoint?: { baseUrl(ctx: CallContext): Promise<string> } | undefined;
  /** Warning events once the manager initializes the provider; without it (tests) log only. */
  readonly runtime?: RuntimeHandle | undefined;
}

export function openStackProvider(parts: OpenStackParts) {
  const { config, compute } = parts;
  const loadBalancer =
    parts.octavia && parts.floatingIPs && config.loadBalancer.enabled
      ? createOpenStackLoadBalancer({
          octavia: parts.octavia,
          floatingIPs: parts.floatingIPs,
          compute,
          config,
          logger: parts.logger,
          warn: (service, reason, message) => parts.runtime?.serviceWarnings.warn(service, reason, message),
        })
      : undefined;

  async function checkAccess(ctx: CallContext): Promise<void> {
    let step = `Keystone at [Global] auth-url=${redactUrlCredentials(config.auth.authUrl)}`;
    try {
      await parts.keystone.token(ctx);
      step = "the compute (Nova) endpoint";
      const novaUrl = await parts.nova.baseUrl(ctx);
      step = "the network (Neutron) endpoint";
      await parts.neutron.baseUrl(ctx);
      if (loadBalancer && parts.octaviaEndpoint) {
        step = "the load-balancer (Octavia) endpoint (on a cloud without Octavia, set [LoadBalancer] enabled = false)";
        await parts.octaviaEndpoint.baseUrl(ctx);
      }
      step = `Nova at ${redactUrlCredentials(novaUrl)}`;
      await compute.listFlavors(ctx);
    } catch (err) {
      const why =
        cloudFailureKind(err) === "credentials"
          ? "Keystone or the service refused the credentials of [Global] (auth-url, user, password or application credential, project)"
          : `${step} did not answer as expected`;
      throw new Error(`openstack: ${why}: ${(err as Error).message}`, { cause: err });
    }
    const floatingIPs = parts.floatingIPs;
    if (!loadBalancer || !floatingIPs) return;
    try {
      await checkNamedNetworks(ctx, namedNetworks(config), {
        networkName: (c, id) => compute.networkName(c, id),
        subnetExists: (c, id) => floatingIPs.subnetExists(c, id),
      });
    } catch (err) {
      throw new Error(`openstack: ${(err as Error).message}`, { cause: err });
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
    ...(loadBalancer ? { loadBalancer } : {}),
  } satisfies Omit<CloudProvider, "rateLimit">;
}
