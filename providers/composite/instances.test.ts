import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { rejection } from "../testing.ts";
import { createCompositeInstances, UnownedNodeError } from "./instances.ts";
import type { NodeWarningReason } from "./node-warnings.ts";

interface Machine {
  readonly name: string;
  readonly providerID: string;
  readonly shutdown?: boolean;
}

/** One cloud: machines by provider ID or name, a switch that makes every call fail, and the calls it got. */
function cloud(name: string, machines: Machine[], options: { bulk?: boolean } = {}) {
  const state = { down: undefined as Error | undefined, calls: [] as string[] };
  const find = (node: Node) => {
    const id = node.spec?.providerID;
    return machines.find((m) => (id ? m.providerID === id : m.name === node.metadata?.name));
  };
  const answer = <T>(call: string, node: Node, fn: (m: Machine | undefined) => T): Promise<T> => {
    state.calls.push(`${call} ${node.metadata?.name}`);
    return state.down ? Promise.reject(state.down) : Promise.resolve(fn(find(node)));
  };
  const metadata = (m: Machine): InstanceMetadata => ({
    providerID: m.providerID,
    instanceType: `${name}-type`,
    nodeAddresses: [],
    zone: "",
    region: "",
  });
  const instances: InstancesV2 = {
    instanceExists: (_, node) => answer("exists", node, (m) => m !== undefined),
    instanceShutdown: (_, node) => answer("shutdown", node, (m) => m?.shutdown === true),
    instanceMetadata: (_, node) =>
      answer("metadata", node, (m) => {
        if (!m) throw new InstanceNotFoundError(node.metadata?.name);
        return metadata(m);
      }),
  };
  if (options.bulk) {
    instances.instanceMetadataBulk = async (_, nodes) => {
      state.calls.push(`bulk ${nodes.map((n) => n.metadata?.name).join(",")}`);
      if (state.down) throw state.down;
      const out = new Map<string, BulkInstanceInfo | null>();
      for (const n of nodes) {
        const m = find(n);
        out.set(n.metadata?.name ?? "", m ? { metadata: metadata(m), shutdown: m.shutdown === true } : null);
      }
      return out;
    };
  }
  return { part: { name, schemes: [name], instances }, state };
}

const node = (name: string, providerID?: string): Node => ({
  metadata: { name, uid: `uid-${name}` },
  spec: providerID ? { providerID } : {},
});

function setup(options: { bulk?: boolean } = {}) {
  const vm = cloud(
    "vm",
    [
      { name: "vm-1", providerID: "vm://1" },
      { name: "vm-2", providerID: "vm://2", shutdown: true },
    ],
    options,
  );
  const metal = cloud("metal", [{ name: "rack-1", providerID: "metal://rack-1" }], options);
  const warned: [string, NodeWarningReason, string][] = [];
  const warnings = {
    warn: (n: Node, reason: NodeWarningReason, message: string) =>
      warned.push([n.metadata?.name ?? "", reason, message]),
  };
  const instances = createCompositeInstances({ parts: [vm.part, metal.part], warnings });
  return { vm, metal, instances, warned, ctx: { signal: new AbortController().signal } };
}

describe("composite instances: a Node goes to the part of its provider-ID scheme", () => {
  test("each question about a Node with a provider ID is asked of its part only", async () => {
    const t = setup();
    expect(await t.instances.instanceExists(t.ctx, node("rack-1", "metal://rack-1"))).toBe(true);
    expect(await t.instances.instanceShutdown(t.ctx, node("vm-2", "vm://2"))).toBe(true);
    expect((await t.instances.instanceMetadata(t.ctx, node("vm-1", "vm://1")))?.instanceType).toBe("vm-type");
    expect(t.vm.state.calls).toEqual(["shutdown vm-2", "metadata vm-1"]);
    expect(t.metal.state.calls).toEqual(["exists rack-1"]);
  });

  test("its own part's 'does not exist' is the answer (the framework deletes that Node)", async () => {
    const t = setup();
    expect(await t.instances.instanceExists(t.ctx, node("vm-9", "vm://9"))).toBe(false);
    expect(t.metal.state.calls).toEqual([]);
  });

  test("a metal Node is never asked of the cloud, so the cloud not knowing it deletes nothing", async () => {
    const t = setup();
    t.vm.state.down = new Error("vm cloud is down");
    expect(await t.instances.instanceExists(t.ctx, node("rack-1", "metal://rack-1"))).toBe(true);
    expect(t.vm.state.calls).toEqual([]);
  });

  test("a Node of a scheme no part declares is kept: exists, not shut down, a warning; no metadata", async () => {
    const t = setup();
    const foreign = node("hw-1", "hrobot://1");
    expect(await t.instances.instanceExists(t.ctx, foreign)).toBe(true);
    expect(await t.instances.instanceShutdown(t.ctx, foreign)).toBe(false);
    const err = await rejection(() => t.instances.instanceMetadata(t.ctx, foreign));
    expect(err).toBeInstanceOf(UnownedNodeError);
    expect(err.message).toContain(
      'provider ID "hrobot://1" has scheme "hrobot", which no configured provider declares',
    );
    expect(t.warned).toEqual([
      ["hw-1", "CloudProviderUnknown", expect.stringContaining("the node is kept, never deleted or tainted")],
    ]);
    expect([...t.vm.state.calls, ...t.metal.state.calls]).toEqual([]);
  });

  test("a part that fails: the error passes on, wrapped with its name, and the Node gets a warning", async () => {
    const t = setup();
    t.metal.state.down = new Error("connection refused");
    const n = node("rack-1", "metal://rack-1");
    for (const ask of [() => t.instances.instanceExists(t.ctx, n), () => t.instances.instanceShutdown(t.ctx, n)]) {
      const err = await rejection(ask);
      expect(err.message).toMatch(/^composite\/metal\.instance(Exists|Shutdown): connection refused$/);
      expect(err.cause).toBe(t.metal.state.down);
    }
    expect(t.warned.map(([name, reason]) => [name, reason])).toEqual([
      ["rack-1", "CloudProviderUnavailable"],
      ["rack-1", "CloudProviderUnavailable"],
    ]);
  });

  test("InstanceNotFoundError passes through as itself (the controllers compare it by class)", async () => {
    const t = setup();
    const err = await rejection(() => t.instances.instanceMetadata(t.ctx, node("vm-9", "vm://9")));
    expect(err).toBeInstanceOf(InstanceNotFoundError);
  });
});

describe("composite instances: a Node without a provider ID is offered to the parts in order", () => {
  test("the first part that finds the instance wins", async () => {
    const t = setup();
    expect((await t.instances.instanceMetadata(t.ctx, node("rack-1")))?.providerID).toBe("metal://rack-1");
    expect(t.vm.state.calls).toEqual(["metadata rack-1"]);
    expect(await t.instances.instanceShutdown(t.ctx, node("vm-2"))).toBe(true);
    expect(t.metal.state.calls).toEqual(["metadata rack-1"]);
  });

  test("found by none: metadata is InstanceNotFoundError, yet the Node exists (kept) with a warning", async () => {
    const t = setup();
    const err = await rejection(() => t.instances.instanceMetadata(t.ctx, node("ghost")));
    expect(err).toBeInstanceOf(InstanceNotFoundError);
    expect(err.message).toContain("no configured provider (vm, metal) has an instance for node ghost");
    expect(await t.instances.instanceExists(t.ctx, node("ghost"))).toBe(true);
    expect(await t.instances.instanceShutdown(t.ctx, node("ghost"))).toBe(false);
    expect(t.warned.map(([name, reason]) => [name, reason])).toEqual([
      ["ghost", "CloudProviderUnknown"],
      ["ghost", "CloudProviderUnknown"],
    ]);
  });

  test("an earlier part that fails stops the search: a later part never takes a Node the first may own", async () => {
    const t = setup();
    t.vm.state.down = new Error("timeout");
    expect((await rejection(() => t.instances.instanceMetadata(t.ctx, node("rack-1")))).message).toBe(
      "composite/vm.instanceMetadata: timeout",
    );
    expect((await rejection(() => t.instances.instanceExists(t.ctx, node("rack-1")))).message).toBe(
      "composite/vm.instanceExists: timeout",
    );
    expect(t.metal.state.calls).toEqual([]);
  });

  test("a provider ID that would not route back to the part that gave it is refused, naming the fix", async () => {
    const t = setup();
    const stray = cloud("vm", [{ name: "odd", providerID: "other://odd" }]);
    const instances = createCompositeInstances({ parts: [stray.part], warnings: { warn() {} } });
    expect((await rejection(() => instances.instanceMetadata(t.ctx, node("odd")))).message).toBe(
      "composite/vm.instanceMetadata: node odd would get provider ID \"other://odd\", whose scheme is not among vm's schemes (vm); add it to that provider's schemes: in the cloud-config",
    );
  });
});

describe("composite instances: the bulk lookup", () => {
  test("each part lists only its own Nodes; unassigned and foreign Nodes are left to the one-by-one path", async () => {
    const t = setup({ bulk: true });
    const nodes = [
      node("vm-1", "vm://1"),
      node("vm-gone", "vm://7"),
      node("rack-1", "metal://rack-1"),
      node("new"),
      node("hw", "x://1"),
    ];
    const answer = await t.instances.instanceMetadataBulk!(t.ctx, nodes);
    expect(t.vm.state.calls).toEqual(["bulk vm-1,vm-gone"]);
    expect(t.metal.state.calls).toEqual(["bulk rack-1"]);
    expect([...answer.keys()].sort()).toEqual(["rack-1", "vm-1", "vm-gone"]);
    expect(answer.get("vm-gone")).toBeNull();
  });

  test("one part's failed listing leaves its Nodes out, whose next question fails at once; the other part's stand", async () => {
    const t = setup({ bulk: true });
    t.vm.state.down = new Error("503 from the vm cloud");
    const vmNode = node("vm-1", "vm://1");
    const answer = await t.instances.instanceMetadataBulk!(t.ctx, [vmNode, node("rack-1", "metal://rack-1")]);
    expect([...answer.keys()]).toEqual(["rack-1"]);
    const err = await rejection(() => t.instances.instanceExists(t.ctx, vmNode));
    expect(err.message).toBe("composite/vm.instanceExists: 503 from the vm cloud");
    expect(t.vm.state.calls).toEqual(["bulk vm-1"]);
    expect(t.warned.map(([name, reason]) => [name, reason])).toEqual([["vm-1", "CloudProviderUnavailable"]]);
  });
});
