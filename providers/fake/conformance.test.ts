/**
 * The fake provider against the conformance suite. The fake answers from global fields (one "exists", one
 * "shutdown", one address list), so arranging a machine programs those fields; checks that need two machines
 * with different answers at once cannot pass and are declared skipped, with the reason.
 */
import type { NodeAddress } from "../../kube/objects.ts";
import { defaultLoadBalancerName } from "../cloud.ts";
import { runConformance } from "../conformance/suite.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { fake } from "./index.ts";

const globalAnswers = "the fake answers existence and power state from one global field, not per machine";

await runConformance({
  name: fake.name,
  maxLoadBalancerNameLength: 32,
  async setup() {
    // The registered fake (InstancesV2 on), programmed for the suite.
    const cloud = await fake.build({ config: undefined, configSource: undefined, env: {} });
    cloud.enableBulk = true;
    cloud.rateLimit = { qps: 10, burst: 20 };
    cloud.externalIP = "192.0.2.10";
    // The fake's own getLoadBalancer answers from the global `exists` field; read the balancers it keeps instead.
    cloud.override("getLoadBalancer", async (_ctx, _cluster, service) =>
      cloud.balancers.has(defaultLoadBalancerName(service)) ? { ingress: [{ ip: cloud.externalIP }] } : undefined,
    );
    let n = 0;
    return {
      provider: cloud,
      arrange: {
        createMachine({ name }) {
          const providerID = `fake://${name}`;
          const addresses: NodeAddress[] = [{ type: "InternalIP", address: `10.0.0.${++n}` }];
          Object.assign(cloud, {
            existsByProviderID: true,
            nodeShutdown: false,
            metadataErr: undefined,
            addresses,
            zone: { failureDomain: "zone-a", region: "region-1" },
          });
          cloud.providerID[name] = providerID;
          cloud.extID[name] = name;
          cloud.instanceTypes[name] = "fake-small";
          cloud.instanceTypes[providerID] = "fake-small";
          delete cloud.extIDErr[name];
          return { nodeName: name, providerID };
        },
        stopMachine() {
          cloud.nodeShutdown = true;
        },
        deleteMachine({ nodeName }) {
          cloud.existsByProviderID = false;
          cloud.metadataErr = new InstanceNotFoundError(nodeName);
          cloud.extIDErr[nodeName] = new InstanceNotFoundError(nodeName);
        },
        listLoadBalancers: () =>
          [...cloud.balancers.values()].map((b) => ({
            name: b.name,
            hosts: b.hosts,
            ports: b.ports.map((p) => p.port),
          })),
      },
    };
  },
  skip: {
    "instancesV2/unknown-name": `${globalAnswers}: while one machine runs, every name exists`,
    "instancesV2.bulk/consistent": `${globalAnswers}, and its bulk lookup throws the global metadata error once any machine is deleted`,
    "instances/unknown-name":
      "the fake's instanceID answers an empty ID, not InstanceNotFoundError, for names it was not given",
    "loadBalancer/update-hosts":
      "the fake records updateLoadBalancer calls (updateCalls) but does not change its balancers",
  },
});
