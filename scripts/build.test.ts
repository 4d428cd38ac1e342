import { describe, expect, test } from "bun:test";
import { npmConfigLeftovers } from "./build.ts";

const npm = (config: Record<string, string>) => ({ npm_lifecycle_event: "build", ...config });

describe("npm run build without --", () => {
  test.each([
    [
      "options npm kept for itself name the command meant",
      [],
      npm({ npm_config_target: "linux-x64", npm_config_provider: "acme", npm_config_all_in_one: "" }),
      'npm kept --target=linux-x64 --provider=acme --no-all-in-one for itself (options before "--" are npm\'s); run: npm run build -- --target=linux-x64 --provider=acme --no-all-in-one',
    ],
    [
      "options after -- are kept in the command meant",
      ["--version=v1.2.3"],
      npm({ npm_config_outdir: "/tmp/out" }),
      'npm kept --outdir=/tmp/out for itself (options before "--" are npm\'s); run: npm run build -- --outdir=/tmp/out --version=v1.2.3',
    ],
    [
      "an option also given after -- is the build's own",
      ["--target=linux-arm64"],
      npm({ npm_config_target: "linux-x64" }),
      undefined,
    ],
    ["--all-in-one (true) changes nothing", [], npm({ npm_config_all_in_one: "true" }), undefined],
    ["no npm config: nothing to say", ["--target=linux-x64"], npm({}), undefined],
    ["run without npm, stray variables are not npm's", [], { npm_config_target: "linux-x64" }, undefined],
  ])("%s", (_name, argv, env, want) => {
    expect(npmConfigLeftovers(argv, env)).toBe(want);
  });
});
