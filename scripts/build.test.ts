import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { entrySource, npmConfigLeftovers, PROM_CLIENT_EXPORTS, promClientCoreSource } from "./build.ts";

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

describe("prom-client in the executables", () => {
  const root = join(import.meta.dir, "..");

  test("every value the compiled code imports from prom-client is one the build re-exports", async () => {
    const imported = new Set<string>();
    for (const dir of ["cmd", "sandbox", "controllers", "providers", "platform", "kube", "net", "config"]) {
      for await (const file of new Bun.Glob(`${dir}/**/*.ts`).scan({ cwd: root })) {
        if (file.endsWith(".test.ts")) continue;
        const text = await Bun.file(join(root, file)).text();
        for (const m of text.matchAll(/import\s+(?!type\b)\{([^}]*)\}\s+from\s+"prom-client"/g)) {
          for (const part of (m[1] as string).split(",")) {
            const name = part.trim();
            if (name && !name.startsWith("type ")) imported.add(name.split(/\s+as\s+/)[0] as string);
          }
        }
      }
    }
    expect(imported.size).toBeGreaterThan(0);
    expect([...imported].filter((name) => !(name in PROM_CLIENT_EXPORTS))).toEqual([]);
  });

  test("the module the build substitutes re-exports each class from a file that exists", () => {
    const source = promClientCoreSource(root);
    const paths = [...source.matchAll(/from "([^"]+)"/g)].map((m) => m[1] as string);
    expect(paths).toHaveLength(Object.keys(PROM_CLIENT_EXPORTS).length);
    for (const path of paths) expect(existsSync(path)).toBe(true);
  });
});

describe("the executables' generated entries", () => {
  const main = { binaryName: "x" };
  test("the all-in-one names each provider lazily, so only the chosen one is evaluated", () => {
    const source = entrySource(["hcloud", "proxmox"], main, true);
    expect(source).toContain(
      `globalRegistry.registerLazily("hcloud", () => import("../../providers/hcloud/index.ts"));`,
    );
    expect(source).toContain(
      `globalRegistry.registerLazily("proxmox", () => import("../../providers/proxmox/index.ts"));`,
    );
    expect(source).not.toMatch(/^import "\.\.\/\.\.\/providers\//m);
    expect(source).toContain("allInOneSubcommands");
  });

  test("a provider's own executable imports its providers at start", () => {
    const source = entrySource(["hcloud", "metal"], main, false);
    expect(source).toContain(`import "../../providers/hcloud/index.ts";`);
    expect(source).toContain(`import "../../providers/metal/index.ts";`);
    expect(source).not.toContain("registerLazily");
    expect(source).toContain("providerSubcommands");
  });
});
