/**
 * The executables' software bill of materials, CycloneDX 1.5 JSON, written by `npm run build` as
 * `dist/sbom.cdx.json` and copied into the container image (image scanners such as Trivy and Grype read
 * `*.cdx.json` files they find in an image).
 *
 * What it lists is what `bun build --compile` puts in an executable: the npm packages reachable from
 * package.json's `dependencies` through package-lock.json (development dependencies, `@kubernetes/client-node`
 * among them, stay out: test/dev-dependencies.test.ts keeps them out of the executables), each with its version,
 * licence, npm package URL and the lock's integrity hash; plus the Bun runtime the executable carries. Read offline
 * from the lock: no registry call, and the same lock gives the same components.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

interface LockPackage {
  readonly version?: string;
  readonly license?: string;
  readonly integrity?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly dev?: boolean;
}

export interface Lockfile {
  readonly lockfileVersion: number;
  readonly packages: Readonly<Record<string, LockPackage>>;
}

export interface SbomOptions {
  readonly name: string;
  readonly version: string;
  /** ISO time of the build. */
  readonly timestamp: string;
}

/** A package's npm package URL (`pkg:npm/%40scope/name@1.0.0`). */
export const npmPurl = (name: string, version: string): string =>
  `pkg:npm/${name.startsWith("@") ? `%40${name.slice(1)}` : name}@${version}`;

/** Where npm resolves `name` required from the package at `from` (a lock key): nested first, then up the tree. */
function resolveIn(lock: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const key = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (dir === "") return undefined;
    const up = dir.lastIndexOf("/node_modules/");
    dir = up < 0 ? "" : dir.slice(0, up);
  }
}

const nameOfKey = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);

function licenses(spdx: string | undefined): unknown[] {
  if (!spdx) return [];
  return /\s(OR|AND|WITH)\s|[()]/.test(spdx) ? [{ expression: spdx }] : [{ license: { id: spdx } }];
}

function sha512Hex(integrity: string | undefined): { alg: string; content: string }[] {
  const sri = integrity?.split(/\s+/).find((h) => h.startsWith("sha512-"));
  return sri ? [{ alg: "SHA-512", content: Buffer.from(sri.slice(7), "base64").toString("hex") }] : [];
}

/** The runtime packages (lock keys) reachable from the root's `dependencies`, sorted. */
export function runtimePackages(lock: Lockfile): string[] {
  if (lock.lockfileVersion < 2) throw new Error("package-lock.json: lockfileVersion 2 or 3 needed (npm 7 or later)");
  const root = lock.packages[""];
  const seen = new Set<string>();
  const visit = (from: string, deps: Readonly<Record<string, string>> | undefined, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      const key = resolveIn(lock, from, name);
      if (!key) {
        if (optional) continue;
        throw new Error(
          `package-lock.json: ${name} (needed by ${from || "the project"}) is not in the lock; run npm install`,
        );
      }
      if (seen.has(key)) continue;
      seen.add(key);
      const pkg = lock.packages[key] ?? {};
      visit(key, pkg.dependencies, false);
      visit(key, pkg.optionalDependencies, true);
    }
  };
  visit("", root?.dependencies, false);
  return [...seen].sort();
}

export function cycloneDx(lock: Lockfile, bunVersion: string, o: SbomOptions): Record<string, unknown> {
  const keys = runtimePackages(lock);
  const refOf = new Map(keys.map((k) => [k, npmPurl(nameOfKey(k), lock.packages[k]?.version ?? "0.0.0")]));
  const rootRef = `pkg:generic/${o.name}@${o.version}`;
  const bunRef = `pkg:generic/bun@${bunVersion}`;
  const components = [
    ...keys.map((k) => {
      const pkg = lock.packages[k] ?? {};
      const ref = refOf.get(k) as string;
      return {
        type: "library",
        "bom-ref": ref,
        name: nameOfKey(k),
        version: pkg.version,
        purl: ref,
        licenses: licenses(pkg.license),
        hashes: sha512Hex(pkg.integrity),
      };
    }),
    {
      type: "framework",
      "bom-ref": bunRef,
      name: "bun",
      version: bunVersion,
      purl: bunRef,
      description: "The JavaScript runtime compiled into the executable (bun build --compile).",
      licenses: licenses("MIT"),
    },
  ];
  const dependsOn = (k: string) =>
    [...Object.keys(lock.packages[k]?.dependencies ?? {}), ...Object.keys(lock.packages[k]?.optionalDependencies ?? {})]
      .map((n) => resolveIn(lock, k, n))
      .filter((d): d is string => d !== undefined)
      .map((d) => refOf.get(d) as string);
  const direct = Object.keys(lock.packages[""]?.dependencies ?? {}).map((n) => refOf.get(resolveIn(lock, "", n) ?? ""));
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: {
      timestamp: o.timestamp,
      tools: { components: [{ type: "application", name: "scripts/sbom.ts" }] },
      component: { type: "application", "bom-ref": rootRef, name: o.name, version: o.version, purl: rootRef },
    },
    components,
    dependencies: [
      { ref: rootRef, dependsOn: [...direct.filter((d): d is string => d !== undefined), bunRef] },
      ...keys.map((k) => ({ ref: refOf.get(k) as string, dependsOn: dependsOn(k) })),
      { ref: bunRef, dependsOn: [] },
    ],
  };
}

/** Reads package-lock.json under `root` and returns the SBOM text. */
export async function sbomFor(root: string, o: SbomOptions): Promise<string> {
  const lock = JSON.parse(await readFile(join(root, "package-lock.json"), "utf8")) as Lockfile;
  return `${JSON.stringify(cycloneDx(lock, Bun.version, o), null, 2)}\n`;
}
