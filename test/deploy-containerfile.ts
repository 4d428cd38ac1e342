/**
 * Reads deploy/container/Containerfile the way a builder would — stages, ARGs, COPY lines — and lays the image's
 * root out as a folder, so tests check and run exactly what the COPY lines put in the image. Only the plain forms
 * the Containerfile uses are understood (`COPY [--from=stage] src... dest`, `FROM image|stage [AS name]`); anything
 * else in a stage the image is made of is an error, so the file cannot grow a form this reader would misread.
 *
 * Stand-ins: a stage FROM the Debian image is this machine's own file system (a Debian bookworm too), and
 * `dist/` is the folder of the host executables the tests use. The one file a Debian stage's RUN makes that this
 * machine lacks, a package's dpkg record in /var/lib/dpkg/status.d/, is what `dpkg-query -s <package>` prints here,
 * its architecture set to the image's (the RUN line does the same).
 */
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";

export const CONTAINERFILE = resolve(import.meta.dir, "..", "deploy", "container", "Containerfile");
const ROOT = resolve(import.meta.dir, "..");

export interface CopyLine {
  readonly from: string | undefined;
  readonly sources: readonly string[];
  readonly dest: string;
}

export interface Stage {
  readonly base: string;
  readonly name: string | undefined;
  readonly platform: string | undefined;
  readonly copies: CopyLine[];
  readonly instructions: string[];
  /** `ENV NAME=value` settings, in order. */
  readonly env: [string, string][];
  /** `LABEL name="value" …` settings, in order. */
  readonly labels: [string, string][];
  user: string | undefined;
  entrypoint: string | undefined;
}

export interface Containerfile {
  /** Global ARGs (before the first FROM) with their defaults. */
  readonly args: ReadonlyMap<string, string>;
  readonly stages: readonly Stage[];
}

/** One entry per logical line: continuations joined, comments and blank lines dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push(pending + line);
    pending = "";
  }
  if (pending) out.push(pending.trim());
  return out;
}

export function parseContainerfile(text: string): Containerfile {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [keyword = "", ...rest] = line.split(/\s+/);
    const instruction = keyword.toUpperCase();
    const stage = stages.at(-1);
    if (instruction === "FROM") {
      const platform = rest[0]?.startsWith("--platform=") ? rest.shift()?.slice("--platform=".length) : undefined;
      const [base = "", as, name] = rest;
      stages.push({
        base,
        name: as?.toUpperCase() === "AS" ? name : undefined,
        platform,
        copies: [],
        instructions: [],
        env: [],
        labels: [],
        user: undefined,
        entrypoint: undefined,
      });
      continue;
    }
    if (!stage) {
      if (instruction !== "ARG") throw new Error(`Containerfile: ${instruction} before the first FROM`);
      const [name = "", value = ""] = (rest[0] ?? "").split(/=(.*)/s);
      args.set(name, value);
      continue;
    }
    stage.instructions.push(instruction);
    if (instruction === "USER") stage.user = rest.join(" ");
    if (instruction === "ENV") {
      for (const pair of rest) {
        const [name = "", value = ""] = pair.split(/=(.*)/s);
        stage.env.push([name, value]);
      }
    }
    if (instruction === "ENTRYPOINT") stage.entrypoint = rest.join(" ");
    if (instruction === "LABEL") {
      const text = line.slice(keyword.length);
      for (const m of text.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
        const raw = m[2] ?? "";
        stage.labels.push([m[1] ?? "", raw.startsWith('"') ? (JSON.parse(raw) as string) : raw]);
      }
    }
    if (instruction === "COPY") {
      const from = rest[0]?.startsWith("--from=") ? rest.shift()?.slice("--from=".length) : undefined;
      if (rest.some((r) => r.startsWith("--"))) throw new Error(`Containerfile: unsupported COPY option in: ${line}`);
      const dest = rest.pop() ?? "";
      stage.copies.push({ from, sources: rest, dest });
    }
  }
  return { args, stages };
}

export const expand = (s: string, values: ReadonlyMap<string, string>): string =>
  s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b) as string;
    const value = values.get(name);
    if (value === undefined) throw new Error(`Containerfile: no value for \${${name}}`);
    return value;
  });

/** The image's architecture name (TARGETARCH) for this machine. */
export const hostImageArch = (): string => ({ x64: "amd64", arm64: "arm64" })[process.arch as "x64"] ?? process.arch;

export interface RootFile {
  /** Path inside the image. */
  readonly path: string;
  /** Where the test takes it from. */
  readonly source: string;
  /** The stage or context it comes from: a stage name, or "context". */
  readonly from: string;
  /** The image's architecture (TARGETARCH). */
  readonly arch?: string;
}

const DPKG_RECORDS = "/var/lib/dpkg/status.d/";

/** The environment of the final image: its stages' ENV settings, down its FROM chain. */
export function imageEnv(cf: Containerfile, arch: string): Record<string, string> {
  const values = new Map([...cf.args, ["TARGETARCH", arch]]);
  const byName = new Map(cf.stages.filter((s) => s.name).map((s) => [s.name as string, s]));
  const chain: Stage[] = [];
  for (let s = cf.stages.at(-1); s; s = byName.get(expand(s.base, values))) chain.unshift(s);
  return Object.fromEntries(chain.flatMap((s) => s.env));
}

/** The final image's labels for `arch`, its build ARGs expanded (`args` override the Containerfile's defaults). */
export function imageLabels(
  cf: Containerfile,
  arch: string,
  args: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const values = new Map([...cf.args, ["TARGETARCH", arch], ...Object.entries(args)]);
  const byName = new Map(cf.stages.filter((s) => s.name).map((s) => [s.name as string, s]));
  const chain: Stage[] = [];
  for (let s = cf.stages.at(-1); s; s = byName.get(expand(s.base, values))) chain.unshift(s);
  return Object.fromEntries(chain.flatMap((s) => s.labels.map(([k, v]) => [k, expand(v, values)])));
}

/** The files of the final image for `arch`, following its FROM chain down to scratch. */
export function imageFiles(cf: Containerfile, arch: string, distDir: string): RootFile[] {
  const values = new Map([...cf.args, ["TARGETARCH", arch], ["BUILDPLATFORM", `linux/${arch}`]]);
  const byName = new Map(cf.stages.filter((s) => s.name).map((s) => [s.name as string, s]));
  const isImage = (s: Stage) => !byName.has(expand(s.base, values)) && expand(s.base, values) !== "scratch";
  const debianStages = new Set(cf.stages.filter((s) => s.name && isImage(s)).map((s) => s.name));
  const files: RootFile[] = [];
  const collect = (stage: Stage, seen: Set<Stage>): void => {
    if (seen.has(stage)) throw new Error("Containerfile: FROM cycle");
    seen.add(stage);
    const base = expand(stage.base, values);
    const parent = byName.get(base);
    if (parent) collect(parent, seen);
    else if (base !== "scratch") throw new Error(`Containerfile: the image must be built FROM scratch, found ${base}`);
    const other = stage.instructions.filter((i) => !["ARG", "COPY", "ENV", "LABEL", "USER", "ENTRYPOINT"].includes(i));
    if (other.length > 0) throw new Error(`Containerfile: an image stage may only COPY, found ${other.join(", ")}`);
    for (const copy of stage.copies) {
      const from = copy.from ?? "context";
      if (copy.from && !debianStages.has(copy.from)) throw new Error(`Containerfile: unknown --from=${copy.from}`);
      const dest = expand(copy.dest, values);
      if (copy.sources.length > 1 && !dest.endsWith("/")) throw new Error(`Containerfile: ${dest} must end in /`);
      for (const raw of copy.sources) {
        const src = expand(raw, values);
        const path = dest.endsWith("/") ? join(dest, basename(src)) : dest;
        const source = copy.from ? src : src.startsWith("dist/") ? join(distDir, src.slice(5)) : join(ROOT, src);
        files.push({ path, source, from, arch });
      }
    }
  };
  const final = cf.stages.at(-1);
  if (!final) throw new Error("Containerfile: no stage");
  collect(final, new Set());
  return files;
}

/** Copies `files` into `root` (symlinks followed, modes kept, as COPY does); `root` itself is made 0755. */
export async function layOut(root: string, files: readonly RootFile[]): Promise<void> {
  await chmod(root, 0o755);
  for (const f of files) {
    const target = join(root, f.path);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    if (f.from !== "context" && f.source.startsWith(DPKG_RECORDS) && !existsSync(f.source)) {
      await writeFile(target, dpkgRecord(basename(f.source), f.arch ?? hostImageArch()), { mode: 0o644 });
      continue;
    }
    await copyFile(f.source, target);
    await chmod(target, (await stat(f.source)).mode & 0o7777);
  }
}

/** This machine's dpkg record of `pkg`, with `arch` for an architecture-specific package (as the RUN line makes it). */
function dpkgRecord(pkg: string, arch: string): string {
  const r = Bun.spawnSync(["dpkg-query", "-s", pkg], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`dpkg-query -s ${pkg}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString().replace(/^Architecture: (?!all$).*$/m, `Architecture: ${arch}`);
}

/** Every regular file under `root`, as image paths. */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() || entry.isSymbolicLink()) out.push(`/${relative(root, join(entry.parentPath, entry.name))}`);
  }
  return out.sort();
}
