/**
 * The legacy `Instances` and `Zones` APIs, for providers that still offer them (the framework uses them only when
 * `instancesV2` is absent). Each check follows one machine.
 */
import type { Instances, Zones } from "../../cloud.ts";
import { answer, must, mustThrowInstanceNotFound, show } from "../contract.ts";
import type { ArrangedMachine, Check, CheckContext } from "../types.ts";

function instances(t: CheckContext): Instances {
  const api = t.provider.instances;
  must(api !== undefined, "provider.instances disappeared between calls; a capability must not change");
  return api;
}

function zones(t: CheckContext): Zones {
  const api = t.provider.zones;
  must(api !== undefined, "provider.zones disappeared between calls; a capability must not change");
  return api;
}

async function state(t: CheckContext, m: ArrangedMachine): Promise<{ exists: boolean; shutdown: boolean }> {
  const api = instances(t);
  const pid = m.providerID;
  return {
    exists: await answer(`instances.instanceExistsByProviderID(${show(pid)})`, () =>
      api.instanceExistsByProviderID(t.ctx, pid),
    ),
    shutdown: await answer(`instances.instanceShutdownByProviderID(${show(pid)})`, () =>
      api.instanceShutdownByProviderID(t.ctx, pid),
    ),
  };
}

export const legacyChecks: readonly Check[] = [
  {
    id: "instances/running",
    capability: "instances",
    title: "a running machine: addresses, instance ID, instance type by name and by provider ID; exists, not shut down",
    async run(t) {
      const api = instances(t);
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      const byName = await answer(`instances.nodeAddresses(${show(m.nodeName)})`, () =>
        api.nodeAddresses(t.ctx, m.nodeName),
      );
      const byID = await answer(`instances.nodeAddressesByProviderID(${show(m.providerID)})`, () =>
        api.nodeAddressesByProviderID(t.ctx, m.providerID),
      );
      must(byName.length > 0, `instances.nodeAddresses must be non-empty for a running machine; got ${show(byName)}`);
      must(
        Bun.deepEquals(byName, byID),
        `instances.nodeAddresses ${show(byName)} and nodeAddressesByProviderID ${show(byID)} must agree`,
      );
      const id = await answer("instances.instanceID", () => api.instanceID(t.ctx, m.nodeName));
      must(
        `${t.provider.providerName}://${id}` === m.providerID,
        `instances.instanceID must be the ID the framework turns into the provider ID as "<providerName>://<id>": expected ${show(m.providerID)}, got ${show(`${t.provider.providerName}://${id}`)}`,
      );
      const type = await answer("instances.instanceType", () => api.instanceType(t.ctx, m.nodeName));
      const typeByID = await answer("instances.instanceTypeByProviderID", () =>
        api.instanceTypeByProviderID(t.ctx, m.providerID),
      );
      must(type !== "", "instances.instanceType must be non-empty for a running machine");
      must(
        type === typeByID,
        `instances.instanceType ${show(type)} and instanceTypeByProviderID ${show(typeByID)} must agree`,
      );
      const s = await state(t, m);
      must(s.exists, "instances.instanceExistsByProviderID must be true for a running machine");
      must(!s.shutdown, "instances.instanceShutdownByProviderID must be false for a running machine");
    },
  },
  {
    id: "instances/stopped",
    capability: "instances",
    title: "a stopped machine exists and is shut down",
    async run(t) {
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      await t.arrange.stopMachine(m);
      const s = await state(t, m);
      must(
        s.exists,
        "instances.instanceExistsByProviderID must be true for a stopped machine (false deletes its Node)",
      );
      must(s.shutdown, "instances.instanceShutdownByProviderID must be true for a stopped machine");
    },
  },
  {
    id: "instances/deleted",
    capability: "instances",
    title: "a deleted machine does not exist (false, not an error) and instanceID throws InstanceNotFoundError",
    async run(t) {
      const api = instances(t);
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      await t.arrange.deleteMachine(m);
      const exists = await answer(`instances.instanceExistsByProviderID(${show(m.providerID)})`, () =>
        api.instanceExistsByProviderID(t.ctx, m.providerID),
      );
      must(!exists, "instances.instanceExistsByProviderID must be false for a deleted machine");
      await mustThrowInstanceNotFound(`instances.instanceID for a deleted machine (${show(m.nodeName)})`, () =>
        api.instanceID(t.ctx, m.nodeName),
      );
    },
  },
  {
    id: "instances/unknown-name",
    capability: "instances",
    title: "instanceID throws InstanceNotFoundError for a name no machine ever had, while another machine runs",
    async run(t) {
      await t.arrange.createMachine({ name: t.uniqueName() });
      const name = t.uniqueName();
      await mustThrowInstanceNotFound(`instances.instanceID for a never-created machine (${show(name)})`, () =>
        instances(t).instanceID(t.ctx, name),
      );
    },
  },
  {
    id: "zones/consistent",
    capability: "zones",
    title: "the zone by provider ID and by node name agree and are non-empty (and match instancesV2 when offered)",
    async run(t) {
      const api = zones(t);
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      const byID = await answer("zones.getZoneByProviderID", () => api.getZoneByProviderID(t.ctx, m.providerID));
      const byName = await answer("zones.getZoneByNodeName", () => api.getZoneByNodeName(t.ctx, m.nodeName));
      must(
        Bun.deepEquals(byID, byName),
        `zones.getZoneByProviderID ${show(byID)} and getZoneByNodeName ${show(byName)} must agree`,
      );
      must(byID.failureDomain !== "" && byID.region !== "", `zones must name a zone and a region; got ${show(byID)}`);
      const v2 = t.provider.instancesV2;
      if (!v2) return;
      const node = { metadata: { name: m.nodeName }, spec: { providerID: m.providerID } };
      const meta = await answer("instancesV2.instanceMetadata", () => v2.instanceMetadata(t.ctx, node));
      must(
        meta === null || (meta.zone === byID.failureDomain && meta.region === byID.region),
        `zones ${show(byID)} and instancesV2 metadata (zone ${show(meta?.zone)}, region ${show(meta?.region)}) must agree`,
      );
    },
  },
];
