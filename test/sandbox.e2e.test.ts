/** As a newcomer meets it: the compiled all-in-one's `sandbox` shows nodes initialised and an address. */
import { expect, setDefaultTimeout, test } from "bun:test";
import { executable } from "./support/executables.ts";
import { spawnCollecting, waitFor } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

test("the sandbox command initialises its nodes and gives the Service an external address, then stops cleanly", async () => {
  const run = spawnCollecting([await executable(), "sandbox", "--nodes=3", "--exit-when-ready"]);
  const code = await Promise.race([run.exited, Bun.sleep(90_000).then(() => "timeout" as const)]);
  if (code === "timeout") run.proc.kill("SIGKILL");
  const out = run.output();
  expect(code).toBe(0);
  for (const line of [
    "Kubernetes API:  http://127.0.0.1:",
    "kubeconfig:",
    "cloud-config:",
    "watch it:        kubectl",
  ]) {
    expect(out).toContain(line);
  }
  // kubectl refuses to watch two resource types at once, so each printed watch names one.
  expect(out).toMatch(/kubectl --kubeconfig \S+ get nodes -o wide -w/);
  expect(out).toMatch(/kubectl --kubeconfig \S+ get services -o wide -w/);
  expect(out).not.toMatch(/get \w+,\w+ .*-w/);
  for (const n of [1, 2, 3]) {
    expect(out).toMatch(new RegExp(`node node-${n}: initialised sandbox://m-[0-9a-f]+ zone=zone-[abc] type=sb-`));
    expect(out).toMatch(new RegExp(`node node-${n}: addresses 10\\.0\\.0\\.\\d+,198\\.51\\.100\\.\\d+`));
  }
  expect(out).toMatch(/service default\/hello: load balancer 203\.0\.113\.\d+ \(80\/TCP\)/);
  expect(out).toMatch(/ready: 3 nodes initialised and routed, 1 load balancer\(s\) with an address/);
  expect(out).not.toMatch(/ERROR|error:/);
});

test("the sandbox rejects bad flags with every problem named", async () => {
  const run = spawnCollecting([await executable(), "sandbox", "--nodes=-2", "--controllers=maybe"]);
  expect(await run.exited).toBe(1);
  await waitFor(() => run.output().includes("error: sandbox"));
  expect(run.output()).toContain('--nodes must be a whole number from 0 to 20000, got "-2"');
  expect(run.output()).toContain('--controllers must be true or false, got "maybe"');
});
