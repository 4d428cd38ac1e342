/**
 * The shipped composite declaration against the conformance suite, built from a cloud-config through a registry of
 * its two real parts: the sandbox provider (its HTTP client and a
 * simulated cloud on loopback) serving Nodes, load balancers and routes, and metal behind it with an empty inventory
 * and `requireInventoryEntry`, so it claims nothing and every machine the suite arranges is found by routing: by
 * provider-ID scheme, or by name through the parts in order.
 *
 * Skipped by design: a Node without a provider ID that no part finds is kept (`instanceExists` true), not reported
 * gone, because it may be a machine of a provider the cluster does not configure (hccm #789); instances.test.ts and
 * test/composite.e2e.test.ts cover that. Its metadata is still `InstanceNotFoundError`, as the contract asks.
 */
import { runConformance } from "../conformance/suite.ts";
import { metal } from "../metal/provider.ts";
import { ProviderRegistry } from "../registry.ts";
import { sandbox } from "../sandbox/provider.ts";
import { sandboxArrange, startTestCloud, testToken } from "../sandbox/testing.ts";
import { compositeDefinition } from "./provider.ts";

const keptByDesign =
  "a Node without a provider ID that no part finds is kept (instanceExists true), never deleted: it may belong to a provider this cluster does not configure; instances.test.ts covers it";

/** The executable's registry as far as the composite is concerned: the parts it composes here. */
const registry = new ProviderRegistry();
registry.register(sandbox.name, (input) => sandbox.build(input, { retry: { maxRetries: 0 } }));
registry.register(metal.name, metal.factory);
const composite = compositeDefinition(registry);

await runConformance({
  name: composite.name,
  maxLoadBalancerNameLength: 32,
  async setup() {
    const t = startTestCloud();
    const config = [
      "providers:",
      `  - { name: sandbox, config: { url: "${t.cloud.url}", token: ${testToken} } }`,
      "  - { name: metal, config: { inventory: { requireInventoryEntry: true, deleteNodesMissingFromInventory: true } } }",
      "loadBalancer: sandbox",
      "routes: sandbox",
    ].join("\n");
    return {
      provider: await composite.build({ config, configSource: "conformance", env: {} }),
      arrange: sandboxArrange(t.cloud),
      teardown: () => t.stop(),
    };
  },
  skip: {
    "instancesV2/deleted-by-name": keptByDesign,
    "instancesV2/unknown-name": keptByDesign,
  },
});
