/**
 * Run by conformance.test.ts in a child `bun test`: a provider without routes, one declared skip and one broken
 * contract, to show how each is reported. Not a `*.test.ts`, so the normal run does not pick it up.
 */
import { runConformance } from "../suite.ts";
import { toyTarget } from "./toy-provider.ts";

await runConformance({
  name: "toy",
  setup() {
    const target = toyTarget(["stopped-is-gone"]);
    return { ...target, provider: { ...target.provider, routes: undefined } };
  },
  skip: { "zones/consistent": "the toy has one zone for everything" },
});
