/**
 * The arrows of the layout point down: cmd → sandbox → controllers → providers → the ground floor (`config/`,
 * `net/`, `kube/`). The ground floor imports only from itself, and within it `config/` imports nothing else and
 * `net/` nothing but `config/`. Its test helpers may also use the repository's tooling in `scripts/lib/`.
 * A relative import that runs back up fails here, naming the file and the import.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** What each ground-floor folder may import from, besides packages. */
const FLOORS: Record<string, readonly string[]> = {
  config: ["config"],
  net: ["config", "net"],
  kube: ["config", "net", "kube"],
};

const TEST_ONLY_TOOLING = "scripts/lib/";

const isTestSupport = (file: string) =>
  file.endsWith(".test.ts") || file.includes("/testdata/") || file.endsWith("/testing.ts");

const transpiler = new Bun.Transpiler({ loader: "ts" });

/**
 * Relative module specifiers of `source`: import and export statements (type-only ones too, which the transpiler
 * drops), read where a statement starts a line, and `import()` calls, found by the transpiler's parser.
 */
function relativeImports(source: string): string[] {
  const statements = [
    /^[ \t]*(?:import|export)\s[^;]*?\bfrom\s*["'](\.[^"']*)["']/gm,
    /^[ \t]*import\s*["'](\.[^"']*)["']/gm,
  ];
  const found = statements.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
  for (const { kind, path } of transpiler.scanImports(source)) {
    if (kind === "dynamic-import" && path.startsWith(".")) found.push(path);
  }
  return found;
}

/** `file: import` for every import of `file` (relative to the root) that leaves what its floor may use. */
function upwardImports(file: string, source: string): string[] {
  const floor = file.split("/")[0]!;
  const allowed = FLOORS[floor] ?? [];
  return relativeImports(source)
    .filter((spec) => {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      if (allowed.includes(target.split("/")[0]!)) return false;
      return !(isTestSupport(file) && target.startsWith(TEST_ONLY_TOOLING));
    })
    .map((spec) => `${file}: ${spec}`);
}

function floorFiles(floor: string): string[] {
  return [...new Bun.Glob(`${floor}/**/*.ts`).scanSync({ cwd: ROOT })].map((f) => f.replaceAll("\\", "/")).sort();
}

describe("the ground floor imports nothing from the floors above", () => {
  test.each(Object.keys(FLOORS))("%s/", (floor) => {
    const files = floorFiles(floor);
    expect(files.length).toBeGreaterThan(0);
    const upward = files.flatMap((file) => upwardImports(file, readFileSync(join(ROOT, file), "utf8")));
    expect(upward).toEqual([]);
  });
});

describe("upwardImports", () => {
  test.each([
    [
      "a named import from providers/",
      "kube/x.ts",
      'import { ConfigError } from "../providers/errors.ts";',
      ["kube/x.ts: ../providers/errors.ts"],
    ],
    [
      "an import that spans lines",
      "kube/x.ts",
      'import {\n  a,\n  type B,\n} from "../providers/cloud.ts";',
      ["kube/x.ts: ../providers/cloud.ts"],
    ],
    [
      "a type import from controllers/",
      "kube/a/x.ts",
      'import type { C } from "../../controllers/context.ts";',
      ["kube/a/x.ts: ../../controllers/context.ts"],
    ],
    [
      "a re-export from sandbox/",
      "net/x.ts",
      'export { s } from "../sandbox/cloud/state.ts";',
      ["net/x.ts: ../sandbox/cloud/state.ts"],
    ],
    [
      "a dynamic import from cmd/",
      "kube/x.ts",
      'export const load = () => import("../cmd/entry.ts");',
      ["kube/x.ts: ../cmd/entry.ts"],
    ],
    [
      "a side-effect import from providers/",
      "config/x.ts",
      'import "../providers/all.ts";',
      ["config/x.ts: ../providers/all.ts"],
    ],
    [
      "net/ reaching over to kube/",
      "net/x.ts",
      'import { a } from "../kube/objects.ts";',
      ["net/x.ts: ../kube/objects.ts"],
    ],
    [
      "kube/ using config/ and net/",
      "kube/x.ts",
      'import { a } from "../config/errors.ts";\nimport { b } from "../net/ip.ts";',
      [],
    ],
    ["a package", "kube/x.ts", 'import * as v from "valibot";', []],
    ["scripts/lib/ from test data", "kube/testdata/pki.ts", 'import { p } from "../../scripts/lib/pki.ts";', []],
    [
      "scripts/lib/ from production code",
      "kube/x.ts",
      'import { p } from "../scripts/lib/pki.ts";',
      ["kube/x.ts: ../scripts/lib/pki.ts"],
    ],
  ])("finds %s", (_name, file, source, expected) => {
    expect(upwardImports(file, source)).toEqual(expected);
  });
});
