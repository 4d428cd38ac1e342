/**
 * The shipped metal declaration against the conformance suite, built from a cloud-config as the registry builds it. Its "cloud" is the inventory plus the Kubernetes API:
 *
 * - A machine is an entry in the watched inventory ConfigMap of an in-memory Kubernetes API (`EmulatorKubeClient`),
 *   so every arrange step goes through the same watch a running manager uses; `createMachine` resolves once the
 *   provider's inventory shows the change. Each machine gets a TCP listener on 127.0.0.1 as its shutdown-probe
 *   target: stopping a machine closes the listener (the probe is refused), deleting it removes its entry.
 * - The configuration is the strict one, `requireInventoryEntry` and `deleteNodesMissingFromInventory` both on:
 *   only then does a machine missing from the inventory mean "not found" as the contract has it. With the defaults a
 *   node without an entry is initialised from what it reports and never reported missing, on purpose (bare-metal
 *   nodes are not deleted because nobody described them; see docs/providers/metal.md); instances.test.ts covers that, and
 *   against the "deleted" and "never created" checks it would fail by design.
 * - Load balancers are allocations recorded on Services. The service controller only hands the provider Services
 *   from its informer, so they exist in the API; `inCluster` below stores each Service the suite passes before the
 *   call, as the cluster would hold it. `listLoadBalancers` lists the Services that carry an allocation record.
 */
import { createServer, type Server } from "node:net";
import { Resources } from "../../kube/client-types.ts";
import type { ConfigMap, Service } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { defaultLoadBalancerName, type LoadBalancer } from "../cloud.ts";
import { runConformance } from "../conformance/suite.ts";
import type { ArrangedMachine } from "../conformance/types.ts";
import { testProviderRuntime } from "../runtime.ts";
import { readRecord } from "./annotations.ts";
import { metal } from "./provider.ts";

const inventoryRef = { namespace: "kube-system", name: "metal-inventory" };

const cloudConfig = `
inventory:
  configMap: { namespace: ${inventoryRef.namespace}, name: ${inventoryRef.name} }
  requireInventoryEntry: true
  deleteNodesMissingFromInventory: true
shutdownProbe: { port: 22, timeoutMs: 2000 }
loadBalancer:
  global: { addresses: [192.0.2.0/24, "2001:db8::/120"] }
`;

interface MetalMachine extends ArrangedMachine {
  readonly listener: Server;
}

const listen = () =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });

const close = (server: Server) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

const portOf = (server: Server) => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the listener has no TCP port");
  return address.port;
};

/** The Services the suite passes are stored before each call (when not stored yet), as the informer saw them. */
function inCluster(lb: LoadBalancer, client: EmulatorKubeClient): LoadBalancer {
  const store = (svc: Service) => {
    const { name = "", namespace = "default" } = svc.metadata ?? {};
    if (!client.peek(Resources.services, name, namespace)) client.seed(Resources.services, structuredClone(svc));
  };
  return {
    getLoadBalancerName: (ctx, cluster, svc) => lb.getLoadBalancerName(ctx, cluster, svc),
    async getLoadBalancer(ctx, cluster, svc) {
      store(svc);
      return lb.getLoadBalancer(ctx, cluster, svc);
    },
    async ensureLoadBalancer(ctx, cluster, svc, nodes) {
      store(svc);
      return lb.ensureLoadBalancer(ctx, cluster, svc, nodes);
    },
    async updateLoadBalancer(ctx, cluster, svc, nodes) {
      store(svc);
      return lb.updateLoadBalancer(ctx, cluster, svc, nodes);
    },
    async ensureLoadBalancerDeleted(ctx, cluster, svc) {
      store(svc);
      return lb.ensureLoadBalancerDeleted(ctx, cluster, svc);
    },
  };
}

const hostsSkip =
  "metal load balancers have no backend hosts: an announcer (kube-vip, a BGP speaker) follows the Service, so the " +
  "provider records an address and updateLoadBalancer has nothing to change; one allocation per Service is checked " +
  "by load-balancers.test.ts and test/metal.e2e.test.ts";

await runConformance<MetalMachine>({
  name: "metal",
  async setup() {
    const client = new EmulatorKubeClient();
    client.seed(Resources.configMaps, { metadata: { ...inventoryRef }, data: {} } satisfies ConfigMap);
    const provider = await metal.build({ config: cloudConfig, configSource: "conformance", env: {} });
    const term = new AbortController();
    await provider.initialize(testProviderRuntime(client, term.signal, captureLogger().logger));
    const listeners = new Set<Server>();
    let n = 0;

    /** Applies a merge patch to the inventory ConfigMap and waits until the provider's watch has applied it. */
    async function editInventory(data: Record<string, string | null>, applied: () => boolean, what: string) {
      await client.patch(Resources.configMaps, inventoryRef.name, "merge", { data }, inventoryRef);
      await waitFor(applied, { message: `the provider's inventory to show ${what}` });
    }
    const has = (name: string) => provider.inventory.machines().some((m) => m.name === name);

    return {
      provider: { ...provider, loadBalancer: inCluster(provider.loadBalancer!, client) },
      arrange: {
        async createMachine({ name }) {
          const listener = await listen();
          listeners.add(listener);
          const internalIP = `10.0.${Math.floor(++n / 250)}.${(n % 250) + 1}`;
          const entry = {
            providerID: `metal://rack-${name}`,
            addresses: { InternalIP: internalIP, Hostname: name },
            zone: "rack-1",
            region: "lab",
            instanceType: "r640",
            probe: { host: "127.0.0.1", port: portOf(listener) },
          };
          await editInventory({ [name]: JSON.stringify(entry) }, () => has(name), `machine ${name}`);
          return {
            nodeName: name,
            providerID: entry.providerID,
            addresses: [{ type: "InternalIP", address: internalIP }],
            listener,
          };
        },
        async stopMachine(machine) {
          await close(machine.listener);
        },
        async deleteMachine(machine) {
          await close(machine.listener);
          await editInventory({ [machine.nodeName]: null }, () => !has(machine.nodeName), `${machine.nodeName} gone`);
        },
        async listLoadBalancers() {
          const services = (await client.list<Service>(Resources.services)).items;
          return services
            .filter((svc) => readRecord(svc) !== undefined)
            .map((svc) => ({
              name: defaultLoadBalancerName(svc),
              hosts: [],
              ports: (svc.spec?.ports ?? []).map((p) => p.port),
            }));
        },
      },
      async teardown() {
        term.abort();
        await Promise.all([...listeners].map(close));
      },
    };
  },
  skip: {
    "loadBalancer/ensure-creates-one": hostsSkip,
    "loadBalancer/update-hosts": hostsSkip,
  },
});
