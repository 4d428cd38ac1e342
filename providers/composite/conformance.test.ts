/**
 * The composite against the conformance suite, over two real parts: the sandbox provider (its HTTP client and a
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
import { sandboxProvider } from "../sandbox/provider.ts";
import { sandboxArrange, startTestCloud } from "../sandbox/testing.ts";
import { createCompositeProvider } from "./provider.ts";

const keptByDesign =
  "a Node without a provider ID that no part finds is kept (instanceExists true), never deleted: it may belong to a provider this cluster does not configure; instances.test.ts covers it";

await runConformance({
  name: "composite",
  maxLoadBalancerNameLength: 32,
  async setup() {
    const t = startTestCloud();
    const metalPart = await metal.build({
      config: "inventory: { requireInventoryEntry: true, deleteNodesMissingFromInventory: true }",
      configSource: "conformance",
      env: {},
    });
    const provider = createCompositeProvider({ loadBalancer: "sandbox", routes: "sandbox" }, [
      { name: "sandbox", provider: sandboxProvider(t.api), schemes: ["sandbox"], servesNodes: true },
      { name: "metal", provider: metalPart, schemes: ["metal"], servesNodes: true },
    ]);
    return {
      provider,
      arrange: sandboxArrange(t.cloud),
      teardown: () => t.stop(),
    };
  },
  skip: {
    "instancesV2/deleted-by-name": keptByDesign,
    "instancesV2/unknown-name": keptByDesign,
  },
});
