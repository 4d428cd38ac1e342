import { expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { collectOutput } from "../lib/processes.ts";

const script = join(import.meta.dir, "main.ts");

test("serves the VMs given, writes what a cloud-config names, takes commands, and ends on SIGTERM", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pve-emulator-"));
  const proc = Bun.spawn([process.execPath, script, `--dir=${dir}`, "--vms=cp-1@pve-b"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collectOutput(proc).text;
  try {
    await waitFor(() => output().includes("commands:"), { timeoutMs: 30_000, message: `startup:\n${output()}` });
    expect(output()).toContain("100 cp-1 on pve-b, running");
    const file = async (name: string) => (await readFile(join(dir, name), "utf8")).trim();
    const [url, ca, id, secret] = await Promise.all(
      ["proxmox-url", "proxmox-ca.pem", "proxmox-token-id", "proxmox-token-secret"].map(file),
    );
    const get = (path: string) =>
      fetch(`${url}${path}`, { headers: { authorization: `PVEAPIToken=${id}=${secret}` }, tls: { ca } }).then((r) =>
        r.json(),
      ) as Promise<{ data: { name?: string; node?: string }[] }>;
    expect((await get("/cluster/resources?type=vm")).data.map((vm) => `${vm.name}@${vm.node}`)).toEqual(["cp-1@pve-b"]);

    proc.stdin.write("migrate cp-1 pve-a\n");
    proc.stdin.flush();
    await waitFor(() => output().includes("cp-1 (100) now runs on pve-a"), { timeoutMs: 30_000, message: output() });
    expect((await get("/cluster/resources?type=vm")).data.map((vm) => vm.node)).toEqual(["pve-a"]);

    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});

test("refuses a bad --vms and a missing --dir, naming both", async () => {
  const proc = Bun.spawn([process.execPath, script, "--vms=k8s-1@"], { stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(2);
  expect(stderr).toBe(
    'error: --dir=<folder> is required; --vms: "k8s-1@" is not <vm name>[@<proxmox node>], e.g. k8s-1@pve-a\n',
  );
});
