/**
 * End to end: the compiled `hcloud-cloud-controller-manager` with `--cloud-provider=composite`, hcloud + metal, started
 * while the Hetzner Cloud API (the emulator) answers 503 to every call. The manager stays up: metal's Nodes are
 * initialised and its load balancers served, hcloud's Nodes are left alone (never deleted, never tainted), `/readyz`
 * names the degraded part; once the API answers again, hcloud initializes and its Nodes are initialised. A token the
 * API refuses (401) or an invalid cloud-config still stops the manager, naming the cause.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { stopManager } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { registerNode, useHcloudE2e } from "./support/hcloud.ts";
import { freePort, poll, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";

setDefaultTimeout(120_000);

const e2e = useHcloudE2e("ccm-composite-degraded-");
let config = "";
let port = 0;
let h2ProviderID = "";

const compositeYaml = (metal = "loadBalancer: { global: { addresses: [192.0.2.0/28] } }") => `providers:
  - name: hcloud
  - name: metal
    config:
      inventory:
        machines:
          - { name: rack-1, providerID: metal://rack-1, addresses: { InternalIP: 10.1.0.1 }, zone: rack-a, region: lab }
      ${metal}
loadBalancer: metal
`;

/** Every call of the Hetzner Cloud API answers 503 `unavailable` until `recover`. */
const outage = () =>
  e2e.world.hcloud.faults.set({
    latencyMs: 0,
    errorRate: 0,
    failNext: [{ pathPrefix: "/", code: "unavailable", count: 1_000_000 }],
    failActions: [],
  });
const recover = () => e2e.world.hcloud.faults.set({ latencyMs: 0, errorRate: 0, failNext: [], failActions: [] });

const env = (extra: Record<string, string> = {}) =>
  e2e.world.env({ HCLOUD_NETWORK_ROUTES_ENABLED: "false", HCLOUD_LOAD_BALANCERS_ENABLED: "false", ...extra });

const command = async (extra: string[] = []) => [
  await executable("hcloud"),
  "--cloud-provider=composite",
  `--cloud-config=${config}`,
  `--kubeconfig=${e2e.kubeconfig}`,
  "--allow-untagged-cloud",
  "--leader-elect=false",
  "--node-monitor-period=1s",
  "--controllers=cloud-node,cloud-node-lifecycle,service",
  ...extra,
];

const readyz = async (): Promise<{ status: number; body: string }> => {
  const answer = await fetch(`https://127.0.0.1:${port}/readyz?verbose`, {
    keepalive: false,
    tls: { rejectUnauthorized: false },
  });
  return { status: answer.status, body: await answer.text() };
};

const node = async (name: string): Promise<Node | undefined> => {
  try {
    return await e2e.client.get<Node>(Resources.nodes, name);
  } catch {
    return undefined;
  }
};
const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await poll(check, { timeoutMs, everyMs: 250, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${e2e.manager?.output().slice(-4000)}`);
  });
}

beforeAll(async () => {
  config = join(dirname(e2e.kubeconfig), "composite.yaml");
  await writeFile(config, compositeYaml(), { mode: 0o600 });
  e2e.world.addServer("h-1");
  const h2 = e2e.world.addServer("h-2");
  h2ProviderID = `hcloud://${h2.id}`;
  // h-1 joins during the outage; h-2 was initialised before it and its kubelet has stopped posting.
  await registerNode(e2e.client, "h-1");
  await e2e.client.create(Resources.nodes, { metadata: { name: "h-2" }, spec: { providerID: h2ProviderID } });
  await setNodeReady(e2e.client, "h-2", "Unknown");
  await registerNode(e2e.client, "rack-1");
  await e2e.client.patch(Resources.nodes, "rack-1", "merge", { spec: { providerID: "metal://rack-1" } });
  outage();
}, 60_000);

afterAll(() => recover());

describe("composite: a part whose cloud is down at start", () => {
  test("starts degraded: metal serves, hcloud's Nodes are kept, /readyz names hcloud", async () => {
    port = freePort();
    e2e.manager = spawnCollecting(await command([`--secure-port=${port}`, "--bind-address=127.0.0.1"]), env());
    await until("rack-1 initialised by metal", async () => {
      if (e2e.manager?.proc.exitCode !== null) throw new Error(`the manager exited ${e2e.manager?.proc.exitCode}`);
      return initialised(await node("rack-1"));
    });
    expect((await node("rack-1"))?.metadata?.labels?.["topology.kubernetes.io/zone"]).toBe("rack-a");

    await e2e.client.create(
      Resources.services,
      {
        metadata: { name: "web", namespace: "default" },
        spec: { type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }] },
      } satisfies Service,
      { namespace: "default" },
    );
    await until("an address from metal's pool", async () => {
      const svc = await e2e.client.get<Service>(Resources.services, "web", { namespace: "default" });
      return /^192\.0\.2\./.test(svc.status?.loadBalancer?.ingress?.[0]?.ip ?? "");
    });

    let ready = await readyz();
    await until("/readyz failing on the hcloud part", async () => {
      ready = await readyz();
      return ready.body.includes("[-]provider-composite-part-hcloud failed");
    });
    expect(ready.status).toBe(500);
    expect(ready.body).toContain("[+]provider-composite-part-metal ok");
    // Liveness is unaffected: a restart would not bring the cloud back.
    const live = await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } });
    expect(live.status).toBe(200);

    // The lifecycle monitor asked about h-2 and kept it; h-1 waits, untouched.
    await until("a CloudProviderUnavailable event on h-2", async () => {
      const events = await e2e.client.list<Event>(Resources.events, {
        namespace: "default",
      });
      return events.items.some((ev) => ev.involvedObject?.name === "h-2" && ev.reason === "CloudProviderUnavailable");
    });
    const h2 = await node("h-2");
    expect(h2?.spec?.taints?.some((t) => t.key === Taints.shutdown)).toBeFalsy();
    expect(initialised(await node("h-1"))).toBe(false);
    expect(e2e.manager?.output()).toContain('provider "hcloud" could not initialize, its cloud is unavailable');
    expect(e2e.manager?.proc.exitCode).toBeNull();

    const doctor = await runExecutable(
      await executable("hcloud"),
      ["doctor", "--cloud-provider=composite", `--cloud-config=${config}`, `--kubeconfig=${e2e.kubeconfig}`],
      { env: env() },
    );
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('FAIL provider "hcloud" (composite part): unreachable (will be retried): ');
    expect(doctor.stdout).toContain("the manager starts without this provider");
    expect(doctor.stdout).toMatch(/(ok {2}|note) provider "metal" \(composite part\)/);
  });

  test("once the API answers again, hcloud initializes and its Nodes are initialised", async () => {
    recover();
    await until("h-1 initialised by hcloud", async () => initialised(await node("h-1")));
    expect((await node("h-1"))?.spec?.providerID).toStartWith("hcloud://");
    await until("/readyz passing", async () => (await readyz()).status === 200);
    expect((await readyz()).body).toContain("[+]provider-composite-part-hcloud ok");
    expect(await node("h-2")).toBeDefined();
    expect(e2e.manager?.output()).not.toContain("Deleting node h-2");
    expect(e2e.manager?.output()).toMatch(/provider "hcloud" initialized after \d+ attempts/);
  });

  test("a token the API refuses still stops the manager, naming hcloud", async () => {
    await stopManager(e2e.manager);
    const run = await runExecutable(
      await executable("hcloud"),
      await command(["--secure-port=0"]).then((c) => c.slice(1)),
      {
        env: env({ HCLOUD_TOKEN: "refused-token-0123456789abcdef0123456789abcdef0123456789abcdef0" }),
      },
    );
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('provider "hcloud" failed to initialize');
    expect(`${run.stdout}${run.stderr}`).toContain("401");
  });

  test("an invalid cloud-config still stops the manager, naming the field", async () => {
    await writeFile(config, compositeYaml("loadBalancer: { global: { addresses: [192.0.2.0/33] } }"), { mode: 0o600 });
    const run = await runExecutable(
      await executable("hcloud"),
      await command(["--secure-port=0"]).then((c) => c.slice(1)),
      {
        env: env(),
      },
    );
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("providers[1].config.loadBalancer.global.addresses[0]");
  });
});
