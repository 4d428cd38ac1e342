/**
 * The hcloud emulator as `cloud-controller-manager sandbox --cloud=hcloud` runs it: a project shaped like an hccm
 * user's (network `k8s` 10.0.0.0/16 with a subnet 10.0.0.0/18 in eu-central, room for thousands of servers) with one running server per sandbox
 * machine, named as the machine so the sandbox's kubelets register their Nodes, and the environment
 * `hcloud-cloud-controller-manager` reads to talk to it.
 */
import { randomBytes } from "node:crypto";
import type { ConsolaInstance } from "consola";
import { type HcloudEmulator, startHcloudEmulator } from "./server.ts";
import { createNetwork } from "./state/networks.ts";
import { createServer } from "./state/servers.ts";

export const sandboxNetworkName = "k8s";

export interface HcloudSandboxProject {
  readonly emulator: HcloudEmulator;
  /** `HCLOUD_ENDPOINT`, `HCLOUD_TOKEN`, `HCLOUD_NETWORK`, and the location of new load balancers (hccm needs one). */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export function startHcloudSandboxProject(o: {
  readonly servers: readonly string[];
  readonly logger?: ConsolaInstance;
}): HcloudSandboxProject {
  // 64 characters, as Hetzner's tokens have, so the provider does not warn about its length.
  const token = randomBytes(32).toString("hex");
  const emulator = startHcloudEmulator({ token, actionDurationMs: 500, ...(o.logger && { logger: o.logger }) });
  const network = createNetwork(emulator.world, {
    name: sandboxNetworkName,
    ip_range: "10.0.0.0/16",
    subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.0.0/18" }],
  });
  for (const name of o.servers) {
    createServer(emulator.world, { name, server_type: "cx22", image: "ubuntu-24.04", networks: [network.id] });
  }
  return {
    emulator,
    env: {
      HCLOUD_ENDPOINT: emulator.endpoint,
      HCLOUD_TOKEN: token,
      HCLOUD_NETWORK: sandboxNetworkName,
      HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
    },
    stop: () => emulator.stop(),
  };
}
