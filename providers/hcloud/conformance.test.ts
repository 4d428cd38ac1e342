/**
 * The hcloud provider's instances, routes and load balancers against the conformance suite, over the hcloud and Robot
 * emulators (one fresh pair per check), with the real API clients. The provider is not registered yet (no index.ts), so the
 * provider object is assembled here from the parts the registered one will be made of; machines are Cloud servers
 * in the network `k8s`, which routes go through.
 */
import * as v from "valibot";
import { createNetwork, createServer } from "../../sandbox/hcloud/testing.ts";
import type { CloudProvider } from "../cloud.ts";
import { runConformance } from "../conformance/suite.ts";
import { hcloudRateLimit } from "./api/client.ts";
import { HcloudLoadBalancers } from "./api/load-balancers.ts";
import { hcloudConfigSchema } from "./config.ts";
import { createHcloudLoadBalancer } from "./load-balancers.ts";
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
      loadBalancer: createHcloudLoadBalancer({
        lbs: new HcloudLoadBalancers(e.t),
        network: networkRef(e.networks, "k8s"),
        config: v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-", HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1" }),
      }),
    };
    const nodeNames = new Map<number, string>();
    return {
      provider,
      arrange: {
        async createMachine({ name }) {
          const id = await createServer(e.h, name, { networks: [network] });
          nodeNames.set(id, name);
          return { nodeName: name, providerID: `hcloud://${id}` };
        },
        async stopMachine({ providerID }) {
          await e.h.call("POST", `/servers/${serverId(providerID)}/actions/poweroff`);
        },
        async deleteMachine({ providerID }) {
          await e.h.call("DELETE", `/servers/${serverId(providerID)}`);
        },
        listLoadBalancers: () =>
          [...e.h.emulator.world.loadBalancers.values()].map((lb) => ({
            name: lb.name,
            hosts: lb.targets.flatMap((t) => (t.type === "server" ? [nodeNames.get(t.server.id) ?? ""] : [])),
            ports: lb.services.map((s) => s.listen_port),
          })),
      },
      teardown: () => e.stop(),
    };
  },
  skip: {
    "routes/dual-stack":
      "Hetzner private networks route IPv4 only (as in hccm): an IPv6 pod CIDR is refused with an error saying so",
  },
});
