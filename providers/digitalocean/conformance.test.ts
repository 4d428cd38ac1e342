/**
 * The shipped digitalocean declaration against the conformance suite, built from DO CCM's environment over the
 * DigitalOcean emulator (one fresh one per check), as the registry builds it. Machines are Droplets.
 */

import { backendIds } from "../../sandbox/digitalocean/state/load-balancers.ts";
import { startHarness } from "../../sandbox/digitalocean/testing.ts";
import { runConformance } from "../conformance/suite.ts";
import { parseProviderID } from "./provider-id.ts";
import { doProvider } from "./testing.ts";

await runConformance({
  name: "digitalocean",
  async setup() {
    const h = startHarness();
    const provider = await doProvider(h, { REGION: "nyc3" });
    const world = h.emulator.world;
    return {
      provider,
      arrange: {
        createMachine({ name }) {
          const id = h.droplet({ name });
          const d = world.droplets.get(id);
          // As the Node controller sets them from the Droplet: a REGIONAL_NETWORK load balancer needs the public one.
          const addresses = [
            { type: "InternalIP", address: d?.privateV4 ?? "" },
            { type: "ExternalIP", address: d?.publicV4 ?? "" },
          ];
          return { nodeName: name, providerID: `digitalocean://${id}`, addresses };
        },
        stopMachine({ providerID }) {
          const droplet = world.droplets.get(parseProviderID(providerID));
          if (droplet) droplet.status = "off";
        },
        async deleteMachine({ providerID }) {
          await h.call("DELETE", `/_emulator/droplets/${parseProviderID(providerID)}`);
        },
        listLoadBalancers: () =>
          [...world.loadBalancers.values()].map((lb) => ({
            name: lb.spec.name,
            hosts: backendIds(world, lb).map((id) => world.droplets.get(id)?.name ?? ""),
            ports: lb.spec.forwarding_rules.map((r) => r.entry_port),
          })),
      },
      teardown: () => h.stop(),
    };
  },
  skip: {
    "instancesV2/metadata-zone":
      "DigitalOcean regions have no zones, and DO CCM sets no zone label: a made-up one would change DO CCM users' Nodes",
  },
});
