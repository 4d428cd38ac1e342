/**
 * What the standalone Proxmox VE emulator (main.ts) is told: its `--vms` list, and the lines typed into it while it
 * runs (`migrate k8s-1 pve-b`, `down`, …). Parsing is pure; `runCommand` changes the emulator and says what it did.
 */
import type { ProxmoxEmulator } from "../../sandbox/proxmox/server.ts";

export interface VMSpec {
  readonly name: string;
  readonly node: string;
}

/** `k8s-1@pve-a,k8s-2@pve-b` (a VM without `@node` runs on `pve-a`); the problem as text when it is not that. */
export function parseVMs(text: string): VMSpec[] | string {
  const specs: VMSpec[] = [];
  for (const item of text.split(",").map((s) => s.trim())) {
    const m = /^([a-z0-9]([a-z0-9.-]*[a-z0-9])?)(@([a-z0-9][a-z0-9-]*))?$/.exec(item);
    if (!m) return `--vms: "${item}" is not <vm name>[@<proxmox node>], e.g. k8s-1@pve-a`;
    if (specs.some((s) => s.name === m[1])) return `--vms: "${m[1]}" is given twice`;
    specs.push({ name: m[1]!, node: m[4] ?? "pve-a" });
  }
  return specs;
}

export const commandHelp = [
  "migrate <vm> <proxmox node>   live-migrate a VM",
  "stop <vm> | start <vm>        power a VM off or on",
  "delete <vm>                   destroy a VM",
  "down | up                     the whole cluster stops or starts answering",
  "list                          the VMs",
  "help                          this list",
];

/** Applies one typed line; the answer to print (an error text starts with "error:"). */
export async function runCommand(emulator: ProxmoxEmulator, line: string): Promise<string> {
  const [verb, vmName, node, ...rest] = line.trim().split(/\s+/);
  const { state } = emulator;
  const vm = state.listVMs().find((v) => v.name === vmName);
  const needs = (n: number) =>
    line.trim().split(/\s+/).length !== n ? `error: ${verb} takes ${n - 1} argument(s)` : "";
  const noVM = `error: no VM named "${vmName}"; there are ${state
    .listVMs()
    .map((v) => v.name)
    .join(", ")}`;
  switch (verb) {
    case undefined:
    case "":
      return "";
    case "help":
      return commandHelp.join("\n");
    case "list":
      return state
        .listVMs()
        .map((v) => `${v.vmid} ${v.name} on ${v.node}, ${v.status}`)
        .join("\n");
    case "down":
    case "up":
      if (needs(1)) return needs(1);
      await emulator.setDown(verb === "down");
      return verb === "down" ? "the cluster refuses connections" : "the cluster answers again";
    case "migrate":
      if (needs(3) || rest.length > 0) return needs(3);
      if (!vm) return noVM;
      if (state.nodeStatus(node!) === undefined)
        return `error: no Proxmox node "${node}"; there are ${state.nodes.join(", ")}`;
      state.migrateVM(vm.vmid, node!);
      return `${vm.name} (${vm.vmid}) now runs on ${node}`;
    case "stop":
    case "start":
    case "delete":
      if (needs(2)) return needs(2);
      if (!vm) return noVM;
      if (verb === "delete") state.deleteVM(vm.vmid);
      else state.updateVM(vm.vmid, { status: verb === "stop" ? "stopped" : "running" });
      return `${vm.name} (${vm.vmid}) ${verb === "delete" ? "deleted" : verb === "stop" ? "stopped" : "running"}`;
    default:
      return `error: unknown command "${verb}"; known:\n  ${commandHelp.join("\n  ")}`;
  }
}
