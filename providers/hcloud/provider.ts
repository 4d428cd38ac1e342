/**
 * The hcloud provider: hccm's environment (and `--cloud-config`) in, a `CloudProvider` over the Hetzner Cloud API
 * and, with `ROBOT_ENABLED`, the Robot webservice out — the capabilities hccm offers under the same switches:
 *
 * - `instancesV2`, always (Cloud servers, and Robot servers when Robot has credentials);
 * - `routes`, only with `HCLOUD_NETWORK` and `HCLOUD_NETWORK_ROUTES_ENABLED` (the default with a network);
 * - `loadBalancer`, unless `HCLOUD_LOAD_BALANCERS_ENABLED=false`.
 *
 * Like hccm it has no cluster ID (`--allow-untagged-cloud`, which hccm's manifests pass). Unlike hccm, at start it
 * proves the token works, the load-balancer settings name a location, network zone and type the catalogue holds,
 * `HCLOUD_NETWORK` exists and Robot takes `ROBOT_USER` and `ROBOT_PASSWORD`, so a wrong one stops the manager with
 * the variable named instead of failing every lookup (or tripping Robot's lock-out) later. The factory itself calls
 * no API: `doctor` builds it and asks `verifyAccess`.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CloudProvider, ProviderRuntime } from "../cloud.ts";
import { findInCauseChain } from "../errors.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { CloudApiError } from "../kit/http/errors.ts";
import type { RuntimeHandle } from "../kit/runtime-handle.ts";
import type { ProviderSettings } from "../kit/settings.ts";
import { loggedWarnings } from "../kit/warning-events.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { HcloudAnnotations } from "./annotations.ts";
import { HcloudCertificates } from "./api/certificates.ts";
import { createHcloudTransport, type HcloudTransport } from "./api/client.ts";
import { HcloudLoadBalancers } from "./api/load-balancers.ts";
import { HcloudNetworks } from "./api/networks.ts";
import { type RobotApi, RobotCredentialsError, RobotHttpApi } from "./api/robot.ts";
import { HcloudServers } from "./api/servers.ts";
import { catalogueIssues, type HcloudCatalogue, readCatalogue } from "./catalogue.ts";
import { type HcloudConfig, readHcloudConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { createHcloudLoadBalancer } from "./load-balancers.ts";
import { type NetworkRef, networkRef } from "./network.ts";
import { cachedRobot } from "./robot-cache.ts";
import { createRoutes } from "./routes.ts";
import { cachedServers } from "./server-cache.ts";
import { hcloudSettingDocs } from "./settings-reference.ts";

export const hcloudProviderName = "hcloud";

/** The `source.component` of the provider's own events: hccm's. */
export const hcloudEventsComponent = "hcloud-cloud-controller-manager";

/** hccm's environment (and `--cloud-config`), read by the kit: typo hints, `*_FILE` secrets, redaction. */
export const hcloudSettings: ProviderSettings<HcloudConfig> = {
  reference: hcloudSettingDocs,
  async read(input) {
    const { config, warnings } = await readHcloudConfig(input);
    return { value: config, warnings: [...warnings, ...withoutEffect(config)] };
  },
};

/** The hcloud provider's declaration: every problem of the settings is one `ConfigError` naming each variable. */
export const hcloud = defineProvider({
  name: hcloudProviderName,
  settings: hcloudSettings,
  // HCLOUD_RATE_LIMIT_QPS and _BURST; Hetzner's budget by default.
  rateLimit: (config) => config.rateLimit,
  // hccm's recorder's component, so its users' event queries keep matching.
  eventsComponent: hcloudEventsComponent,
  // The settings only change defaults, never what a value may be, so the set with hccm's defaults judges them.
  webhooks: { [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((s) => HcloudAnnotations.read(s).problems) },
  create(ctx) {
    const config = ctx.settings;
    const transport = createHcloudTransport({
      ...ctx.http,
      token: config.token,
      endpoint: config.endpoint,
      debug: config.debug,
    });
    const credentials = config.robot.enabled ? config.robot.credentials : undefined;
    // Robot keeps its own limits (ROBOT_RATE_LIMIT_WAIT_TIME), not the Cloud API's declared one.
    const { rateLimit: _cloudLimit, ...tuning } = ctx.http;
    const robot = credentials
      ? cachedRobot(
          new RobotHttpApi({
            ...tuning,
            ...credentials,
            endpoint: config.robot.endpoint,
            rateLimitWaitMs: config.robot.rateLimitWaitMs,
          }),
          config.robot.cacheTimeoutMs,
          ctx.clock.now,
        )
      : undefined;
    return hcloudProvider({ config, transport, robot, logger: ctx.logger, runtime: ctx.runtime });
  },
});

/** hccm's settings that this manager accepts but does otherwise, said once at start so a migration hears of them. */
export function withoutEffect(config: HcloudConfig): string[] {
  const out: string[] = [];
  if (!config.metrics.enabled || config.metrics.address !== ":8233") {
    out.push(
      "HCLOUD_METRICS_ENABLED and HCLOUD_METRICS_ADDRESS have no effect here: metrics are served on /metrics at --secure-port",
    );
  }
  return out;
}

export interface HcloudParts {
  readonly config: HcloudConfig;
  readonly transport: HcloudTransport;
  /** Present when `ROBOT_ENABLED` with credentials. */
  readonly robot?: RobotApi | undefined;
  readonly logger?: ConsolaInstance | undefined;
  /** The Node cache and Warning events, once the manager initializes the provider; without it (tests) log only. */
  readonly runtime?: RuntimeHandle | undefined;
}

/** The provider over a transport (the factory's, or a test's on the emulator). */
export function hcloudProvider(parts: HcloudParts) {
  const { config, transport, robot } = parts;
  const servers = cachedServers(new HcloudServers(transport), config.serverCache, transport.now);
  const networks = new HcloudNetworks(transport);
  const network: NetworkRef | undefined =
    config.network === undefined ? undefined : networkRef(networks, config.network);
  const { logger, runtime } = parts;
  const nodeWarnings = runtime?.nodeWarnings ?? loggedWarnings<Node>(Resources.nodes, logger);
  const node = (name: string) => runtime?.current()?.informers.nodes().get(name);

  const instancesV2 = createInstances({ servers, robot, network, config, logger, warnings: nodeWarnings });
  const routes =
    config.routesEnabled && network ? createRoutes({ servers, networks, network, node, logger }) : undefined;
  const loadBalancer = config.loadBalancers.enabled
    ? createHcloudLoadBalancer({
        lbs: new HcloudLoadBalancers(transport),
        certificates: new HcloudCertificates(transport),
        network,
        robot,
        config,
        logger,
        warn: (service, reason, message) => runtime?.serviceWarnings.warn(service, reason, message),
        now: transport.now,
      })
    : undefined;

  const lbDefaults = config.loadBalancers;
  const typeNamed = lbDefaults.enabled && lbDefaults.type !== undefined;
  /** Read once: the start's check and `doctor` each ask at most once a process; a failed read is asked again. */
  let catalogue: Promise<HcloudCatalogue> | undefined;
  const readOnce = (ctx: CallContext) => {
    catalogue ??= readCatalogue(transport, ctx, typeNamed).catch((err: unknown) => {
      catalogue = undefined;
      throw err;
    });
    return catalogue;
  };

  /** The token with the catalogue's read (its locations), the settings that name the catalogue, then the network. */
  async function checkCloud(ctx: CallContext): Promise<void> {
    let read: HcloudCatalogue;
    try {
      read = await readOnce(ctx);
    } catch (err) {
      const api = findInCauseChain(err, CloudApiError);
      const refused = api !== undefined && (api.status === 401 || api.code === "unauthorized");
      const why = refused
        ? "the API refused HCLOUD_TOKEN; set it to a Read & Write API token of the cluster's project (Hetzner Console → Security → API tokens)"
        : api !== undefined
          ? `the Hetzner Cloud API at HCLOUD_ENDPOINT=${config.endpoint} answered with an error`
          : `the Hetzner Cloud API at HCLOUD_ENDPOINT=${config.endpoint} did not answer`;
      throw new Error(`hcloud: ${why}: ${(err as Error).message}`, { cause: err });
    }
    // With load balancers off, their defaults are never used.
    const issues = lbDefaults.enabled ? catalogueIssues(lbDefaults, read) : [];
    if (issues.length > 0) throw new Error(`hcloud: ${issues.join("; ")}`);
    if (network) await network.id(ctx);
  }

  /**
   * Robot's credentials with its one cheap read, the server list (which the cache keeps for the lookups to come).
   * Refused credentials always stop; an unavailable Robot fails `doctor` (`strict`) but only warns at start, where
   * the lookups wait for it as they do when it goes down later.
   */
  async function checkRobot(ctx: CallContext, strict: boolean): Promise<void> {
    if (!robot) return;
    try {
      await robot.listServers(ctx);
    } catch (err) {
      const message = (err as Error).message;
      if (findInCauseChain(err, RobotCredentialsError)) {
        throw new Error(
          `hcloud: Robot refused ROBOT_USER and ROBOT_PASSWORD; set them to a webservice user (Robot → Settings → Web service and app settings): ${message}`,
          { cause: err },
        );
      }
      const why = `the Robot webservice at ROBOT_ENDPOINT=${config.robot.endpoint} could not be read: ${message}`;
      if (strict) throw new Error(`hcloud: ${why}`, { cause: err });
      logger?.warn(`hcloud: ${why}; Robot servers are looked up when it answers`);
    }
  }

  return {
    providerName: hcloudProviderName,
    // As hccm: hcloud resources carry no cluster tag, so hccm's manifests pass --allow-untagged-cloud.
    hasClusterID: () => false,
    async initialize(ctx: ProviderRuntime) {
      // The routes read Nodes from the controllers' own cache; asked for here, before it starts.
      ctx.informers.nodes();
      const call = { signal: ctx.signal };
      await checkCloud(call);
      await checkRobot(call, false);
      const capabilities = [
        "instances",
        ...(routes ? [`routes in network ${config.network}`] : []),
        ...(loadBalancer ? ["load balancers"] : []),
        ...(robot ? ["Robot servers"] : []),
      ];
      ctx.logger.info(`hcloud: ${capabilities.join(", ")} at ${config.endpoint}`);
    },
    async verifyAccess(ctx: CallContext) {
      await checkCloud(ctx);
      await checkRobot(ctx, true);
    },
    instancesV2,
    routes,
    loadBalancer,
    rateLimit: config.rateLimit,
  } satisfies CloudProvider;
}
