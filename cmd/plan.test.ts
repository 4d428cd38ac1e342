import { describe, expect, test } from "bun:test";
import { ProviderRegistry } from "../providers/registry.ts";
import type { SubcommandEnv } from "./command.ts";
import { runPlan, splitOutputFlag } from "./plan.ts";
import { DEV_BUILD } from "./version.ts";

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
  const env: SubcommandEnv = {
    registry,
    runManager: async () => 0,
    signal: new AbortController().signal,
    build: DEV_BUILD,
    binaryName: "cloud-controller-manager",
    invocation: "cloud-controller-manager",
    presetProvider: undefined,
  };
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
