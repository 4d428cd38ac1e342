/**
 * Run the Hetzner Cloud API emulator on its own (docs/emulators.md):
 *
 *   npx bun sandbox/hcloud/main.ts [--port 0] [--token <token>] [--servers 3] [--action-duration-ms 1000]
 *                                  [--rate-limit 3600] [--legacy-datacenter]
 *
 * It prints `HCLOUD_ENDPOINT=…` and `HCLOUD_TOKEN=…` and serves until SIGINT or SIGTERM. `--servers N` creates a
 * network `k8s` (10.0.0.0/16, subnet 10.0.1.0/24 in eu-central) and N running servers `node-1…` attached to it.
 */
import { randomBytes } from "node:crypto";
import { runEmulatorMain, wholeFlag } from "../kit/main.ts";
import { startHcloudEmulator } from "./server.ts";
import { createNetwork } from "./state/networks.ts";
import { createServer } from "./state/servers.ts";

const USAGE = `usage: npx bun sandbox/hcloud/main.ts [--port 0] [--token <token>] [--servers 3] [--action-duration-ms 1000]
       [--rate-limit 3600] [--legacy-datacenter]
The Hetzner Cloud API emulator on 127.0.0.1 (docs/emulators.md): it prints HCLOUD_ENDPOINT and HCLOUD_TOKEN and
serves until SIGINT or SIGTERM; --servers N adds network k8s and N running servers node-1… attached to it.`;

runEmulatorMain({
  name: "hcloud emulator",
  usage: USAGE,
  options: {
    port: { type: "string" },
    token: { type: "string" },
    servers: { type: "string" },
    "action-duration-ms": { type: "string" },
    "rate-limit": { type: "string" },
    "legacy-datacenter": { type: "boolean" },
  },
  start(values) {
    const token = values.token ?? randomBytes(24).toString("hex");
    if (token.trim() === "") throw new Error("--token: must not be blank");
    const limit = wholeFlag("rate-limit", values["rate-limit"], 3600, 1_000_000);
    if (limit === 0) throw new Error("--rate-limit: must be at least 1");
    const servers = wholeFlag("servers", values.servers, 0, 10_000);
    const emulator = startHcloudEmulator({
      token,
      port: wholeFlag("port", values.port, 0, 65535),
      actionDurationMs: wholeFlag("action-duration-ms", values["action-duration-ms"], 1000, 3_600_000),
      legacyDatacenter: values["legacy-datacenter"] ?? false,
      rateLimit: { limit, perHour: limit },
    });
    if (servers > 0) {
      const world = emulator.world;
      const network = createNetwork(world, {
        name: "k8s",
        ip_range: "10.0.0.0/16",
        subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.1.0/24" }],
      });
      for (let i = 1; i <= servers; i++) {
        createServer(world, { name: `node-${i}`, server_type: "cx22", image: "ubuntu-24.04", networks: [network.id] });
      }
    }
    return {
      lines: [
        `HCLOUD_ENDPOINT=${emulator.endpoint}`,
        `HCLOUD_TOKEN=${token}`,
        `# control API: ${emulator.controlUrl} (same token); stop with Ctrl-C`,
      ],
      stop: () => emulator.stop(),
    };
  },
});
