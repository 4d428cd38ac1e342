/**
 * Run the OpenStack emulator on its own (docs/emulators.md):
 *
 *   npx bun sandbox/openstack/main.ts [--port 0] [--password <password>] [--servers 3] [--region RegionOne]
 *
 * It prints a `cloud.conf` for openstack-cloud-controller-manager that authenticates as its user and takes floating
 * IPs for load balancers from its `public` network, and serves until SIGINT or SIGTERM. `--servers N` creates N
 * ACTIVE servers `node-1…` with a floating IP each.
 */
import { randomBytes } from "node:crypto";
import { runEmulatorMain, wholeFlag } from "../kit/main.ts";
import { startOpenStackEmulator } from "./server.ts";
import { createServer, networkNamed } from "./state.ts";

const USAGE = `usage: npx bun sandbox/openstack/main.ts [--port 0] [--password <password>] [--servers 3] [--region RegionOne]
The OpenStack emulator on 127.0.0.1 (docs/emulators.md): Keystone, Nova, Neutron and Octavia on one port. It prints
a cloud.conf that authenticates as its user and takes floating IPs from its public network, and serves until SIGINT
or SIGTERM; --servers N adds ACTIVE servers node-1… with a floating IP each.`;

runEmulatorMain({
  name: "openstack emulator",
  usage: USAGE,
  options: {
    port: { type: "string" },
    password: { type: "string" },
    servers: { type: "string" },
    region: { type: "string" },
  },
  start(values) {
    const password = values.password ?? randomBytes(16).toString("hex");
    if (password.trim() === "" || password.includes('"')) {
      throw new Error("--password: must not be blank nor hold '\"'");
    }
    const region = values.region ?? "RegionOne";
    if (!/^[A-Za-z0-9_-]+$/.test(region)) throw new Error(`--region: '${region}' is not a region name`);
    const servers = wholeFlag("servers", values.servers, 0, 10_000);
    const emulator = startOpenStackEmulator({
      username: "admin",
      password,
      project: "k8s",
      region,
      port: wholeFlag("port", values.port, 0, 65535),
    });
    for (let i = 1; i <= servers; i++) createServer(emulator.world, { name: `node-${i}`, floatingIP: true });
    return {
      lines: [
        "[Global]",
        `auth-url = ${emulator.authUrl}`,
        "username = admin",
        `password = "${password}"`,
        "user-domain-name = Default",
        "tenant-name = k8s",
        "tenant-domain-id = default",
        `region = ${region}`,
        "",
        "[LoadBalancer]",
        `floating-network-id = ${networkNamed(emulator.world, "public").id}`,
        `# control API: ${emulator.controlUrl} (no token); stop with Ctrl-C`,
      ],
      stop: () => emulator.stop(),
    };
  },
});
