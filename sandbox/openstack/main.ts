/**
 * Run the OpenStack emulator on its own (docs/emulators.md):
 *
 *   npx bun sandbox/openstack/main.ts [--port 0] [--password <password>] [--servers 3] [--region RegionOne]
 *
 * It prints a `cloud.conf` for openstack-cloud-controller-manager that authenticates as its user and takes floating
 * IPs for load balancers from its `public` network, and serves until
 * SIGINT or SIGTERM. `--servers N` creates N ACTIVE servers `node-1…` with a floating IP each.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { startOpenStackEmulator } from "./server.ts";
import { createServer, networkNamed } from "./state.ts";

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
      password: { type: "string" },
      servers: { type: "string" },
      region: { type: "string" },
    },
    strict: true,
  });
  const password = values.password ?? randomBytes(16).toString("hex");
  if (password.trim() === "" || password.includes('"')) throw new Error("--password: must not be blank nor hold '\"'");
  const region = values.region ?? "RegionOne";
  if (!/^[A-Za-z0-9_-]+$/.test(region)) throw new Error(`--region: '${region}' is not a region name`);
  const emulator = startOpenStackEmulator({
    username: "admin",
    password,
    project: "k8s",
    region,
    port: whole("port", values.port, 0, 65535),
  });
  const servers = whole("servers", values.servers, 0, 10_000);
  for (let i = 1; i <= servers; i++) createServer(emulator.world, { name: `node-${i}`, floatingIP: true });
  console.log("[Global]");
  console.log(`auth-url = ${emulator.authUrl}`);
  console.log("username = admin");
  console.log(`password = "${password}"`);
  console.log("user-domain-name = Default");
  console.log("tenant-name = k8s");
  console.log("tenant-domain-id = default");
  console.log(`region = ${region}`);
  console.log("");
  console.log("[LoadBalancer]");
  console.log(`floating-network-id = ${networkNamed(emulator.world, "public").id}`);
  console.log(`# control API: ${emulator.controlUrl} (no token); stop with Ctrl-C`);
  const stop = () => void emulator.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

try {
  main();
} catch (err) {
  console.error(`openstack emulator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(2);
}
