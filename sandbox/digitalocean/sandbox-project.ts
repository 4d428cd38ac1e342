/**
 * The DigitalOcean emulator as `cloud-controller-manager sandbox --cloud=digitalocean` runs it: an account with one
 * active Droplet per sandbox machine in `nyc3`, named as the machine so the sandbox's kubelets register their Nodes,
 * tagged `k8s-worker`, and the environment DO CCM's Deployment sets to talk to it: the token, the API URL, the
 * metadata service (which answers the region, as on a Droplet) and the public-access firewall over the tag.
 */
import { randomBytes } from "node:crypto";
import type { ConsolaInstance } from "consola";
import { type DoEmulator, startDoEmulator } from "./server.ts";
import { createDroplet } from "./state/droplets.ts";

export const sandboxRegion = "nyc3";
export const sandboxWorkerTag = "k8s-worker";
export const sandboxFirewallName = "k8s-public-access";

export interface DigitalOceanSandboxAccount {
  readonly emulator: DoEmulator;
  /** `DO_ACCESS_TOKEN`, `DO_OVERRIDE_URL`, `DO_METADATA_URL`, `PUBLIC_ACCESS_FIREWALL_NAME` and `_TAGS`. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export function startDigitalOceanSandboxAccount(o: {
  readonly droplets: readonly string[];
  readonly logger?: ConsolaInstance;
}): DigitalOceanSandboxAccount {
  // 64 hex characters after DigitalOcean's personal-token prefix, the shape of a real token.
  const token = `dop_v1_${randomBytes(32).toString("hex")}`;
  const emulator = startDoEmulator({
    token,
    lbActiveDelayMs: 500,
    metadataRegion: sandboxRegion,
    ...(o.logger && { logger: o.logger }),
  });
  for (const name of o.droplets) {
    createDroplet(emulator.world, { name, region: sandboxRegion, size: "s-2vcpu-4gb", tags: [sandboxWorkerTag] });
  }
  return {
    emulator,
    env: {
      DO_ACCESS_TOKEN: token,
      DO_OVERRIDE_URL: emulator.endpoint,
      DO_METADATA_URL: emulator.metadataUrl,
      PUBLIC_ACCESS_FIREWALL_NAME: sandboxFirewallName,
      PUBLIC_ACCESS_FIREWALL_TAGS: sandboxWorkerTag,
    },
    stop: () => emulator.stop(),
  };
}
