/**
 * `npx bun scripts/proxmox-emulator/main.ts --dir=<folder> [--vms=k8s-1@pve-a,k8s-2@pve-b] [--errors=reason-only]
 * [--unauthorized-delay-ms=3000]`: one emulated Proxmox VE cluster (sandbox/proxmox/) on 127.0.0.1 for trying the
 * proxmox provider by hand, as docs/providers/proxmox.md does; `--errors=reason-only` answers errors as Proxmox VE
 * releases before January 2025 do (the reason phrase alone says why), and `--unauthorized-delay-ms` delays a 401
 * as Proxmox VE does. It writes what a cloud-config names into `<folder>`: `proxmox-url`, `proxmox-ca.pem`, `proxmox-token-id`
 * and `proxmox-token-secret` (a fresh secret each run), then takes commands on its standard input (`help`) until
 * SIGINT or SIGTERM.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseScriptArgs } from "../../platform/script-args.ts";
import { startProxmoxEmulator } from "../../sandbox/proxmox/server.ts";
import { ProxmoxState } from "../../sandbox/proxmox/state.ts";
import { commandHelp, parseVMs, runCommand } from "./commands.ts";

const TOKEN_ID = "kubernetes@pve!ccm";
const USAGE = `usage: npx bun scripts/proxmox-emulator/main.ts --dir=<folder> [--vms=k8s-1@pve-a,k8s-2@pve-b]
       [--errors=message|reason-only] [--unauthorized-delay-ms=0]
One emulated Proxmox VE cluster on 127.0.0.1; it writes proxmox-url, proxmox-ca.pem, proxmox-token-id and
proxmox-token-secret into <folder>, then takes commands on its standard input (help) until SIGINT or SIGTERM.`;

async function main(argv: string[]): Promise<number> {
  const parsed = parseScriptArgs("proxmox emulator", USAGE, argv, {
    dir: { type: "string" },
    vms: { type: "string", default: "k8s-1@pve-a,k8s-2@pve-b" },
    errors: { type: "string", default: "message" },
    "unauthorized-delay-ms": { type: "string", default: "0" },
  });
  if (!parsed.ok) {
    process.stdout.write(parsed.stdout);
    process.stderr.write(parsed.stderr);
    return parsed.code;
  }
  const { values } = parsed;
  const vms = parseVMs(values.vms);
  const errors = values.errors === "message" || values.errors === "reason-only" ? values.errors : undefined;
  const unauthorizedDelayMs = Number(values["unauthorized-delay-ms"]);
  const problems = [
    ...(values.dir ? [] : ["--dir=<folder> is required"]),
    ...(typeof vms === "string" ? [vms] : []),
    ...(errors ? [] : [`--errors must be message or reason-only, got "${values.errors}"`]),
    ...(Number.isInteger(unauthorizedDelayMs) && unauthorizedDelayMs >= 0
      ? []
      : [
          `--unauthorized-delay-ms must be a whole number of milliseconds, 0 or more, got "${values["unauthorized-delay-ms"]}"`,
        ]),
  ];
  if (problems.length > 0 || typeof vms === "string" || !values.dir) {
    process.stderr.write(`error: ${problems.join("; ")}\n`);
    return 2;
  }
  const dir = resolve(values.dir);
  const state = new ProxmoxState([...new Set(["pve-a", "pve-b", ...vms.map((vm) => vm.node)])]);
  for (const vm of vms) state.addVM(vm);
  const secret = crypto.randomUUID();
  const emulator = await startProxmoxEmulator({
    tokens: [{ id: TOKEN_ID, secret }],
    state,
    ...(errors && { errors }),
    unauthorizedDelayMs,
  });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "proxmox-url"), `${emulator.url}\n`);
  await writeFile(join(dir, "proxmox-ca.pem"), emulator.ca);
  await writeFile(join(dir, "proxmox-token-id"), `${TOKEN_ID}\n`, { mode: 0o600 });
  await writeFile(join(dir, "proxmox-token-secret"), `${secret}\n`, { mode: 0o600 });

  const print = (text: string): void => {
    if (text !== "") process.stdout.write(`${text}\n`);
  };
  print(`Proxmox VE API: ${emulator.url} (Proxmox nodes ${state.nodes.join(", ")})`);
  print(
    `files:          ${["proxmox-url", "proxmox-ca.pem", "proxmox-token-id", "proxmox-token-secret"].map((f) => join(dir, f)).join(" ")}`,
  );
  print(await runCommand(emulator, "list"));
  print(`commands:\n  ${commandHelp.join("\n  ")}`);

  const stopped = new Promise<void>((done) => {
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  // Closed input (run in the background) leaves the emulator serving until a signal.
  const lines = createInterface({ input: process.stdin });
  let queue = Promise.resolve();
  lines.on("line", (line) => {
    queue = queue.then(async () => print(await runCommand(emulator, line)));
  });
  await stopped;
  lines.close();
  process.stdin.destroy();
  await emulator.stop();
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
