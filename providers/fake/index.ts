/**
 * The `fake` provider: in-memory and programmable, for controller tests. Registered so the command can be
 * exercised with it; the build does not ship it (see `shippable`).
 */
import { defineProvider } from "../kit/define-provider.ts";
import { registerCloudProvider } from "../registry.ts";
import { FakeCloud } from "./fake-cloud.ts";

export { type FakeBalancer, type FakeCall, FakeCloud, type FakeRoute } from "./fake-cloud.ts";

/** Read by scripts/build.ts: test-only providers get no executable. */
export const shippable = false;

/** The fake as the command builds it: InstancesV2 on, every other answer the fake's defaults; the file is ignored. */
export const fake = defineProvider({
  name: "fake",
  settings: { read: () => ({ value: undefined }) },
  create() {
    const cloud = new FakeCloud();
    cloud.enableInstancesV2 = true;
    return cloud;
  },
});

registerCloudProvider(fake.name, fake.factory);
