/**
 * What a provider's `initialize` receives, and its view of the shared informer factory (upstream's `InformerUser`): the same Node and Service caches
 * the controllers read, and ConfigMaps or Secrets by namespace and optional name. Each selection is one informer
 * per process, however many callers ask for it.
 */
import type { ConsolaInstance } from "consola";
import { Registry } from "prom-client";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import { createInformerFactory, type InformerFactory } from "../kube/informer-factory.ts";
import type { ConfigMap, Node, Secret, Service } from "../kube/objects.ts";
import type { ProviderInformers, ProviderRuntime } from "./cloud.ts";

export function providerInformers(factory: InformerFactory): ProviderInformers {
  const selection = (s: { readonly namespace: string; readonly name?: string }) => ({
    namespace: s.namespace,
    ...(s.name !== undefined && { fieldSelector: `metadata.name=${s.name}` }),
  });
  return {
    nodes: (o) => factory.forResource<Node>(Resources.nodes, o?.keep ? { keep: o.keep } : {}),
    services: (o) => factory.forResource<Service>(Resources.services, o?.keep ? { keep: o.keep } : {}),
    configMaps: (s) => factory.forResource<ConfigMap>(Resources.configMaps, selection(s)),
    secrets: (s) => factory.forResource<Secret>(Resources.secrets, selection(s)),
  };
}

export interface ProviderRuntimeInput {
  readonly signal: AbortSignal;
  readonly logger: ConsolaInstance;
  readonly kube: KubeClient;
  readonly metrics: Registry;
  /** Must be started (or be started before the provider waits for a cache). */
  readonly informers: InformerFactory;
}

/** What `CloudProvider.initialize` receives: the manager builds it once per leadership term. */
export function createProviderRuntime(input: ProviderRuntimeInput): ProviderRuntime {
  return { ...input, informers: providerInformers(input.informers) };
}

/**
 * For tests of a provider's `initialize`: a runtime over `kube` whose informers (their own factory, started now)
 * and metrics (a registry of their own) live until `signal` aborts.
 */
export function testProviderRuntime(
  kube: KubeClient,
  signal: AbortSignal,
  logger: ConsolaInstance,
  metrics: Registry = new Registry(),
): ProviderRuntime {
  const informers = createInformerFactory({ client: kube, logger });
  informers.start(signal);
  return createProviderRuntime({ signal, logger, kube, metrics, informers });
}
