/**
 * The Scaleway emulator as `cloud-controller-manager sandbox --cloud=scaleway` runs it: a project in `fr-par-2` (a
 * zone that offers both Instances and Elastic Metal) with one server per sandbox machine, named as the machine so
 * the sandbox's kubelets register their Nodes: every third machine an Elastic Metal server, the others running
 * Instances attached to a private network, and the environment scw CCM's Deployment takes from its `scaleway-secret`
 * (keys, project, region) plus `SCW_API_URL` and `PN_ID` to talk to it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { ConsolaInstance } from "consola";
import { type ScalewayEmulator, startScalewayEmulator } from "./server.ts";
import { createBaremetalServer } from "./state/baremetal.ts";
import { createInstanceServer } from "./state/instance.ts";
import { regionOf } from "./state/world.ts";

export const sandboxZone = "fr-par-2";
export const sandboxInstanceType = "PRO2-S";
export const sandboxMetalOffer = "EM-A115X-SSD";

export interface ScalewaySandboxProject {
  readonly emulator: ScalewayEmulator;
  /** `SCW_ACCESS_KEY`, `SCW_SECRET_KEY`, `SCW_DEFAULT_PROJECT_ID`, `_REGION`, `_ZONE`, `SCW_API_URL` and `PN_ID`. */
  readonly env: Readonly<Record<string, string>>;
  /** How many of the servers are Elastic Metal. */
  readonly baremetal: number;
  stop(): Promise<void>;
}

/** Machine i (0-based) is Elastic Metal when i % 3 === 2: a mix from three machines on. */
export const isMetal = (index: number): boolean => index % 3 === 2;

export function startScalewaySandboxProject(o: {
  readonly servers: readonly string[];
  readonly logger?: ConsolaInstance;
}): ScalewaySandboxProject {
  const secretKey = randomUUID();
  // SCW and 17 capitals or digits, the shape of a real access key.
  const accessKey = `SCW${randomBytes(17)
    .toString("hex")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "0")
    .slice(0, 17)}`;
  const privateNetwork = randomUUID();
  const emulator = startScalewayEmulator({ secretKey, ...(o.logger && { logger: o.logger }) });
  let baremetal = 0;
  o.servers.forEach((name, i) => {
    if (isMetal(i)) {
      createBaremetalServer(emulator.world, { name, zone: sandboxZone, offer_name: sandboxMetalOffer });
      baremetal++;
    } else {
      createInstanceServer(emulator.world, {
        name,
        zone: sandboxZone,
        commercial_type: sandboxInstanceType,
        private_networks: [privateNetwork],
      });
    }
  });
  return {
    emulator,
    baremetal,
    env: {
      SCW_ACCESS_KEY: accessKey,
      SCW_SECRET_KEY: secretKey,
      SCW_DEFAULT_PROJECT_ID: emulator.world.defaultProject.id,
      SCW_DEFAULT_REGION: regionOf(sandboxZone),
      SCW_DEFAULT_ZONE: sandboxZone,
      SCW_API_URL: emulator.endpoint,
      PN_ID: privateNetwork,
      // Tag sync is not part of the provider yet; saying so keeps its warning out of the sandbox.
      DISABLE_TAGS_SYNC: "true",
    },
    stop: () => emulator.stop(),
  };
}
