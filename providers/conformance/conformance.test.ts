import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  type CheckId,
  capabilities,
  conformanceChecks,
  notOffered,
  planConformance,
  runCheck,
  runConformance,
} from "./suite.ts";
import { type Breakage, toyTarget } from "./testing/toy-provider.ts";

// A provider with every capability and no bugs passes every check (registered like any provider's suite).
await runConformance({ name: "toy", setup: () => toyTarget() });

describe("a provider that breaks one contract fails the check for it, with a message naming the contract", () => {
  const cases: [Breakage, CheckId, RegExp][] = [
    ["stopped-is-gone", "instancesV2/stopped", /instanceExists must be true for a stopped machine/],
    ["stopped-not-shut-down", "instancesV2/stopped", /instanceShutdown must be true for a stopped machine/],
    ["not-found-wrapped", "instancesV2/deleted", /must throw InstanceNotFoundError itself, not wrapped/],
    ["exists-throws-when-gone", "instancesV2/deleted", /instanceExists\(.*\) threw instead of answering/],
    ["metadata-null", "instancesV2/running", /answered null \("cannot tell yet"\)/],
    ["no-name-lookup", "instancesV2/running-by-name", /instanceExists must be true for a running machine/],
    ["provider-id-unstable", "instancesV2/provider-id", /instanceMetadata.providerID must be stable/],
    ["zone-empty", "instancesV2/metadata-zone", /instanceMetadata.zone must be non-empty/],
    ["addresses-empty", "instancesV2/metadata-addresses", /nodeAddresses must be non-empty/],
    ["bulk-ignores-power", "instancesV2.bulk/consistent", /stopped machine .*shutdown must be true/],
    ["instance-id-with-scheme", "instances/running", /instanceID must be the ID the framework turns into/],
    ["lb-name-too-long", "loadBalancer/name", /getLoadBalancerName must be at most 63 characters/],
    ["lb-name-shared", "loadBalancer/name", /two Services \(different UIDs\) must not share/],
    ["ensure-new-address-each-time", "loadBalancer/ensure-idempotent", /ensureLoadBalancer must be idempotent/],
    ["ensure-duplicates", "loadBalancer/ensure-creates-one", /must leave one new load balancer; the cloud has 2/],
    ["update-drops-ports", "loadBalancer/update-hosts", /must change only the hosts; ports went from \[80\] to \[\]/],
    ["delete-missing-throws", "loadBalancer/delete-missing", /ensureLoadBalancerDeleted.* threw instead/],
    ["get-after-delete", "loadBalancer/delete", /getLoadBalancer must be undefined after the delete/],
    ["ingress-empty", "loadBalancer/ensure", /must report at least one ingress point/],
    ["route-name-from-hint-only", "routes/dual-stack", /must list exactly one route for 10.244.2.0\/24; got 0/],
    ["route-target-lost", "routes/create-list-delete", /must report targetNode/],
    ["rate-limit-zero", "rateLimit/shape", /rateLimit.qps must be a finite number above 0/],
    ["pod-cidrs-same-family", "cidrAllocator/shape", /at most one CIDR per IP family/],
    ["pod-cidrs-gone-empty", "cidrAllocator/deleted", /must throw, but answered \[\]/],
  ];

  test.each(cases)("%p fails %p", async (breakage, id, message) => {
    const options = { name: "toy", setup: () => toyTarget([breakage]) };
    await expect(runCheck(options, id)).rejects.toThrow(message);
    await runCheck({ name: "toy", setup: () => toyTarget() }, id); // and passes without the breakage
  });
});

describe("planConformance", () => {
  const full = toyTarget();

  test("runs every check of a provider that offers everything", () => {
    const plan = planConformance({ name: "toy" }, full);
    expect(plan.filter((p) => p.skipped !== undefined)).toEqual([]);
    expect(new Set(plan.map((p) => p.check.capability))).toEqual(new Set(capabilities));
  });

  test("skips the checks of an absent capability as not offered, never as passed", () => {
    const target = { ...full, provider: { ...full.provider, routes: undefined, rateLimit: undefined } };
    const skipped = planConformance({ name: "toy" }, target).filter((p) => p.skipped !== undefined);
    expect(skipped.map((p) => [p.check.id, p.skipped])).toEqual([
      ["rateLimit/shape", notOffered],
      ["routes/create-list-delete", notOffered],
      ["routes/dual-stack", notOffered],
    ]);
  });

  test("a declared skip, by check or by capability, carries its reason", () => {
    const skip = { "instancesV2/unknown-name": "answers are global", loadBalancer: "not yet" };
    const plan = planConformance({ name: "toy", skip }, full);
    const reasons = new Map(plan.map((p) => [p.check.id, p.skipped]));
    expect(reasons.get("instancesV2/unknown-name")).toBe("answers are global");
    expect(reasons.get("instancesV2/running")).toBeUndefined();
    const lb = plan.filter((p) => p.check.capability === "loadBalancer");
    expect(lb.map((p) => p.skipped)).toEqual(lb.map(() => "not yet"));
  });

  test("skips checks needing a cloud view the arrange step does not give, naming the hook", () => {
    const { listLoadBalancers: _, ...arrange } = full.arrange;
    const plan = planConformance({ name: "toy" }, { ...full, arrange });
    expect(plan.find((p) => p.check.id === "loadBalancer/update-hosts")?.skipped).toBe(
      "needs arrange.listLoadBalancers, which the test does not give",
    );
  });

  test.each([
    [{ "instancesV2/unknwon-name": "typo" }, /names no check or capability/],
    [{ routes: " " }, /needs a reason/],
  ])("refuses the skip list %p", (skip, message) => {
    expect(() => planConformance({ name: "toy", skip } as never, full)).toThrow(message);
  });

  test("docs/writing-a-provider.md lists exactly the checks of each capability", async () => {
    const doc = await Bun.file(join(import.meta.dir, "..", "..", "docs", "writing-a-provider.md")).text();
    for (const capability of capabilities) {
      const item = new RegExp(`^- \`${capability.replace(".", "\\.")}\`: ((?:.|\n  )*)$`, "m").exec(doc);
      const listed = [...(item?.[1] ?? "").matchAll(/`([a-z-]+)`/g)].map((m) => `${capability}/${m[1]}`);
      const ids = conformanceChecks("toy")
        .filter((c) => c.capability === capability)
        .map((c) => c.id);
      expect(listed).toEqual(ids);
    }
  });

  test("check ids are unique and start with their capability", () => {
    const ids = conformanceChecks("toy").map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of conformanceChecks("toy")) expect(c.id.startsWith(`${c.capability}/`)).toBe(true);
  });
});

test("as bun:test shows it: declared and not-offered skips are skips with reasons, a broken check is a failure", async () => {
  const fixture = join(import.meta.dir, "testing", "registration.fixture.ts");
  const proc = Bun.spawn([process.execPath, "test", fixture], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const text = out + err;
  expect(code).toBe(1);
  expect(text).toMatch(/\(skip\) toy conformance > routes > routes\/dual-stack: .* — skipped: capability not offered/);
  expect(text).toMatch(/\(skip\) toy conformance > zones > zones\/consistent: .* — skipped: the toy has one zone/);
  expect(text).toMatch(/\(fail\) toy conformance > instancesV2 > instancesV2\/stopped: /);
  expect(text).toContain("ContractViolation: instanceExists must be true for a stopped machine");
  expect(text).toMatch(/^\s*3 fail$/m); // stopped, stopped-by-name, and the bulk lookup that disagrees
  expect(text).toMatch(/^\s*3 skip$/m);
});
