import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Resources } from "../../../kube/client-types.ts";
import type { Service } from "../../../kube/objects.ts";
import { FakeClock, waitFor } from "../../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../../platform/testing/logger.ts";
import { type Harness, startHarness, TOKEN } from "../../../sandbox/digitalocean/testing.ts";
import { testProviderRuntime } from "../../runtime.ts";
import { createDoClient } from "../api/client.ts";
import { HttpFirewallsApi } from "../api/firewalls.ts";
import { unpaced } from "../testing.ts";
import { FIREWALL_RESYNC_MS, publicAccessFirewall } from "./controller.ts";

let h: Harness;
let term: AbortController;
let done: Promise<void>;
let kube: EmulatorKubeClient;
let clock: FakeClock;
const settings = { name: "k8s-public", tags: ["k8s-worker"], defaultLoadBalancerType: "REGIONAL_NETWORK" as const };

function nodePortService(name: string, nodePort: number): Service {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      type: "NodePort",
      ports: [{ port: 80, targetPort: 80, nodePort, protocol: "TCP" }],
      selector: { app: name },
    },
  };
}

/** The emulator's firewalls, with their inbound node ports, by name. */
function firewalls(): Map<string, { id: string; ports: string[]; tags: string[] }> {
  const out = new Map<string, { id: string; ports: string[]; tags: string[] }>();
  for (const f of h.emulator.world.firewalls.values()) {
    const ports = (f.spec.inbound_rules as { ports: string }[]).map((r) => r.ports).sort();
    out.set(f.spec.name, { id: f.id, ports, tags: f.spec.tags });
  }
  return out;
}

const portsOf = (name: string) => firewalls().get(name)?.ports.join(",");

beforeEach(async () => {
  h = startHarness();
  kube = new EmulatorKubeClient();
  clock = new FakeClock();
  term = new AbortController();
  await kube.create(Resources.services, nodePortService("web", 30080), { namespace: "default" });
  const client = createDoClient({
    token: TOKEN,
    url: h.emulator.endpoint,
    rateLimit: unpaced,
    retry: { maxRetries: 0 },
  });
  const controller = publicAccessFirewall({
    api: new HttpFirewallsApi(client),
    settings,
    now: clock.now,
    sleep: clock.sleep,
  });
  const { logger } = captureLogger();
  done = controller.run(testProviderRuntime(kube, term.signal, logger));
});

afterEach(async () => {
  term.abort();
  await done;
  await h.stop();
});

describe("the public-access firewall controller", () => {
  test("creates the firewall with the Services' node ports and the tags", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080", { message: "the firewall with 30080" });
    expect(firewalls().get("k8s-public")?.tags).toEqual(["k8s-worker"]);
    expect(h.emulator.calls.count("POST /v2/firewalls")).toBe(1);
  });

  test("follows Services as they come and go, without a call when nothing changes", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080");
    await kube.create(Resources.services, nodePortService("api", 30443), { namespace: "default" });
    await waitFor(() => portsOf("k8s-public") === "30080,30443", { message: "30443 added" });
    await kube.delete(Resources.services, "web", { namespace: "default" });
    await waitFor(() => portsOf("k8s-public") === "30443", { message: "30080 removed" });
    const writes = h.emulator.calls.count("PUT /v2/firewalls/:id");
    await kube.patch(
      Resources.services,
      "api",
      "merge",
      { metadata: { labels: { x: "y" } } },
      {
        namespace: "default",
      },
    );
    await waitFor(() => kube.requests.filter((r) => r.method === "patch").length === 1);
    await clock.advance(1000);
    expect(h.emulator.calls.count("PUT /v2/firewalls/:id")).toBe(writes);
    expect(h.emulator.world.firewalls.size).toBe(1);
  });

  test("puts back a rule removed by hand at the next resync, and touches no other firewall", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080");
    await h.call("POST", "/firewalls", {
      name: "someone-else",
      inbound_rules: [{ protocol: "tcp", ports: "22", sources: { addresses: ["0.0.0.0/0"] } }],
    });
    const ours = firewalls().get("k8s-public")?.id ?? "";
    const fw = h.emulator.world.firewalls.get(ours);
    if (fw) fw.spec = { ...fw.spec, inbound_rules: [] };
    await clock.advance(FIREWALL_RESYNC_MS);
    await waitFor(() => portsOf("k8s-public") === "30080", { message: "the rule put back" });
    expect(firewalls().get("someone-else")?.ports).toEqual(["22"]);
  });

  test("creates the firewall again when it was deleted by hand", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080");
    const id = firewalls().get("k8s-public")?.id ?? "";
    expect((await h.call("DELETE", `/firewalls/${id}`)).status).toBe(204);
    await clock.advance(FIREWALL_RESYNC_MS);
    await waitFor(() => portsOf("k8s-public") === "30080", { message: "the firewall made again" });
    expect(firewalls().get("k8s-public")?.id).not.toBe(id);
  });

  test("retries a failed update after 1 s, then 2 s, and gets there", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080");
    h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: [{ method: "PUT", pathPrefix: "/firewalls", id: "server_error", count: 2 }],
    });
    const left = () => h.emulator.faults.get().failNext[0]?.count ?? 0;
    await kube.create(Resources.services, nodePortService("api", 30443), { namespace: "default" });
    await waitFor(() => left() === 1, { message: "the first attempt failed" });
    // The retry's sleep starts a moment after the failed answer; advancing before it would not wake it.
    await waitFor(() => clock.nextAt() === clock.now() + 1000, { message: "the 1 s retry waits" });
    await clock.advance(999);
    expect(left()).toBe(1);
    await clock.advance(1);
    await waitFor(() => left() === 0, { message: "the second attempt failed" });
    await waitFor(() => clock.nextAt() === clock.now() + 2000, { message: "the 2 s retry waits" });
    await clock.advance(2000);
    await waitFor(() => portsOf("k8s-public") === "30080,30443", { message: "the third attempt" });
  });

  test("adopts an existing firewall of its name instead of making a second one", async () => {
    await waitFor(() => portsOf("k8s-public") === "30080");
    term.abort();
    await done;
    term = new AbortController();
    const client = createDoClient({
      token: TOKEN,
      url: h.emulator.endpoint,
      rateLimit: unpaced,
      retry: { maxRetries: 0 },
    });
    const again = publicAccessFirewall({
      api: new HttpFirewallsApi(client),
      settings,
      now: clock.now,
      sleep: clock.sleep,
    });
    await kube.create(Resources.services, nodePortService("api", 30443), { namespace: "default" });
    done = again.run(testProviderRuntime(kube, term.signal, captureLogger().logger));
    await waitFor(() => portsOf("k8s-public") === "30080,30443", { message: "the firewall updated in place" });
    expect(h.emulator.world.firewalls.size).toBe(1);
  });
});
