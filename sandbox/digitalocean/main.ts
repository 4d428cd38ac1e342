/**
 * Run the DigitalOcean API emulator on its own (docs/emulators.md):
 *
 *   npx bun sandbox/digitalocean/main.ts [--port 0] [--token <token>] [--droplets 3] [--region nyc3]
 *                                        [--lb-active-delay-ms 5000] [--rate-limit 5000]
 *
 * It prints `DIGITALOCEAN_API_URL=…` and `DIGITALOCEAN_ACCESS_TOKEN=…` and serves until SIGINT or SIGTERM.
 * `--droplets N` creates N active Droplets `node-1…` in the region, tagged `k8s`; the metadata service's
 * `/metadata/v1/region` answers the region too.
 */
import { randomBytes } from "node:crypto";
import { runEmulatorMain, wholeFlag } from "../kit/main.ts";
import { startDoEmulator } from "./server.ts";
import { createDroplet } from "./state/droplets.ts";

const USAGE = `usage: npx bun sandbox/digitalocean/main.ts [--port 0] [--token <token>] [--droplets 3] [--region nyc3]
       [--lb-active-delay-ms 5000] [--rate-limit 5000]
The DigitalOcean API emulator on 127.0.0.1 (docs/emulators.md): it prints DIGITALOCEAN_API_URL and
DIGITALOCEAN_ACCESS_TOKEN and serves until SIGINT or SIGTERM; --droplets N adds active Droplets node-1… in the
region, tagged k8s, and /metadata/v1/region answers the region.`;

runEmulatorMain({
  name: "digitalocean emulator",
  usage: USAGE,
  options: {
    port: { type: "string" },
    token: { type: "string" },
    droplets: { type: "string" },
    region: { type: "string" },
    "lb-active-delay-ms": { type: "string" },
    "rate-limit": { type: "string" },
  },
  start(values) {
    const token = values.token ?? randomBytes(32).toString("hex");
    if (token.trim() === "") throw new Error("--token: must not be blank");
    const limit = wholeFlag("rate-limit", values["rate-limit"], 5000, 1_000_000);
    if (limit === 0) throw new Error("--rate-limit: must be at least 1");
    const droplets = wholeFlag("droplets", values.droplets, 0, 10_000);
    const region = values.region ?? "nyc3";
    const emulator = startDoEmulator({
      token,
      port: wholeFlag("port", values.port, 0, 65535),
      lbActiveDelayMs: wholeFlag("lb-active-delay-ms", values["lb-active-delay-ms"], 5000, 3_600_000),
      rateLimit: { limit, perHour: limit },
      metadataRegion: region,
    });
    for (let i = 1; i <= droplets; i++) {
      createDroplet(emulator.world, { name: `node-${i}`, region, tags: ["k8s"] });
    }
    return {
      lines: [
        `DIGITALOCEAN_API_URL=${emulator.endpoint}`,
        `DIGITALOCEAN_ACCESS_TOKEN=${token}`,
        `# control API: ${emulator.controlUrl} (same token); stop with Ctrl-C`,
      ],
      stop: () => emulator.stop(),
    };
  },
});
