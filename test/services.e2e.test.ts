/**
 * End to end, load balancers: the compiled all-in-one runs the sandbox without controllers, a second
 * compiled process runs the service controller (with cloud-node) with operator flags; the test changes Services
 * through the API and machines through the simulated cloud's REST API, and reads load balancers from it. The
 * scenarios are test/scenarios/services.ts, which test/real/services.real.ts runs on a real API server.
 */
import { describeServiceScenarios } from "./scenarios/services.ts";
import { startSandbox } from "./support/sandbox.ts";

describeServiceScenarios({
  title: "service controller, compiled, against the sandbox",
  start: (nodes) => startSandbox({ nodes }),
  startTimeoutMs: 120_000,
});
