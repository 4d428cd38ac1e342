import { describe, expect, test } from "bun:test";
import { Labels } from "../../kube/well-known.ts";
import type { InstanceMetadata } from "../../providers/cloud.ts";
import { addr, addresses, annotation, labels, node, providedNodeIP, uninitialized } from "./node-fixtures.ts";
import { planAddressUpdate, planLabelReconciliation } from "./plan.ts";

function metadata(over: Partial<InstanceMetadata> = {}): InstanceMetadata {
  return { providerID: "", instanceType: "", nodeAddresses: [], zone: "", region: "", ...over };
}

describe("planAddressUpdate", () => {
  const internal = addr("InternalIP", "10.0.0.1");
  const external = addr("ExternalIP", "1.2.3.4");
  const hostname = addr("Hostname", "n1.local");

  test.each([
    {
      name: "skips a node still awaiting initialisation",
      n: node("n1", uninitialized),
      md: metadata({ nodeAddresses: [internal] }),
    },
    { name: "skips null metadata (upstream crashes here)", n: node("n1"), md: null },
    { name: "never clears addresses when the cloud reports none", n: node("n1", addresses(internal)), md: metadata() },
    {
      name: "makes no write when nothing changed",
      n: node("n1", addresses(internal, external)),
      md: metadata({ nodeAddresses: [internal, external] }),
    },
    {
      name: "makes no write when only the order differs",
      n: node("n1", addresses(external, internal)),
      md: metadata({ nodeAddresses: [internal, external] }),
    },
    {
      name: "makes no write when the kept hostname is all that differs from the cloud",
      n: node("n1", addresses(internal, hostname)),
      md: metadata({ nodeAddresses: [internal] }),
    },
  ])("$name", ({ n, md }) => {
    const plan = planAddressUpdate(n, md);
    expect(plan.kind).toBe("skip");
    expect(plan).not.toHaveProperty("error");
  });

  test.each([
    {
      name: "writes the cloud's addresses to a node without any",
      n: node("n1"),
      md: metadata({ nodeAddresses: [internal, external] }),
      want: [internal, external],
    },
    {
      name: "keeps the node's Hostname addresses when the cloud has none",
      n: node("n1", addresses(hostname, addr("InternalIP", "10.0.0.9"))),
      md: metadata({ nodeAddresses: [internal] }),
      want: [internal, hostname],
    },
    {
      name: "takes the cloud's Hostname over the node's",
      n: node("n1", addresses(hostname)),
      md: metadata({ nodeAddresses: [internal, addr("Hostname", "cloud-name")] }),
      want: [internal, addr("Hostname", "cloud-name")],
    },
    {
      name: "applies the provided node IP",
      n: node("n1", providedNodeIP("10.0.0.2")),
      md: metadata({ nodeAddresses: [internal, addr("InternalIP", "10.0.0.2"), external] }),
      want: [addr("InternalIP", "10.0.0.2"), external],
    },
    {
      name: "applies the provided node IP to the kept hostname too",
      n: node("n1", addresses(hostname), providedNodeIP("10.0.0.1")),
      md: metadata({ nodeAddresses: [internal, external] }),
      want: [internal, external, hostname],
    },
    {
      name: "updates a changed address",
      n: node("n1", addresses(internal, external)),
      md: metadata({ nodeAddresses: [internal, addr("ExternalIP", "5.6.7.8")] }),
      want: [internal, addr("ExternalIP", "5.6.7.8")],
    },
  ])("$name", ({ n, md, want }) => {
    expect(planAddressUpdate(n, md)).toEqual({ kind: "update", addresses: [...want] });
  });

  test("skips with the error when the provided node IP is not in the cloud", () => {
    const plan = planAddressUpdate(node("n1", providedNodeIP("10.0.0.9")), metadata({ nodeAddresses: [internal] }));
    expect(plan.kind).toBe("skip");
    if (plan.kind !== "skip") return;
    expect(plan.error?.message).toBe("failed to get node address from cloud provider that matches ip: 10.0.0.9");
  });

  test("does not change the metadata it is given", () => {
    const md = metadata({ nodeAddresses: [internal] });
    planAddressUpdate(node("n1", addresses(hostname)), md);
    expect(md.nodeAddresses).toEqual([internal]);
  });
});

describe("planLabelReconciliation", () => {
  test.each([
    { name: "nothing for a node without labels", n: node("n1"), want: undefined },
    { name: "nothing when the beta labels are absent", n: node("n1", labels({ [Labels.zone]: "z" })), want: undefined },
    {
      name: "nothing when the GA labels already match",
      n: node("n1", labels({ [Labels.zoneDeprecated]: "z", [Labels.zone]: "z" })),
      want: undefined,
    },
    {
      name: "copies a beta label to a missing GA one",
      n: node("n1", labels({ [Labels.instanceTypeDeprecated]: "big" })),
      want: { [Labels.instanceType]: "big" },
    },
    {
      name: "overwrites a different GA label with the beta value",
      n: node("n1", labels({ [Labels.regionDeprecated]: "r1", [Labels.region]: "r2" })),
      want: { [Labels.region]: "r1" },
    },
    {
      name: "reconciles all three pairs at once",
      n: node(
        "n1",
        labels({ [Labels.zoneDeprecated]: "z", [Labels.regionDeprecated]: "r", [Labels.instanceTypeDeprecated]: "t" }),
      ),
      want: { [Labels.zone]: "z", [Labels.region]: "r", [Labels.instanceType]: "t" },
    },
    {
      name: "never copies a GA label back to beta",
      n: node("n1", labels({ [Labels.zone]: "z", [Labels.region]: "r", [Labels.instanceType]: "t" })),
      want: undefined,
    },
  ])("$name", ({ n, want }) => {
    expect(planLabelReconciliation(n)).toEqual(want);
  });

  test("ignores annotations", () => {
    expect(planLabelReconciliation(node("n1", annotation(Labels.zoneDeprecated, "z")))).toBeUndefined();
  });
});
