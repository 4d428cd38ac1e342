/**
 * The hcloud provider's instances and routes against the conformance suite, over the hcloud and Robot emulators
 * (one fresh pair per check), with the real API clients. The provider is not registered yet (no index.ts), so the
 * provider object is assembled here from the parts the registered one will be made of; machines are Cloud servers
 * in the network `k8s`, which routes go through.
 */
import { createNetwork, createServer } from "../../sandbox/hcloud/testing.ts";
import type { CloudProvider } from "../cloud.ts";
import { runConformance } from "../conformance/suite.ts";
import { hcloudRateLimit } from "./api/client.ts";
import { networkRef } from "./network.ts";
import { parseProviderID } from "./provider-id.ts";
import { createRoutes } from "./routes.ts";
import { instancesOn, startEmulators } from "./testing.ts";

const serverId = (providerID: string) => {
  const parsed = parseProviderID(providerID);
  if (parsed.kind !== "cloud") throw new Error(`unexpected provider ID ${providerID}`);
  return parsed.id;
};

await runConformance({
  name: "hcloud",
  async setup() {
    const e = startEmulators();
    const network = await createNetwork(e.h, "k8s");
    const provider: CloudProvider = {
      providerName: "hcloud",
      hasClusterID: () => true,
      rateLimit: hcloudRateLimit,
      instancesV2: instancesOn(e, { network: "k8s" }),
      routes: createRoutes({ servers: e.servers, networks: e.networks, network: networkRef(e.networks, "k8s") }),
    };
    return {
      provider,
      arrange: {
        async createMachine({ name }) {
          const id = await createServer(e.h, name, { networks: [network] });
          return { nodeName: name, providerID: `hcloud://${id}` };
        },
        async stopMachine({ providerID }) {
          await e.h.call("POST", `/servers/${serverId(providerID)}/actions/poweroff`);
        },
        async deleteMachine({ providerID }) {
          await e.h.call("DELETE", `/servers/${serverId(providerID)}`);
        },
      },
      teardown: () => e.stop(),
    };
  },
  skip: {
    "routes/dual-stack":
      "Hetzner private networks route IPv4 only (as in hccm): an IPv6 pod CIDR is refused with an error saying so",
  },
});
