/**
 * `@kubernetes/client-node` is a development dependency: its types describe the Kubernetes objects, but a
 * production install (`npm ci --omit=dev`) and the compiled executables do without it. Only tests may import its
 * values (to compare our kubeconfig reader with its own); everywhere else a value import would fail at run time
 * where it is not installed. Biome's noRestrictedImports cannot tell a type import from a value import, so this
 * test does: Bun's transpiler drops type-only imports before listing what a file imports.
 */
import { describe, expect, test } from "bun:test";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const TYPES_ONLY = ["@kubernetes/client-node"];
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Every TypeScript file of the project that is not a test. */
async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const path of new Bun.Glob("**/*.ts").scan({ cwd: ROOT })) {
    if (/^(node_modules|build|dist|\.cache)\//.test(path) || path.includes("/node_modules/")) continue;
    if (path.endsWith(".test.ts") || path.startsWith("test/")) continue;
    files.push(path);
  }
  return files;
}

function valueImports(code: string): string[] {
  return transpiler
    .scanImports(code)
    .map((i) => i.path)
    .filter((p) => TYPES_ONLY.some((m) => p === m || p.startsWith(`${m}/`)));
}

describe("development dependencies", () => {
  test.each([
    ["a type-only import", 'import type { V1Node } from "@kubernetes/client-node";', []],
    ["an inline type import", 'import { type V1Node } from "@kubernetes/client-node";', []],
    ["a value import", 'import { KubeConfig } from "@kubernetes/client-node";', ["@kubernetes/client-node"]],
    ["a re-export", 'export { KubeConfig } from "@kubernetes/client-node";', ["@kubernetes/client-node"]],
    [
      "a dynamic import",
      'await import("@kubernetes/client-node/dist/config.js");',
      ["@kubernetes/client-node/dist/config.js"],
    ],
  ])("the check tells %s", (_name, code, want) => {
    expect(valueImports(code)).toEqual(want);
  });

  test("no source file outside the tests imports a value of @kubernetes/client-node", async () => {
    const files = await sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const file of files) {
      const found = valueImports(await readFile(join(ROOT, file), "utf8"));
      if (found.length > 0) offenders.push(`${file}: ${found.join(", ")} (use 'import type')`);
    }
    expect(offenders).toEqual([]);
  });

  test("README names the Node.js versions package.json's engines allows", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    const lowest = /^>=\s*(\d+)$/.exec(pkg.engines?.node ?? "")?.[1];
    expect(lowest).toBeDefined();
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(`Node.js ${lowest} or newer`);
    expect(readme).toContain(`CI runs on the lowest supported version, Node.js ${lowest}`);
  });

  test("package.json keeps it among the development dependencies", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    for (const name of TYPES_ONLY) {
      expect(pkg.dependencies?.[name]).toBeUndefined();
      expect(pkg.devDependencies?.[name]).toBeDefined();
    }
  });
});

/** What npm reads of a fresh clone: .npmrc too (legacy-peer-deps, without which the lock file would lack peers). */
const NPM_FILES = ["package.json", "package-lock.json", ".npmrc"];

describe("a fresh install", () => {
  // What `npm ci` checks first, on a fresh clone and in CI: the lock file holds exactly what package.json asks for.
  test("npm ci accepts package-lock.json as it is (no drift from package.json)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ccm-npm-ci-"));
    try {
      for (const f of NPM_FILES) await cp(join(ROOT, f), join(dir, f));
      const npm = Bun.spawnSync(
        ["npm", "ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir },
        },
      );
      expect(
        npm.stderr
          .toString()
          .split("\n")
          .filter((l) => l.startsWith("npm error")),
      ).toEqual([]);
      expect(npm.exitCode).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // A fresh clone stays clean after `npm install`: npm would write back a lock file that lacks what it resolves.
  test("npm install leaves package-lock.json as it is", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ccm-npm-install-"));
    try {
      for (const f of NPM_FILES) await cp(join(ROOT, f), join(dir, f));
      const npm = Bun.spawnSync(
        ["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
        { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir } },
      );
      expect(npm.exitCode).toBe(0);
      expect(await readFile(join(dir, "package-lock.json"), "utf8")).toBe(
        await readFile(join(ROOT, "package-lock.json"), "utf8"),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test(".ci/run installs with npm ci and says which Node.js it runs on", async () => {
    const ci = await readFile(join(ROOT, ".ci", "run"), "utf8");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).not.toMatch(/^npm install\b/m);
    expect(ci).toContain("node --version");
  });
});
