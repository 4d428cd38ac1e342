/**
 * The sandbox provider: validated config in, a `CloudProvider` over the simulated cloud's HTTP API out. The example
 * to copy: one `defineProvider` declaration, and the provider over any `SandboxApi` for tests.
 */
import { hostname } from "node:os";
import type { CallContext, CloudProvider, LoadBalancerClasses, RateLimit } from "../cloud.ts";
import { defineProvider } from "../kit/define-provider.ts";
import { SERVICE_ANNOTATIONS_WEBHOOK, serviceAnnotationsWebhook } from "../kit/webhooks.ts";
import { loadBalancerClassesOf } from "../load-balancer-classes.ts";
import { SandboxAnnotations } from "./annotations.ts";
import type { SandboxApi } from "./api/client.ts";
import { SandboxHttpApi } from "./api/http.ts";
import { createCidrAllocator } from "./cidr-allocator.ts";
import { sandboxSettings } from "./config.ts";
import { createInstances } from "./instances.ts";
import { createLegacyInstances } from "./legacy-instances.ts";
import { createLoadBalancers } from "./load-balancers.ts";
import { createRoutes } from "./routes.ts";

export const sandboxProviderName = "sandbox";

/**
 * What the simulated cloud tolerates by default (it enforces no limit unless a fault says so); the framework sizes
 * its parallelism by it (the node controller runs min(burst, 32) join workers) and paces its calls to it. A real
 * provider declares its cloud's documented API limit here.
 */
export const sandboxRateLimit: RateLimit = { qps: 1000, burst: 200 };

/**
 * The sandbox provider's declaration: the cloud-config (and the token from wherever it is given) in, the provider
 * over the simulated cloud's HTTP API out. Every configuration problem is one `ConfigError`, before any cloud call.
 */
export const sandbox = defineProvider({
  name: sandboxProviderName,
  settings: sandboxSettings,
  rateLimit: sandboxRateLimit,
  // `kubectl apply` of a LoadBalancer Service with an invalid annotation is refused at once, naming it (--webhooks).
  webhooks: {
    [SERVICE_ANNOTATIONS_WEBHOOK]: serviceAnnotationsWebhook((service) => SandboxAnnotations.read(service).problems),
  },
  create(ctx) {
    const config = ctx.settings;
    const api = new SandboxHttpApi({
      ...ctx.http,
      url: config.url,
      token: config.token,
      timeoutMs: config.timeoutMs,
      // Says which process wrote what in the cloud's write log (two managers of one cluster share host and token).
      userAgent: `ccm-ts-sandbox (${hostname()}; pid ${process.pid})`,
    });
    return sandboxProvider(api, {
      cluster: config.cluster,
      classes: config.loadBalancer && loadBalancerClassesOf(config.loadBalancer),
      instances: config.instances,
    });
  },
});

export interface SandboxProviderOptions {
  /** Overrides `--cluster-name` on load balancers and routes. */
  readonly cluster?: string | undefined;
  /** As `LoadBalancer.classes`. */
  readonly classes?: LoadBalancerClasses | undefined;
  /** `legacy` serves `instances` and `zones` instead of `instancesV2`; default `v2`. */
  readonly instances?: "v2" | "legacy";
}

/** The provider over any `SandboxApi` (the factory passes the HTTP one). */
export function sandboxProvider(api: SandboxApi, options: SandboxProviderOptions = {}) {
  const instances = options.instances === "legacy" ? createLegacyInstances(api) : { instancesV2: createInstances(api) };
  return {
    providerName: sandboxProviderName,
    // The sandbox scopes load balancers and routes by cluster name, which always has a value.
    hasClusterID: () => true,
    // One machine listed: proves the URL, the token and the cloud's answer, at the cost of one small call.
    verifyAccess: async (ctx: CallContext) => {
      await api.listMachines(ctx, { page: 1, perPage: 1 });
    },
    ...instances,
    loadBalancer: { ...createLoadBalancers(api, options), classes: options.classes },
    routes: createRoutes(api, options),
    cidrAllocator: createCidrAllocator(api),
    rateLimit: sandboxRateLimit,
  } satisfies CloudProvider;
}
