/**
 * Test support: the shipped declaration built over a Scaleway emulator on a stepping clock, unpaced. Nothing in
 * production imports this file.
 */
import { ACCESS_KEY, type Harness, SECRET_KEY, startHarness } from "../../sandbox/scaleway/testing.ts";
import { scaleway } from "./provider.ts";
import { parseProviderID } from "./provider-id.ts";

export const unpaced = { qps: 0, burst: 1 };

export function scwEnv(h: Harness, env: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    SCW_ACCESS_KEY: ACCESS_KEY,
    SCW_SECRET_KEY: SECRET_KEY,
    SCW_DEFAULT_REGION: "fr-par",
    SCW_API_URL: h.emulator.endpoint,
    DISABLE_TAGS_SYNC: "true",
    ...env,
  };
}

export async function scwProvider(h: Harness, env: Readonly<Record<string, string>> = {}) {
  return scaleway.build(
    { env: scwEnv(h, env), config: undefined, configSource: undefined },
    { now: h.clock.now, sleep: h.clock.sleep, random: () => 0.5, retry: { maxRetries: 0 }, pace: unpaced },
  );
}

/**
 * One conformance target over a fresh emulator, whose machines are servers of `product` in `zone`: made, stopped
 * and deleted in the emulator, found by the provider as scw CCM's provider IDs name them.
 */
export async function conformanceTarget(product: "instance" | "baremetal", zone: string) {
  const h = startHarness();
  const provider = await scwProvider(h);
  const world = h.emulator.world;
  /** A machine's public IPv4, which its Node reports as ExternalIP and load balancers target: its Node's name. */
  const hostByIP = new Map<string, string>();
  return {
    provider,
    arrange: {
      createMachine({ name }: { name: string }) {
        const made =
          product === "instance"
            ? (() => {
                const s = h.instance({ name, zone });
                return { id: s.id, ip: s.publicIps.find((ip) => ip.family === "inet")?.address };
              })()
            : (() => {
                const s = h.baremetal({ name, zone });
                return { id: s.id, ip: s.ips.find((ip) => ip.version === "IPv4")?.address };
              })();
        if (made.ip) hostByIP.set(made.ip, name);
        return {
          nodeName: name,
          providerID: `scaleway://${product}/${zone}/${made.id}`,
          ...(made.ip ? { addresses: [{ type: "ExternalIP", address: made.ip }] } : {}),
        };
      },
      stopMachine({ providerID }: { providerID: string }) {
        const id = parseProviderID(providerID).id;
        const instance = world.instances.get(id);
        if (instance) instance.state = "stopped";
        const metal = world.baremetal.get(id);
        if (metal) metal.status = "stopped";
      },
      async deleteMachine({ providerID }: { providerID: string }) {
        await h.call("DELETE", `/_emulator/${product}/servers/${parseProviderID(providerID).id}`);
      },
      listLoadBalancers: () =>
        [...world.lb.lbs.values()].map((lb) => {
          const backends = [...world.lb.backends.values()].filter((b) => b.lbId === lb.id);
          const frontends = [...world.lb.frontends.values()].filter((f) => f.lbId === lb.id);
          const hosts = new Set(backends.flatMap((b) => b.pool.map((ip) => hostByIP.get(ip) ?? ip)));
          return { name: lb.name, hosts: [...hosts], ports: frontends.map((f) => f.inboundPort) };
        }),
    },
    teardown: () => h.stop(),
  };
}
