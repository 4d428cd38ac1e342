/** The provider object itself: its name, its switches, the rate limit it declares, and `clusters`. */
import { answer, must, show } from "../contract.ts";
import type { Check } from "../types.ts";

export function providerChecks(registeredName: string): readonly Check[] {
  return [
    {
      id: "provider/name",
      capability: "provider",
      title: `providerName is "${registeredName}", the name it registers under, and hasClusterID answers a boolean`,
      async run(t) {
        must(
          t.provider.providerName === registeredName,
          `providerName must equal the registered name ${show(registeredName)} (the registry refuses a mismatch); got ${show(t.provider.providerName)}`,
        );
        const has = await answer("hasClusterID", () => t.provider.hasClusterID());
        must(typeof has === "boolean", `hasClusterID must return a boolean; got ${show(has)}`);
      },
    },
    {
      id: "rateLimit/shape",
      capability: "rateLimit",
      title: "rateLimit is a token bucket: qps a finite number above 0, burst a whole number of at least 1",
      async run(t) {
        const limit = t.provider.rateLimit;
        must(limit !== undefined, "provider.rateLimit disappeared between reads");
        must(
          typeof limit.qps === "number" && Number.isFinite(limit.qps) && limit.qps > 0,
          `rateLimit.qps must be a finite number above 0 (calls per second); got ${show(limit.qps)}`,
        );
        must(
          Number.isInteger(limit.burst) && limit.burst >= 1,
          `rateLimit.burst must be a whole number of at least 1; got ${show(limit.burst)}`,
        );
      },
    },
    {
      id: "clusters/list",
      capability: "clusters",
      title: "listClusters answers a list of names",
      async run(t) {
        const api = t.provider.clusters;
        must(api !== undefined, "provider.clusters disappeared between reads");
        const names = await answer("clusters.listClusters", () => api.listClusters(t.ctx));
        must(
          Array.isArray(names) && names.every((n) => typeof n === "string"),
          `clusters.listClusters must answer an array of strings; got ${show(names)}`,
        );
      },
    },
  ];
}
