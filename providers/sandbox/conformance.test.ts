/**
 * The sandbox provider against the conformance suite: its real HTTP client talking to a real simulated cloud on
 * loopback, one fresh cloud per check; machines are arranged through the cloud's own state, as an operator would.
 */
import { runConformance } from "../conformance/suite.ts";
import { sandboxConformance } from "./testing.ts";

await runConformance(sandboxConformance());
