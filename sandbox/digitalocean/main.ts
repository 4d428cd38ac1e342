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
import { parseArgs } from "node:util";
import { startDoEmulator } from "./server.ts";
import { createDroplet } from "./state/droplets.ts";

function whole(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max)
    throw new Error(`--${flag}: '${text}' is not a whole number up to ${max}`);
  return Number(text);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      token: { type: "string" },
      droplets: { type: "string" },
      region: { type: "string" },
      "lb-active-delay-ms": { type: "string" },
      "rate-limit": { type: "string" },
    },
    strict: true,
  });
  const token = values.token ?? randomBytes(32).toString("hex");
  if (token.trim() === "") throw new Error("--token: must not be blank");
  const limit = whole("rate-limit", values["rate-limit"], 5000, 1_000_000);
  if (limit === 0) throw new Error("--rate-limit: must be at least 1");
  const emulator = startDoEmulator({
    token,
    port: whole("port", values.port, 0, 65535),
    lbActiveDelayMs: whole("lb-active-delay-ms", values["lb-active-delay-ms"], 5000, 3_600_000),
    rateLimit: { limit, perHour: limit },
    metadataRegion: values.region ?? "nyc3",
  });
  const droplets = whole("droplets", values.droplets, 0, 10_000);
  for (let i = 1; i <= droplets; i++) {
    createDroplet(emulator.world, { name: `node-${i}`, region: values.region ?? "nyc3", tags: ["k8s"] });
  }
  console.log(`DIGITALOCEAN_API_URL=${emulator.endpoint}`);
  console.log(`DIGITALOCEAN_ACCESS_TOKEN=${token}`);
  console.log(`# control API: ${emulator.controlUrl} (same token); stop with Ctrl-C`);
  const stop = () => void emulator.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

try {
  main();
} catch (err) {
  console.error(`digitalocean emulator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(2);
}
