/**
 * A manager that cannot run its controllers says so and exits (issue 16): flag values it cannot honour are flag
 * errors before anything starts; later failures end the process non-zero, naming the cause on the last line.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { executable, runExecutable } from "./support/executables.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

let allInOne: string;
beforeAll(async () => {
  allInOne = await executable();
}, 300_000);

describe("flag values the manager cannot honour", () => {
  test("are all reported at once, each naming its flag, before anything starts", async () => {
    const r = await runExecutable(allInOne, [
      "--cloud-provider=sandbox",
      "--route-reconciliation-period=600h",
      "--node-status-update-frequency=600h",
      "--node-monitor-period=999999999999h",
      "--cluster-cidr=10.0.0.0/16,10.1.0.0/16",
      `--cluster-name=${"x".repeat(100_000)}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("invalid command line (5 problems)");
    for (const flag of ["route-reconciliation-period", "node-status-update-frequency", "node-monitor-period"]) {
      expect(r.stderr).toContain(`--${flag} must be at most 596h31m23.647s`);
    }
    expect(r.stderr).toContain("--cluster-cidr is invalid: len of ClusterCIDRs==2 and they are not configured");
    expect(r.stderr).toContain("--cluster-name must be at most 253 characters, got 100000");
    expect(r.stderr).not.toContain("TimeoutOverflowWarning");
  });

  test.each([
    ["three cluster CIDRs", "--cluster-cidr=10.0.0.0/16,fd00::/48,10.1.0.0/16", "length of clusterCIDRs is:3"],
    ["a prefix beyond the address", "--cluster-cidr=10.0.0.0/99", 'failed to parse cidr value:"10.0.0.0/99"'],
    ["a cluster name with a control character", "--cluster-name=a\u0007b", "--cluster-name must not contain control"],
  ])("include %s", async (_name, arg, want) => {
    const r = await runExecutable(allInOne, ["--cloud-provider=sandbox", arg]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(want);
  });
});
