/**
 * The conformance suite every provider runs from its own `conformance.test.ts`:
 *
 * ```ts
 * await runConformance({ name: "acme", setup: async () => ({ provider, arrange, teardown }), skip: { … } });
 * ```
 *
 * It registers one bun:test test per check, grouped by capability. A check of a capability the provider does not
 * offer is registered as skipped ("skipped: capability not offered"), a check listed in `skip` as skipped with the
 * given reason; neither ever counts as a pass. Every other check runs against a fresh `setup()` and fails with a
 * message naming the broken contract.
 */
import { describe, test } from "bun:test";
import type { CloudProvider } from "../cloud.ts";
import { bulkChecks } from "./checks/bulk.ts";
import { cidrAllocatorChecks } from "./checks/cidr-allocator.ts";
import { instancesV2Checks } from "./checks/instances-v2.ts";
import { legacyChecks } from "./checks/legacy.ts";
import { loadBalancerChecks } from "./checks/load-balancers.ts";
import { providerChecks } from "./checks/provider.ts";
import { routeChecks } from "./checks/routes.ts";
import { uniqueNames } from "./fixtures.ts";
import type { ArrangedMachine, Capability, Check, CheckId, ConformanceOptions, ConformanceTarget } from "./types.ts";

export { ContractViolation } from "./contract.ts";
export type * from "./types.ts";

export const notOffered = "capability not offered";

/** Every check, in the order they are registered. `name` is the provider's registered name. */
export function conformanceChecks(name: string): readonly Check[] {
  return [
    ...providerChecks(name),
    ...instancesV2Checks,
    ...bulkChecks,
    ...legacyChecks,
    ...loadBalancerChecks,
    ...routeChecks,
    ...cidrAllocatorChecks,
  ];
}

export const capabilities: readonly Capability[] = [
  "provider",
  "rateLimit",
  "instancesV2",
  "instancesV2.bulk",
  "instances",
  "zones",
  "clusters",
  "loadBalancer",
  "routes",
  "cidrAllocator",
];

/** The capabilities a provider offers: a property that is set (`undefined` means "not offered"). */
export function offeredCapabilities(provider: CloudProvider): Set<Capability> {
  const offered = new Set<Capability>(["provider"]);
  if (provider.rateLimit !== undefined) offered.add("rateLimit");
  if (provider.instancesV2 !== undefined) offered.add("instancesV2");
  if (provider.instancesV2?.instanceMetadataBulk !== undefined) offered.add("instancesV2.bulk");
  if (provider.instances !== undefined) offered.add("instances");
  if (provider.zones !== undefined) offered.add("zones");
  if (provider.clusters !== undefined) offered.add("clusters");
  if (provider.loadBalancer !== undefined) offered.add("loadBalancer");
  if (provider.routes !== undefined) offered.add("routes");
  if (provider.cidrAllocator !== undefined) offered.add("cidrAllocator");
  return offered;
}

export interface PlannedCheck {
  readonly check: Check;
  /** Why the check does not run; undefined when it runs. */
  readonly skipped: string | undefined;
}

/**
 * Which checks run and which are skipped, and why. Throws when `skip` names no check or capability, or gives no
 * reason: a declared skip must be deliberate.
 */
export function planConformance(
  options: Pick<ConformanceOptions, "name" | "skip">,
  target: Pick<ConformanceTarget, "provider" | "arrange">,
): PlannedCheck[] {
  const checks = conformanceChecks(options.name);
  const skip: Readonly<Record<string, string | undefined>> = options.skip ?? {};
  const known = new Set<string>([...capabilities, ...checks.map((c) => c.id)]);
  for (const [key, reason] of Object.entries(skip)) {
    if (!known.has(key)) {
      throw new Error(`conformance skip "${key}" names no check or capability; known: ${[...known].join(", ")}`);
    }
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new Error(`conformance skip "${key}" needs a reason (a non-empty string)`);
    }
  }
  const offered = offeredCapabilities(target.provider);
  return checks.map((check) => {
    const declared = skip[check.id] ?? skip[check.capability];
    const missing = (check.needs ?? []).filter((hook) => target.arrange[hook] === undefined);
    let skipped: string | undefined;
    if (declared !== undefined) skipped = declared;
    else if (!offered.has(check.capability)) skipped = notOffered;
    else if (missing.length > 0) skipped = `needs arrange.${missing.join(", arrange.")}, which the test does not give`;
    return { check, skipped };
  });
}

/** Run one check against a fresh `setup()`; resolves when it passes, throws a `ContractViolation` when not. */
export async function runCheck<M extends ArrangedMachine>(options: ConformanceOptions<M>, id: CheckId): Promise<void> {
  const check = conformanceChecks(options.name).find((c) => c.id === id);
  if (!check) throw new Error(`no conformance check "${id}"`);
  const target = await options.setup();
  try {
    await check.run({
      provider: target.provider,
      arrange: target.arrange,
      ctx: { signal: AbortSignal.timeout(60_000) },
      clusterName: options.clusterName ?? "conformance",
      maxLoadBalancerNameLength: options.maxLoadBalancerNameLength ?? 63,
      uniqueName: uniqueNames(),
    });
  } finally {
    await target.teardown?.();
  }
}

/**
 * Register the suite with bun:test. Await it at the top level of the test file: it builds the provider once to
 * see what it offers before registering the tests.
 */
export async function runConformance<M extends ArrangedMachine>(options: ConformanceOptions<M>): Promise<void> {
  let plan: PlannedCheck[];
  try {
    const probe = await options.setup();
    try {
      plan = planConformance(options, probe);
    } finally {
      await probe.teardown?.();
    }
  } catch (err) {
    describe(`${options.name} conformance`, () => {
      test("setup() builds the provider and the skips are valid", () => {
        throw err;
      });
    });
    return;
  }
  describe(`${options.name} conformance`, () => {
    for (const capability of capabilities) {
      const planned = plan.filter((p) => p.check.capability === capability);
      describe(capability, () => {
        for (const { check, skipped } of planned) {
          const name = `${check.id}: ${check.title}`;
          if (skipped !== undefined) test.skip(`${name} — skipped: ${skipped}`, () => {});
          else test(name, () => runCheck(options, check.id));
        }
      });
    }
  });
}
