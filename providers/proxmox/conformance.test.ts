/**
 * The shipped proxmox declaration against the conformance suite: built from a cloud-config with its HTTP clients over two emulated Proxmox VE
 * clusters on loopback (HTTPS, the emulator's CA), one fresh pair per check. Machines are QEMU VMs made in the
 * `west` cluster, so every lookup by name crosses both clusters.
 */
import { runConformance } from "../conformance/suite.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";
import { startTestClusters } from "./testing.ts";

const vmidOf = (providerID: string) => {
  const parsed = parseProviderID(providerID);
  if (parsed.kind !== "vm") throw new Error(`unexpected provider ID ${providerID}`);
  return parsed.vmid;
};

await runConformance({
  name: "proxmox",
  async setup() {
    const t = await startTestClusters();
    const west = t.clusters.west!.state;
    return {
      provider: await t.provider(),
      arrange: {
        createMachine({ name }) {
          const vm = west.addVM({ name, agent: [{ name: "eth0", addresses: ["192.0.2.10"] }] });
          return { nodeName: name, providerID: formatProviderID("west", vm.vmid) };
        },
        stopMachine({ providerID }) {
          west.updateVM(vmidOf(providerID), { status: "stopped" });
        },
        deleteMachine({ providerID }) {
          west.deleteVM(vmidOf(providerID));
        },
      },
      teardown: () => t.stop(),
    };
  },
});
