/**
 * Run the Scaleway API emulator on its own (docs/emulators.md):
 *
 *   npx bun sandbox/scaleway/main.ts [--port 0] [--secret-key <uuid>] [--instances 3] [--baremetal 0]
 *                                    [--zone fr-par-1] [--private-network <uuid>]
 *
 * It prints the `SCW_*` variables a client needs and serves until SIGINT or SIGTERM.
 */
import { randomUUID } from "node:crypto";
import { runEmulatorMain, wholeFlag } from "../kit/main.ts";
import { startScalewayEmulator } from "./server.ts";
import { createBaremetalServer } from "./state/baremetal.ts";
import { createInstanceServer } from "./state/instance.ts";
import { baremetalZones, instanceZones, regionOf } from "./state/world.ts";

const USAGE = `usage: npx bun sandbox/scaleway/main.ts [--port 0] [--secret-key <uuid>] [--instances 3] [--baremetal 0]
       [--zone fr-par-1] [--private-network <uuid>]
The Scaleway API emulator on 127.0.0.1 (docs/emulators.md): it prints SCW_API_URL, the keys, the project, region
and zone, and serves until SIGINT or SIGTERM; --instances N adds running Instances node-1…, --baremetal N ready
Elastic Metal servers metal-1…, in --zone; --private-network attaches the Instances to that private network.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

runEmulatorMain({
  name: "scaleway emulator",
  usage: USAGE,
  options: {
    port: { type: "string" },
    "secret-key": { type: "string" },
    instances: { type: "string" },
    baremetal: { type: "string" },
    zone: { type: "string" },
    "private-network": { type: "string" },
  },
  start(values) {
    const secretKey = values["secret-key"] ?? randomUUID();
    if (!UUID.test(secretKey)) throw new Error(`--secret-key: '${secretKey}' is not a UUID, as Scaleway's are`);
    const zone = values.zone ?? "fr-par-1";
    if (!(instanceZones as readonly string[]).includes(zone)) {
      throw new Error(`--zone: '${zone}' is not one of ${instanceZones.join(", ")}`);
    }
    const pn = values["private-network"];
    if (pn !== undefined && !UUID.test(pn)) throw new Error(`--private-network: '${pn}' is not a UUID`);
    const instances = wholeFlag("instances", values.instances, 0, 10_000);
    const baremetal = wholeFlag("baremetal", values.baremetal, 0, 10_000);
    if (baremetal > 0 && !(baremetalZones as readonly string[]).includes(zone)) {
      throw new Error(`--zone: Elastic Metal is not offered in '${zone}'; use one of ${baremetalZones.join(", ")}`);
    }
    const emulator = startScalewayEmulator({ secretKey, port: wholeFlag("port", values.port, 0, 65535) });
    const world = emulator.world;
    for (let i = 1; i <= instances; i++) {
      createInstanceServer(world, { name: `node-${i}`, zone, ...(pn !== undefined && { private_networks: [pn] }) });
    }
    for (let i = 1; i <= baremetal; i++) createBaremetalServer(world, { name: `metal-${i}`, zone });
    return {
      lines: [
        `SCW_API_URL=${emulator.endpoint}`,
        "SCW_ACCESS_KEY=SCWEMULATOR000000000",
        `SCW_SECRET_KEY=${secretKey}`,
        `SCW_DEFAULT_PROJECT_ID=${world.defaultProject.id}`,
        `SCW_DEFAULT_REGION=${regionOf(zone)}`,
        `SCW_DEFAULT_ZONE=${zone}`,
        `# control API: ${emulator.controlUrl} (same X-Auth-Token); stop with Ctrl-C`,
      ],
      stop: () => emulator.stop(),
    };
  },
});
