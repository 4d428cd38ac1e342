/**
 * The shipped hcloud declaration against the conformance suite, built from hccm's environment over the hcloud
 * emulator (one fresh one per check), as the registry builds it: instances, routes in the network `k8s` and load
 * balancers in fsn1. Machines are Cloud servers in that network. Robot is off: hccm refuses routes beside it.
 */
import { createNetwork, createServer, TOKEN } from "../../sandbox/hcloud/testing.ts";
import { runConformance } from "../conformance/suite.ts";
import { hcloud } from "./provider.ts";
import { parseProviderID } from "./provider-id.ts";
import { startEmulators } from "./testing.ts";

const unpaced = { qps: 0, burst: 1 };
const serverId = (providerID: string) => {
  const parsed = parseProviderID(providerID);
  if (parsed.kind !== "cloud") throw new Error(`unexpected provider ID ${providerID}`);
  return parsed.id;
};

await runConformance({
  name: hcloud.name,
  async setup() {
    const e = startEmulators();
    const network = await createNetwork(e.h, "k8s");
    const provider = await hcloud.build(
      {
        env: {
          HCLOUD_TOKEN: TOKEN,
          HCLOUD_ENDPOINT: e.h.emulator.endpoint,
          HCLOUD_NETWORK: "k8s",
          HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
        },
        config: undefined,
        configSource: undefined,
      },
      // The emulator's clock, and no pacing: the suite would otherwise wait out Hetzner's 3600 calls an hour.
      { now: e.h.clock.now, sleep: e.h.clock.sleep, random: () => 0.5, retry: { maxRetries: 0 }, pace: unpaced },
    );
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
