import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { Resources } from "../kube/client-types.ts";
import { ProviderRegistry } from "../providers/registry.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import type { SubcommandEnv } from "./command.ts";
import { runPlan, splitOutputFlag } from "./plan.ts";
import { DEV_BUILD } from "./version.ts";

/** The sub-command environment of the all-in-one executable with `registry`'s providers and no preset one. */
const envWith = (registry: ProviderRegistry): SubcommandEnv => ({
  registry,
  runManager: async () => 0,
  signal: new AbortController().signal,
  build: DEV_BUILD,
  binaryName: "cloud-controller-manager",
  invocation: "cloud-controller-manager",
  presetProvider: undefined,
});

describe("plan -o", () => {
  const cases: { argv: string[]; output: string; rest: string[]; error?: string }[] = [
    { argv: ["--v=2"], output: "text", rest: ["--v=2"] },
    { argv: ["-o", "json", "--v=2"], output: "json", rest: ["--v=2"] },
    { argv: ["-o=json"], output: "json", rest: [] },
    { argv: ["-ojson"], output: "json", rest: [] },
    { argv: ["--output", "text"], output: "text", rest: [] },
    { argv: ["--output=json", "--", "-o", "x"], output: "json", rest: ["--", "-o", "x"] },
    {
      argv: ["-o", "yaml"],
      output: "yaml",
      rest: [],
      error: '-o/--output: "yaml" is not an output format; use -o json or -o text',
    },
    { argv: ["-o"], output: "text", rest: [], error: "-o needs a value: text or json" },
  ];
  for (const c of cases) {
    test(`${c.argv.join(" ")} → ${c.error ?? c.output}`, () => {
      const split = splitOutputFlag(c.argv);
      expect(split.output).toBe(c.output);
      expect(split.rest).toEqual(c.rest);
      expect(split.error).toBe(c.error);
    });
  }
});

describe("plan command line", () => {
  const registry = new ProviderRegistry();
  registry.register("acme", () => ({ providerName: "acme", hasClusterID: () => true }));
  const env = envWith(registry);
  const cases: { name: string; argv: string[]; says: string[] }[] = [
    {
      name: "an unknown output format and a bad flag are reported together, nothing is read",
      argv: ["-o", "yaml", "--cloud-provider=acme", "--no-such-flag"],
      says: ['"yaml" is not an output format', "no-such-flag"],
    },
    { name: "arguments are refused", argv: ["--cloud-provider=acme", "extra"], says: ["plan takes no arguments"] },
  ];
  for (const c of cases) {
    test(`${c.name}: exit 1`, async () => {
      let err = "";
      let out = "";
      const code = await runPlan(env, c.argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
      expect(code).toBe(1);
      expect(out).toBe("");
      for (const s of c.says) expect(err).toContain(s);
      expect(err).toContain("Run 'cloud-controller-manager plan --help' for the flags.");
    });
  }
});

describe("plan makes no write, whatever the provider tries", () => {
  let api: ApiServer;
  let kubeconfig: string;
  beforeAll(async () => {
    api = await startApiServer({ logger: createConsola({ level: -999 }) });
    kubeconfig = await api.writeKubeconfig(join(await mkdtemp(join(tmpdir(), "ccm-plan-")), "kubeconfig"));
    api.store.create(Resources.nodes, { metadata: { name: "n1" } });
  });
  afterAll(() => api?.stop());

  const registry = new ProviderRegistry();
  // Tries to label a node while starting, as a provider recording state in the cluster might.
  registry.register("untagged", () => ({ providerName: "untagged", hasClusterID: () => false }));
  registry.register("writer", () => ({
    providerName: "writer",
    hasClusterID: () => true,
    async initialize(runtime) {
      await runtime.kube.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { written: "yes" } } });
    },
  }));
  // Tries a cloud write through its call context, as the cloud-API kit does before every write.
  registry.register("cloud-writer", () => ({
    providerName: "cloud-writer",
    hasClusterID: () => true,
    instancesV2: {
      instanceExists: async () => true,
      instanceShutdown: async () => false,
      async instanceMetadata(ctx) {
        ctx.fence?.enter("POST /machines/1/actions/poweron").end();
        return null;
      },
    },
  }));

  const cases: { provider: string; says: string; stream: "stdout" | "stderr" }[] = [
    {
      provider: "untagged",
      says: "the manager would not start with these flags: no ClusterID found",
      stream: "stderr",
    },
    { provider: "writer", says: "plan makes no write; refused: PATCH", stream: "stderr" },
    {
      provider: "cloud-writer",
      says: "plan makes no write; refused: POST /machines/1/actions/poweron",
      stream: "stdout",
    },
  ];
  for (const c of cases) {
    test(`a ${c.provider} provider: the plan exits 1, says why, and nothing is written`, async () => {
      const version = api.store.resourceVersion;
      const env = envWith(registry);
      const io = { stdout: "", stderr: "" };
      // A node to plan for, made now: the resourceVersion moves with every write, so an unchanged one means none.
      api.store.create(Resources.nodes, {
        metadata: { name: `${c.provider}-node` },
        spec: { taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", effect: "NoSchedule" }] },
      });
      const after = api.store.resourceVersion;
      const code = await runPlan(env, [`--cloud-provider=${c.provider}`, `--kubeconfig=${kubeconfig}`], {
        stdout: (t) => (io.stdout += t),
        stderr: (t) => (io.stderr += t),
      });
      expect(code).toBe(1);
      expect(io[c.stream]).toContain(c.says);
      expect(api.store.resourceVersion).toBe(after);
      expect(after).not.toBe(version);
    });
  }
});
