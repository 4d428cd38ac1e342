import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { cycloneDx, type Lockfile, npmPurl, runtimePackages, sbomFor } from "./sbom.ts";

const ROOT = resolve(import.meta.dir, "..");

const lock = (packages: Lockfile["packages"]): Lockfile => ({ lockfileVersion: 3, packages });

describe("the SBOM's components", () => {
  test.each([
    [
      "the root's dependencies and theirs, not development ones",
      lock({
        "": { dependencies: { a: "1" }, devDependencies: { d: "1" } } as never,
        "node_modules/a": { version: "1.0.0", dependencies: { b: "^2" } },
        "node_modules/b": { version: "2.1.0" },
        "node_modules/d": { version: "9.0.0", dev: true },
      }),
      ["node_modules/a", "node_modules/b"],
    ],
    [
      "a nested copy where npm put one",
      lock({
        "": { dependencies: { a: "1", b: "1" } },
        "node_modules/a": { version: "1.0.0", dependencies: { b: "^2" } },
        "node_modules/a/node_modules/b": { version: "2.0.0" },
        "node_modules/b": { version: "1.0.0" },
      }),
      ["node_modules/a", "node_modules/a/node_modules/b", "node_modules/b"],
    ],
    [
      "an optional dependency only when installed",
      lock({
        "": { dependencies: { a: "1" } },
        "node_modules/a": { version: "1.0.0", optionalDependencies: { gone: "1", here: "1" } },
        "node_modules/here": { version: "1.0.0" },
      }),
      ["node_modules/a", "node_modules/here"],
    ],
  ])("are %s", (_name, l, keys) => {
    expect(runtimePackages(l)).toEqual(keys);
  });

  test.each([
    [lock({ "": { dependencies: { a: "1" } } }), /a \(needed by the project\) is not in the lock; run npm install/],
    [{ lockfileVersion: 1, packages: {} }, /lockfileVersion 2 or 3 needed/],
  ])("refuses a lock it cannot read fully (%#)", (l, message) => {
    expect(() => runtimePackages(l as Lockfile)).toThrow(message);
  });

  test.each([
    ["consola", "3.4.2", "pkg:npm/consola@3.4.2"],
    ["@opentelemetry/api", "1.9.0", "pkg:npm/%40opentelemetry/api@1.9.0"],
  ])("names %s %s by its package URL %s", (name, version, purl) => {
    expect(npmPurl(name, version)).toBe(purl);
  });

  test("carries versions, licences (ids or expressions), SHA-512 hashes and the dependency graph", () => {
    const bom = cycloneDx(
      lock({
        "": { dependencies: { a: "1" } },
        "node_modules/a": {
          version: "1.0.0",
          license: "MIT",
          integrity: `sha512-${Buffer.from("abc").toString("base64")}`,
          dependencies: { b: "1" },
        },
        "node_modules/b": { version: "1.0.0", license: "(MIT OR Apache-2.0)" },
      }),
      "1.4.5",
      { name: "ccm", version: "v1", timestamp: "2026-01-01T00:00:00.000Z" },
    ) as { components: Record<string, unknown>[]; dependencies: unknown[] };
    expect(bom.components).toEqual([
      expect.objectContaining({
        name: "a",
        version: "1.0.0",
        licenses: [{ license: { id: "MIT" } }],
        hashes: [{ alg: "SHA-512", content: "616263" }],
      }),
      expect.objectContaining({ name: "b", licenses: [{ expression: "(MIT OR Apache-2.0)" }], hashes: [] }),
      expect.objectContaining({ name: "bun", version: "1.4.5", type: "framework" }),
    ]);
    expect(bom.dependencies).toEqual([
      { ref: "pkg:generic/ccm@v1", dependsOn: ["pkg:npm/a@1.0.0", "pkg:generic/bun@1.4.5"] },
      { ref: "pkg:npm/a@1.0.0", dependsOn: ["pkg:npm/b@1.0.0"] },
      { ref: "pkg:npm/b@1.0.0", dependsOn: [] },
      { ref: "pkg:generic/bun@1.4.5", dependsOn: [] },
    ]);
  });
});

test("the project's SBOM lists its runtime dependencies with the lock's versions and licences, and no dev one", async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const bom = JSON.parse(await sbomFor(ROOT, { name: "ccm", version: "v0", timestamp: "2026-01-01T00:00:00Z" })) as {
    bomFormat: string;
    specVersion: string;
    components: { name: string; version: string; licenses: unknown[] }[];
  };
  expect([bom.bomFormat, bom.specVersion]).toEqual(["CycloneDX", "1.5"]);
  const names = bom.components.map((c) => c.name);
  for (const [name, version] of Object.entries(pkg.dependencies))
    expect(bom.components.find((c) => c.name === name)?.version).toBe(version);
  for (const name of Object.keys(pkg.devDependencies).filter((n) => n !== "bun")) expect(names).not.toContain(name);
  expect(bom.components.filter((c) => c.licenses.length === 0).map((c) => c.name)).toEqual([]);
});
