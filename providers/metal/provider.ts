/**
 * The metal provider: validated config in, a `CloudProvider` for clusters without a cloud API out. InstancesV2
 * always; LoadBalancer when the cloud-config has a `loadBalancer` section (without one, another implementation such
 * as MetalLB may own LoadBalancer Services and the service controller stays off). No routes.
 *
 * `initialize` (once per leadership term) follows the configured ConfigMaps through the shared informers, waits
 * for their first state, and rebuilds the address book from every Service in the shared Service cache (synced: its
 * first complete list) before the load balancers answer anything. It opens no watch of its own.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import { waitForCacheSync } from "../../kube/informer.ts";
import type { ConfigMap } from "../../kube/objects.ts";
import type { CloudProvider, ProviderRuntime, RateLimit } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { providerApiMetrics } from "../kit/metrics.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { loadBalancerClassesOf } from "../load-balancer-classes.ts";
import { AddressBook } from "./address-book.ts";
import { MetalServiceAnnotations } from "./annotations.ts";
import { configuredPools, type MetalConfig, parseMetalConfig } from "./config.ts";
import { type ConfigMapRef, watchConfigMap } from "./configmap-watch.ts";
import { createInstances } from "./instances.ts";
import { Inventory } from "./inventory.ts";
import { describeInvalid, readInventoryConfigMap } from "./inventory-configmap.ts";
import { parseKubeVipConfigMap } from "./kube-vip-format.ts";
import { createLoadBalancers, type MetalSession } from "./load-balancers.ts";
import { toMachine } from "./machine-schema.ts";
import { emptyPoolSet, overlayPools, type PoolSet } from "./pools.ts";
import { type Connect, tcpConnect } from "./probe.ts";
import { formatProviderID } from "./provider-id.ts";
import { rebuildAllocations } from "./rebuild.ts";
import { metalSettingDocs } from "./settings-reference.ts";

export const metalProviderName = "metal";

/**
 * Answers come from memory, not from an API, so the framework may run many node initialisations at once; the
 * Kubernetes writes of allocation records are paced by the Kubernetes client, not by this.
 */
export const metalRateLimit: RateLimit = { qps: 200, burst: 32 };

export interface MetalProviderDeps {
  /** The shutdown probe's TCP connect; default a real connection. */
  readonly connect?: Connect;
  /**
   * Where the shutdown probes are recorded (`cloudprovider_metal_api_request_duration_seconds{request="probe"}`, …):
   * the registry served at /metrics; default a registry of its own.
   */
  readonly metrics?: Registry | undefined;
  /** The provider's logger from construction on; `initialize` hands over the term's until then. */
  readonly logger?: ConsolaInstance | undefined;
}

/** The metal provider's declaration: every configuration problem is one `ConfigError`, thrown before anything runs. */
export const metal = defineProvider({
  name: metalProviderName,
  // Beyond the schema, the file's own text is checked for machines named twice.
  settings: {
    reference: metalSettingDocs,
    read: (input) => ({ value: parseMetalConfig(input.config, input.configSource) }),
  },
  rateLimit: metalRateLimit,
  webhooks: {
    [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((s) => MetalServiceAnnotations.read(s).problems),
  },
  // The provider's own Warning events say `metal-cloud-provider`, written per term (load-balancers.ts).
  create: (ctx) => metalProvider(ctx.settings, { metrics: ctx.metrics, logger: ctx.logger }),
});

const refName = (ref: ConfigMapRef) => `${ref.namespace}/${ref.name}`;

export function metalProvider(config: MetalConfig, deps: MetalProviderDeps = {}) {
  const inventoryRef = config.inventory.configMap;
  const inventory = new Inventory(
    config.inventory.machines.map(({ name, ...body }) => toMachine(name, body, formatProviderID)),
    inventoryRef && refName(inventoryRef),
  );
  const lbConfig = config.loadBalancer;
  const basePools = lbConfig ? configuredPools(lbConfig) : emptyPoolSet;
  let pools: PoolSet = basePools;
  const book = new AddressBook();
  let session: MetalSession | undefined;
  let logger: ConsolaInstance | undefined = deps.logger;

  const instancesV2 = createInstances(inventory, {
    requireInventoryEntry: config.inventory.requireInventoryEntry,
    deleteNodesMissingFromInventory: config.inventory.deleteNodesMissingFromInventory,
    configMapName: inventoryRef && refName(inventoryRef),
    shutdownProbe: config.shutdownProbe,
    connect: deps.connect ?? tcpConnect,
    metrics: providerApiMetrics(deps.metrics, metalProviderName),
    logger: () => logger,
  });
  const classes = lbConfig && loadBalancerClassesOf(lbConfig);
  const loadBalancer = lbConfig
    ? {
        ...createLoadBalancers({
          book,
          pools: () => pools,
          session: () => session,
          kubeVipAnnotation: lbConfig.kubeVipAnnotation,
        }),
        classes,
      }
    : undefined;

  function applyInventory(cm: ConfigMap | undefined, ref: ConfigMapRef, log: ConsolaInstance): void {
    const entries = readInventoryConfigMap(cm);
    inventory.setConfigMap(entries);
    if (!entries) log.warn(`inventory ConfigMap ${refName(ref)} does not exist; no node is reported missing`);
    else {
      for (const line of describeInvalid(`inventory ConfigMap ${refName(ref)}`, entries.invalid)) log.error(line);
      log.info(`inventory: ${inventory.machines().length} machines`);
    }
  }

  function applyKubeVip(cm: ConfigMap | undefined, ref: ConfigMapRef, log: ConsolaInstance): void {
    const parsed = cm ? parseKubeVipConfigMap(cm.data ?? {}, `ConfigMap ${refName(ref)}`) : undefined;
    pools = parsed ? overlayPools(basePools, parsed.set) : basePools;
    for (const problem of parsed?.problems ?? []) log.error(`ConfigMap ${refName(ref)}: ${problem}`);
    if (!cm) log.info(`kube-vip ConfigMap ${refName(ref)} does not exist; using the cloud-config's pools only`);
  }

  async function initialize(ctx: ProviderRuntime): Promise<void> {
    session = undefined;
    logger = ctx.logger;
    const { kube, signal, informers } = ctx;
    const reads: Promise<boolean>[] = [];
    if (inventoryRef) {
      const log = ctx.logger.withTag("inventory");
      const onChange = (cm: ConfigMap | undefined) => applyInventory(cm, inventoryRef, log);
      reads.push(watchConfigMap({ informers, ref: inventoryRef, logger: log, signal, onChange }));
    }
    const kubeVipRef = lbConfig?.kubeVipConfigMap;
    if (kubeVipRef) {
      const log = ctx.logger.withTag("pools");
      const onChange = (cm: ConfigMap | undefined) => applyKubeVip(cm, kubeVipRef, log);
      reads.push(watchConfigMap({ informers, ref: kubeVipRef, logger: log, signal, onChange }));
    }
    if ((await Promise.all(reads)).includes(false) || !loadBalancer) {
      if (!signal.aborted) session = { kube, signal, logger: ctx.logger };
      return;
    }
    // The controllers' own Service cache: its first complete list (retried by the informer until it works) holds
    // every allocation record, so nothing is allocated twice.
    const services = informers.services();
    if (!(await waitForCacheSync([services], signal))) return;
    const report = rebuildAllocations(book, pools, services.list(), classes);
    for (const line of [...report.conflicts, ...report.ignored]) ctx.logger.warn(line);
    ctx.logger.info(
      `load balancers: ${report.restored} allocations restored, ${report.adopted} adopted from status, ${book.size} Services hold addresses`,
    );
    session = { kube, signal, logger: ctx.logger };
  }

  return {
    providerName: metalProviderName,
    // Nothing here is shared between clusters, so there is no cluster ID to require.
    hasClusterID: () => true,
    initialize,
    instancesV2,
    loadBalancer,
    rateLimit: metalRateLimit,
    /** For tests and diagnostics: the current allocations and pools. */
    book,
    pools: () => pools,
    inventory,
  } satisfies CloudProvider & Record<string, unknown>;
}
