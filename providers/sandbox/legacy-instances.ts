/**
 * The legacy `Instances` and `Zones` for the sandbox cloud, served instead of InstancesV2 when the cloud-config
 * says `instances: legacy`: what a provider written against the older interface gives the framework, so a provider
 * author can watch the framework's legacy path (provider ID built from the instance ID, then addresses, type and
 * zone, each by provider ID with a fallback by name).
 *
 * The older interface has no "cannot tell yet" and no additional labels, so a machine's `metadataPending` and
 * `labels` are not seen here; `providerIDHidden` reads as a cloud without instance IDs (`NotImplementedError`).
 */
import type { NodeAddress } from "../../kube/objects.ts";
import type { CallContext, Instances, Zone, Zones } from "../cloud.ts";
import { InstanceNotFoundError, NotImplementedError, wrapError } from "../errors.ts";
import type { SandboxApi, SandboxMachine } from "./api/client.ts";
import { parseProviderID } from "./provider-id.ts";

export function createLegacyInstances(api: SandboxApi): { instances: Instances; zones: Zones } {
  /** The machine, or a thrown `InstanceNotFoundError`; other failures prefixed by the operation. */
  async function lookUp(
    ctx: CallContext,
    op: string,
    by: { readonly name: string } | { readonly providerID: string },
  ): Promise<SandboxMachine> {
    const what = "name" in by ? `node "${by.name}"` : `provider ID "${by.providerID}"`;
    let machine: SandboxMachine | undefined;
    try {
      if ("name" in by) {
        machine = (await api.listMachines(ctx, { page: 1, perPage: 1, name: by.name })).machines[0];
      } else {
        machine = await api.getMachine(ctx, parseProviderID(by.providerID));
      }
    } catch (err) {
      throw wrapError(`sandbox/instances.${op} ${what}`, err);
    }
    if (!machine) throw new InstanceNotFoundError(what);
    return machine;
  }

  const addressesOf = (m: SandboxMachine): NodeAddress[] =>
    m.addresses.map((a) => ({ type: a.type, address: a.address }));
  const zoneOf = (m: SandboxMachine): Zone => ({ failureDomain: m.zone, region: m.region });

  const instances = {
    async nodeAddresses(ctx, nodeName) {
      return addressesOf(await lookUp(ctx, "nodeAddresses", { name: nodeName }));
    },
    async nodeAddressesByProviderID(ctx, providerID) {
      return addressesOf(await lookUp(ctx, "nodeAddressesByProviderID", { providerID }));
    },
    async instanceID(ctx, nodeName) {
      const machine = await lookUp(ctx, "instanceID", { name: nodeName });
      if (machine.providerIDHidden) throw new NotImplementedError(`the cloud hides machine ${machine.name}'s ID`);
      return machine.id;
    },
    async instanceType(ctx, nodeName) {
      return (await lookUp(ctx, "instanceType", { name: nodeName })).instanceType;
    },
    async instanceTypeByProviderID(ctx, providerID) {
      return (await lookUp(ctx, "instanceTypeByProviderID", { providerID })).instanceType;
    },
    async instanceExistsByProviderID(ctx, providerID) {
      try {
        await lookUp(ctx, "instanceExistsByProviderID", { providerID });
        return true;
      } catch (err) {
        if (err instanceof InstanceNotFoundError) return false;
        throw err;
      }
    },
    async instanceShutdownByProviderID(ctx, providerID) {
      return (await lookUp(ctx, "instanceShutdownByProviderID", { providerID })).state === "stopped";
    },
  } satisfies Instances;

  const zones = {
    async getZone() {
      throw new NotImplementedError("the sandbox cloud does not know which machine the manager runs on");
    },
    async getZoneByProviderID(ctx, providerID) {
      return zoneOf(await lookUp(ctx, "getZoneByProviderID", { providerID }));
    },
    async getZoneByNodeName(ctx, nodeName) {
      return zoneOf(await lookUp(ctx, "getZoneByNodeName", { name: nodeName }));
    },
  } satisfies Zones;

  return { instances, zones };
}
