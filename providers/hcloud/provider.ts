/**
 * The hcloud provider: hccm's environment (and `--cloud-config`) in, a `CloudProvider` over the Hetzner Cloud API
 * and, with `ROBOT_ENABLED`, the Robot webservice out — the capabilities hccm offers under the same switches:
 *
 * - `instancesV2`, always (Cloud servers, and Robot servers when Robot has credentials);
 * - `routes`, only with `HCLOUD_NETWORK` and `HCLOUD_NETWORK_ROUTES_ENABLED` (the default with a network);
 * - `loadBalancer`, unless `HCLOUD_LOAD_BALANCERS_ENABLED=false`.
 *
 * Like hccm it has no cluster ID (`--allow-untagged-cloud`, which hccm's manifests pass), and at start it proves
 * the token works and `HCLOUD_NETWORK` exists, so a wrong one stops the manager with the variable named instead of
 * failing every lookup later. The factory itself calls no API: `doctor` builds it and asks `verifyAccess`.
 */
import { readFile as readFileFromDisk } from "node:fs/promises";
import { type ConsolaInstance, createConsola } from "consola";
import * as v from "valibot";
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CloudProvider, ProviderFactoryInput, ProviderRuntime } from "../cloud.ts";
import { findInCauseChain } from "../errors.ts";
import { createServiceWarnings, type ServiceWarnings } from "../kit/annotations/warnings.ts";
import { CloudApiError } from "../kit/http/errors.ts";
import type { RetryPolicy } from "../kit/http/retry-policy.ts";
import { HcloudCertificates } from "./api/certificates.ts";
import { createHcloudTransport, type HcloudTransport } from "./api/client.ts";
import { HcloudLoadBalancers } from "./api/load-balancers.ts";
import { HcloudNetworks } from "./api/networks.ts";
import { type RobotApi, RobotHttpApi } from "./api/robot.ts";
import { HcloudServers } from "./api/servers.ts";
import { type HcloudConfig, readHcloudConfig } from "./config.ts";
import { createInstances } from "./instances.ts";
import { createHcloudLoadBalancer } from "./load-balancers.ts";
import { type NetworkRef, networkRef } from "./network.ts";
import { createNodeWarnings, logOnly, type NodeWarnings } from "./node-warnings.ts";
import { cachedRobot } from "./robot-cache.ts";
import { createRoutes } from "./routes.ts";
import { cachedServers } from "./server-cache.ts";

export const hcloudProviderName = "hcloud";

/** The `source.component` of the provider's own events: hccm's. */
export const hcloudEventsComponent = "hcloud-cloud-controller-manager";

export interface HcloudProviderDeps {
  /** For the `*_FILE` settings; default the disk. */
  readonly readFile?: (path: string) => Promise<string>;
  readonly fetch?: typeof fetch;
  readonly retry?: Partial<RetryPolicy>;
  readonly now?: () => number;
}

/** The registered factory: every problem of the settings is one `ConfigError` naming each variable. */
export async function createHcloudProvider(
  input: ProviderFactoryInput,
  deps: HcloudProviderDeps = {},
): Promise<CloudProvider> {
  const { config, warnings } = await readHcloudConfig({
    env: input.env,
    config: input.config,
    configSource: input.configSource,
    readFile: deps.readFile ?? ((path) => readFileFromDisk(path, "utf8")),
  });
  const relay = relayLogger();
  const tuning = {
    metrics: input.metrics,
    logger: relay.logger,
    ...(deps.fetch && { fetch: deps.fetch }),
    ...(deps.retry && { retry: deps.retry }),
    ...(deps.now && { now: deps.now }),
  };
  const transport = createHcloudTransport({
    token: config.token,
    endpoint: config.endpoint,
    debug: config.debug,
    rateLimit: config.rateLimit,
    ...tuning,
  });
  const credentials = config.robot.enabled ? config.robot.credentials : undefined;
  const robot = credentials
    ? cachedRobot(
        new RobotHttpApi({
          ...credentials,
          endpoint: config.robot.endpoint,
          rateLimitWaitMs: config.robot.rateLimitWaitMs,
          ...tuning,
        }),
        config.robot.cacheTimeoutMs,
        deps.now ?? Date.now,
      )
    : undefined;
  return hcloudProvider({ config, warnings: [...warnings, ...withoutEffect(config)], transport, robot, relay });
}

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
  /** hccm's warnings about the settings, logged when the provider starts. */
  readonly warnings?: readonly string[];
  readonly transport: HcloudTransport;
  /** Present when `ROBOT_ENABLED` with credentials. */
  readonly robot?: RobotApi | undefined;
  /** The logger the transport and clients were given; default a new one. */
  readonly relay?: RelayLogger | undefined;
}

/**
 * The clients are built before the manager hands over its logger (in `initialize`): they log through this one,
 * which forwards to it once attached (and drops what is said before, when nothing would print it anyway). The
 * manager's logger does the level filtering (`--v`): the kit's retries and waits are debug lines.
 */
export interface RelayLogger {
  readonly logger: ConsolaInstance;
  attach(target: ConsolaInstance): void;
}

export function relayLogger(): RelayLogger {
  let target: ConsolaInstance | undefined;
  const logger = createConsola({
    level: 5,
    reporters: [{ log: (l) => target?.[l.type as "info"]?.(...(l.args as [string])) }],
  });
  return {
    logger,
    attach(t) {
      target = t;
    },
  };
}

/** The provider over a transport (the factory's, or a test's on the emulator). */
export function hcloudProvider(parts: HcloudParts) {
  const { config, transport, robot } = parts;
  const servers = cachedServers(new HcloudServers(transport), config.serverCache, transport.now);
  const networks = new HcloudNetworks(transport);
  const network: NetworkRef | undefined =
    config.network === undefined ? undefined : networkRef(networks, config.network);
  let runtime:
    | { node: (name: string) => Node | undefined; warnings: ServiceWarnings; nodeWarnings: NodeWarnings }
    | undefined;
  const relay = parts.relay ?? relayLogger();
  const { logger } = relay;
  const nodeWarnings: NodeWarnings = {
    warn: (node, reason, message) => (runtime?.nodeWarnings ?? logOnly(logger)).warn(node, reason, message),
  };

  const instancesV2 = createInstances({ servers, robot, network, config, logger, warnings: nodeWarnings });
  const routes =
    config.routesEnabled && network
      ? createRoutes({ servers, networks, network, node: (name) => runtime?.node(name), logger })
      : undefined;
  const loadBalancer = config.loadBalancers.enabled
    ? createHcloudLoadBalancer({
        lbs: new HcloudLoadBalancers(transport),
        certificates: new HcloudCertificates(transport),
        network,
        robot,
        config,
        logger,
        warn: (service, reason, message) => runtime?.warnings.warn(service, reason, message),
        now: transport.now,
      })
    : undefined;

  /** The token with a cheap read, then the network: each failure names the variable to change. */
  async function checkAccess(ctx: CallContext): Promise<void> {
    try {
      await transport.client.request(ctx, {
        operation: "verifyToken",
        method: "GET",
        path: "/locations",
        query: { per_page: 1 },
        answer: v.object({ locations: v.array(v.unknown()) }),
      });
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
    if (network) await network.id(ctx);
  }

  return {
    providerName: hcloudProviderName,
    // As hccm: hcloud resources carry no cluster tag, so hccm's manifests pass --allow-untagged-cloud.
    hasClusterID: () => false,
    async initialize(ctx: ProviderRuntime) {
      const nodes = ctx.informers.nodes();
      // hccm's recorder's component, so its users' event queries keep matching.
      const events = { kube: ctx.kube, logger: ctx.logger, signal: ctx.signal, component: hcloudEventsComponent };
      relay.attach(ctx.logger);
      runtime = {
        node: (name) => nodes.get(name),
        warnings: createServiceWarnings(events),
        nodeWarnings: createNodeWarnings(events),
      };
      for (const warning of parts.warnings ?? []) ctx.logger.warn(warning);
      await checkAccess({ signal: ctx.signal });
      const capabilities = [
        "instances",
        ...(routes ? [`routes in network ${config.network}`] : []),
        ...(loadBalancer ? ["load balancers"] : []),
        ...(robot ? ["Robot servers"] : []),
      ];
      ctx.logger.info(`hcloud: ${capabilities.join(", ")} at ${config.endpoint}`);
    },
    verifyAccess: checkAccess,
    instancesV2,
    routes,
    loadBalancer,
    rateLimit: config.rateLimit,
  } satisfies CloudProvider;
}
