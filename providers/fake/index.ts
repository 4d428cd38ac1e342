/**
 * The `fake` provider: in-memory and programmable, for controller tests. Registered so the command can be
 * exercised with it; the build does not ship it (see `shippable`).
 */
import { registerCloudProvider } from "../registry.ts";
import { FakeCloud } from "./fake-cloud.ts";

export { type FakeBalancer, type FakeCall, FakeCloud, type FakeRoute } from "./fake-cloud.ts";

/** Read by scripts/build.ts: test-only providers get no executable. */
export const shippable = false;

registerCloudProvider("fake", () => {
  const cloud = new FakeCloud();
  cloud.enableInstancesV2 = true;
  return cloud;
});
