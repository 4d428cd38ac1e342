/**
 * The arrows of the layout point down: scripts → cmd → sandbox → controllers → providers → platform → the ground
 * floor (`kube/`, `net/`, `config/`). `FLOORS` says what each top-level folder's files may import from; a relative
 * import that runs back up fails here, naming the file and the import.
 *
 * Test code (`*.test.ts`, `testdata/`, `testing/`, `testing.ts`) may import what its floor's production code may,
 * and also the test beds: the emulators in `sandbox/` and the repository's tooling in `scripts/`. So `sandbox/` is
 * reached from production only by the `sandbox` command (`EXCEPTIONS`), and no provider imports a controller.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");

const GROUND = ["kube", "net", "config"] as const;
const EVERY_FLOOR = ["scripts", "test", "cmd", "sandbox", "controllers", "providers", "platform", ...GROUND];

/** What each top-level folder may import from, besides packages; every folder holding TypeScript has a row. */
const FLOORS: Record<string, readonly string[]> = {
  // The top: the build, bench and test tiers reuse the end-to-end support in test/, which builds with scripts/.
  scripts: EVERY_FLOOR,
  test: EVERY_FLOOR,
  cmd: ["cmd", "controllers", "providers", "platform", ...GROUND],
  sandbox: ["sandbox", "controllers", "providers", "platform", ...GROUND],
  controllers: ["controllers", "providers", "platform", ...GROUND],
  providers: ["providers", "platform", ...GROUND],
  platform: ["platform", ...GROUND],
  kube: GROUND,
  net: ["net", "config"],
  config: ["config"],
};

/** What test code may import beyond its floor. */
const TEST_BEDS = ["sandbox", "scripts"];

/** The only imports past a floor's row, each with its reason. */
const EXCEPTIONS: readonly { file: string; target: string; why: string }[] = [
  {
    file: "cmd/sandbox.ts",
    target: "sandbox/",
    why: "the `sandbox` command checks its flags against the sandbox's names (sandbox/names.ts)",
  },
  {
    file: "cmd/sandbox-parts.ts",
    target: "sandbox/",
    why: "the `sandbox` command runs the emulators, loaded from here only when it runs",
  },
  {
    file: "controllers/permissions.ts",
    target: "deploy/kubernetes/api-calls.json",
    why: "the one list of API calls, kept beside the RBAC manifests it is tested against; data, not code",
  },
];

const isTestCode = (file: string) =>
  file.endsWith(".test.ts") ||
  file.endsWith("/testing.ts") ||
  file.includes("/testdata/") ||
  file.includes("/testing/");

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

/** `file: import` for every import of `file` (relative to the root) that runs past what its floor may use. */
function upwardImports(file: string, source: string): string[] {
  const allowed = FLOORS[file.split("/")[0]!] ?? [];
  const may = isTestCode(file) ? [...allowed, ...TEST_BEDS] : allowed;
  return relativeImports(source)
    .filter((spec) => {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      if (may.includes(target.split("/")[0]!)) return false;
      return !EXCEPTIONS.some((e) => e.file === file && target.startsWith(e.target));
    })
    .map((spec) => `${file}: ${spec}`);
}

/** The tree's TypeScript, as git sees it: tracked and new files, not what .gitignore leaves out (build/, dist/). */
const tsFiles = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "*.ts"], {
  cwd: ROOT,
})
  .stdout.toString()
  .split("\0")
  .filter((f) => f !== "" && !f.split("/").some((part) => part.startsWith(".")) && existsSync(join(ROOT, f)))
  .sort();

describe("every import points down", () => {
  test("every folder holding TypeScript has a row", () => {
    const folders = new Set(tsFiles.map((f) => (f.includes("/") ? f.split("/")[0]! : f)));
    expect([...folders].filter((f) => !(f in FLOORS))).toEqual([]);
  });

  test.each(Object.keys(FLOORS))("%s/", (floor) => {
    const files = tsFiles.filter((f) => f.startsWith(`${floor}/`));
    expect(files.length).toBeGreaterThan(0);
    const upward = files.flatMap((file) => upwardImports(file, readFileSync(join(ROOT, file), "utf8")));
    expect(upward).toEqual([]);
  });

  test("each exception is still needed", () => {
    const unused = EXCEPTIONS.filter((e) =>
      relativeImports(readFileSync(join(ROOT, e.file), "utf8")).every(
        (spec) => !relative(ROOT, normalize(join(ROOT, dirname(e.file), spec))).startsWith(e.target),
      ),
    );
    expect(unused).toEqual([]);
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
      "platform/x.ts",
      'import {\n  a,\n  type B,\n} from "../providers/cloud.ts";',
      ["platform/x.ts: ../providers/cloud.ts"],
    ],
    [
      "a type import of a controller from a provider",
      "providers/a/x.ts",
      'import type { C } from "../../controllers/context.ts";',
      ["providers/a/x.ts: ../../controllers/context.ts"],
    ],
    [
      "a re-export from sandbox/",
      "net/x.ts",
      'export { s } from "../sandbox/cloud/state.ts";',
      ["net/x.ts: ../sandbox/cloud/state.ts"],
    ],
    [
      "a dynamic import from cmd/",
      "controllers/x.ts",
      'export const load = () => import("../cmd/entry.ts");',
      ["controllers/x.ts: ../cmd/entry.ts"],
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
    [
      "a provider using the platform and the ground floor",
      "providers/a/x.ts",
      'import { a } from "../../platform/events.ts";\nimport { b } from "../../kube/clock.ts";',
      [],
    ],
    ["a package", "kube/x.ts", 'import * as v from "valibot";', []],
    [
      "an emulator from a provider's production code",
      "providers/a/x.ts",
      'import { s } from "../../sandbox/hcloud/server.ts";',
      ["providers/a/x.ts: ../../sandbox/hcloud/server.ts"],
    ],
    ["an emulator from a provider's test", "providers/a/x.test.ts", 'import { s } from "../../sandbox/a.ts";', []],
    ["scripts/ from test data", "kube/testdata/pki.ts", 'import { p } from "../../scripts/lib/pki.ts";', []],
    ["sandbox/ from test support", "platform/testing/x.ts", 'import { s } from "../../sandbox/a.ts";', []],
    [
      "a controller from a provider's test",
      "providers/a/x.test.ts",
      'import { c } from "../../controllers/runtime/retry.ts";',
      ["providers/a/x.test.ts: ../../controllers/runtime/retry.ts"],
    ],
    [
      "scripts/ from production code",
      "kube/x.ts",
      'import { p } from "../scripts/lib/pki.ts";',
      ["kube/x.ts: ../scripts/lib/pki.ts"],
    ],
    ["sandbox/ from the sandbox command", "cmd/sandbox.ts", 'import { s } from "../sandbox/kubelets.ts";', []],
    [
      "sandbox/ from another command",
      "cmd/plan.ts",
      'import { s } from "../sandbox/kubelets.ts";',
      ["cmd/plan.ts: ../sandbox/kubelets.ts"],
    ],
    ["anything from an end-to-end test", "test/x.e2e.test.ts", 'import { c } from "../cmd/entry.ts";', []],
  ])("finds %s", (_name, file, source, expected) => {
    expect(upwardImports(file, source)).toEqual(expected);
  });
});
