/**
 * The shipped openstack declaration against the conformance suite, built from an OCCM `cloud.conf` (password
 * authentication, a floating network for load balancers) over the OpenStack emulator (one fresh one per check), as
 * the registry builds it. Machines are Nova servers; load balancers Octavia's, their hosts the members' names.
 */
import { deleteServer, networkNamed } from "../../sandbox/openstack/state.ts";
import { startHarness } from "../../sandbox/openstack/testing.ts";
import { runConformance } from "../conformance/suite.ts";
import { parseProviderID } from "./provider-id.ts";
import { osProvider, passwordConf } from "./testing.ts";

await runConformance({
  name: "openstack",
  async setup() {
    const h = startHarness();
    const world = h.emulator.world;
    const floating = networkNamed(world, "public").id;
    const provider = await osProvider(h, passwordConf(h, `[LoadBalancer]\nfloating-network-id = ${floating}`));
    return {
      provider,
      arrange: {
        createMachine({ name }) {
          const id = h.server({ name, floatingIP: true });
          const fixed = [...world.ports.values()].find((p) => p.deviceID === id)?.fixedIPs[0] ?? "";
          return {
            nodeName: name,
            providerID: `openstack:///${id}`,
            addresses: [{ type: "InternalIP", address: fixed }],
          };
        },
        stopMachine({ providerID }) {
          const server = world.servers.get(parseProviderID(providerID).id);
          if (server) server.status = "SHUTOFF";
        },
        deleteMachine({ providerID }) {
          deleteServer(world, parseProviderID(providerID).id);
        },
        listLoadBalancers: () =>
          [...world.octavia.loadBalancers.values()].map((lb) => ({
            name: lb.name,
            hosts: [...new Set(lb.pools.flatMap((p) => p.members.map((m) => m.name)))],
            ports: lb.listeners.map((l) => l.protocolPort),
          })),
      },
      teardown: () => h.stop(),
    };
  },
});
