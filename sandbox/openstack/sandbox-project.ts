/**
 * The OpenStack emulator as `cloud-controller-manager sandbox --cloud=openstack` runs it: project `k8s` in
 * `RegionOne` with one ACTIVE `m1.large` server per sandbox machine on network `private` with a floating IP from
 * `public`, named as the machine so the sandbox's kubelets register their Nodes, and the `cloud.conf` OCCM's
 * DaemonSet mounts from its `cloud-config` Secret (password auth, as OCCM's docs write it) to talk to it.
 */
import { randomBytes } from "node:crypto";
import type { ConsolaInstance } from "consola";
import { type OpenStackEmulator, startOpenStackEmulator } from "./server.ts";
import { createServer, networkNamed } from "./state.ts";

export const sandboxRegion = "RegionOne";
export const sandboxFlavor = "m1.large";

export interface OpenStackSandboxProject {
  readonly emulator: OpenStackEmulator;
  /** The `cloud.conf` text: `[Global]` password auth and `[Networking] public-network-name`. */
  readonly cloudConf: string;
  stop(): Promise<void>;
}

export function startOpenStackSandboxProject(o: {
  readonly servers: readonly string[];
  readonly logger?: ConsolaInstance;
}): OpenStackSandboxProject {
  const password = randomBytes(16).toString("hex");
  const emulator = startOpenStackEmulator({
    username: "admin",
    password,
    project: "k8s",
    region: sandboxRegion,
    ...(o.logger && { logger: o.logger }),
  });
  for (const name of o.servers) createServer(emulator.world, { name, flavor: sandboxFlavor, floatingIP: true });
  const cloudConf = [
    "[Global]",
    `auth-url = ${emulator.authUrl}`,
    "username = admin",
    `password = "${password}"`,
    "user-domain-name = Default",
    "tenant-name = k8s",
    "tenant-domain-name = Default",
    `region = ${sandboxRegion}`,
    "",
    "[Networking]",
    "public-network-name = public",
    "",
    "[LoadBalancer]",
    `floating-network-id = ${networkNamed(emulator.world, "public").id}`,
    "",
  ].join("\n");
  return { emulator, cloudConf, stop: () => emulator.stop() };
}
