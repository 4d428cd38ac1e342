import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ProxmoxEmulator, startProxmoxEmulator } from "../../sandbox/proxmox/server.ts";
import { ProxmoxState } from "../../sandbox/proxmox/state.ts";
import { parseVMs, runCommand } from "./commands.ts";

describe("parseVMs", () => {
  test.each([
    [
      "k8s-1@pve-a,k8s-2@pve-b",
      [
        { name: "k8s-1", node: "pve-a" },
        { name: "k8s-2", node: "pve-b" },
      ],
    ],
    ["cp-1", [{ name: "cp-1", node: "pve-a" }]],
    [
      "k8s-1, k8s-2@pve-c",
      [
        { name: "k8s-1", node: "pve-a" },
        { name: "k8s-2", node: "pve-c" },
      ],
    ],
    ["k8s-1@", '--vms: "k8s-1@" is not <vm name>[@<proxmox node>], e.g. k8s-1@pve-a'],
    ["K8S", '--vms: "K8S" is not <vm name>[@<proxmox node>], e.g. k8s-1@pve-a'],
    ["", '--vms: "" is not <vm name>[@<proxmox node>], e.g. k8s-1@pve-a'],
    ["a,a@pve-b", '--vms: "a" is given twice'],
  ])("%p", (text, want) => {
    expect(parseVMs(text)).toEqual(want);
  });
});

describe("runCommand", () => {
  let emulator: ProxmoxEmulator;
  const vm = (name: string) => emulator.state.listVMs().find((v) => v.name === name);
  const version = () =>
    fetch(`${emulator.url}/version`, { tls: { ca: emulator.ca } }).then(
      (r) => r.status,
      () => "refused",
    );

  beforeAll(async () => {
    const state = new ProxmoxState(["pve-a", "pve-b"]);
    state.addVM({ name: "k8s-1", node: "pve-a" });
    state.addVM({ name: "k8s-2", node: "pve-b" });
    emulator = await startProxmoxEmulator({ tokens: [{ id: "u@pve!t", secret: "s" }], state });
  });
  afterAll(() => emulator.stop());

  test("migrate moves the VM to the Proxmox node named", async () => {
    expect(await runCommand(emulator, "migrate k8s-1 pve-b")).toBe("k8s-1 (100) now runs on pve-b");
    expect(vm("k8s-1")?.node).toBe("pve-b");
  });

  test("stop, start and delete change the VM's state", async () => {
    expect(await runCommand(emulator, "stop k8s-2")).toBe("k8s-2 (101) stopped");
    expect(vm("k8s-2")?.status).toBe("stopped");
    expect(await runCommand(emulator, " start  k8s-2 ")).toBe("k8s-2 (101) running");
    expect(vm("k8s-2")?.status).toBe("running");
    expect(await runCommand(emulator, "list")).toBe("100 k8s-1 on pve-b, running\n101 k8s-2 on pve-b, running");
    expect(await runCommand(emulator, "delete k8s-2")).toBe("k8s-2 (101) deleted");
    expect(vm("k8s-2")).toBeUndefined();
  });

  test("down refuses connections until up", async () => {
    expect(await runCommand(emulator, "down")).toBe("the cluster refuses connections");
    expect(await version()).toBe("refused");
    expect(await runCommand(emulator, "up")).toBe("the cluster answers again");
    expect(await version()).toBe(401);
  });

  test.each([
    ["", ""],
    ["migrate k8s-9 pve-a", 'error: no VM named "k8s-9"; there are k8s-1'],
    ["migrate k8s-1 pve-z", 'error: no Proxmox node "pve-z"; there are pve-a, pve-b'],
    ["migrate k8s-1", "error: migrate takes 2 argument(s)"],
    ["stop", "error: stop takes 1 argument(s)"],
    ["down now", "error: down takes 0 argument(s)"],
  ])("%p is refused, saying why, and changes nothing", async (line, answer) => {
    const before = JSON.stringify(emulator.state.listVMs());
    expect(await runCommand(emulator, line)).toBe(answer);
    expect(JSON.stringify(emulator.state.listVMs())).toBe(before);
  });

  test("an unknown command lists the known ones", async () => {
    const answer = await runCommand(emulator, "reboot k8s-1");
    expect(answer).toStartWith('error: unknown command "reboot"; known:\n  migrate <vm> <proxmox node>');
    expect(answer).toContain("down | up");
  });
});
