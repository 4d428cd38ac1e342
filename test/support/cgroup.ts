/**
 * A child memory cgroup of the test process's own, for a test that runs an executable under a container's memory
 * limit: cgroup v1 (the `memory` hierarchy, `memory.limit_in_bytes`) or v2 (`memory.max`), found from
 * /proc/self/cgroup and /proc/self/mountinfo. The parsing is pure (tests in ./cgroup.test.ts); the files are read and
 * written by `createMemoryCgroup` and the handle it returns.
 *
 * Kernel interface: Documentation/admin-guide/cgroup-v1/memory.rst and Documentation/admin-guide/cgroup-v2.rst.
 */
import { access, chmod, constants, copyFile, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";

/** No memory cgroup this process may create a child of; `message` says what is missing. */
export class CgroupUnavailableError extends Error {
  override readonly name = "CgroupUnavailableError";
}

/** The lines of /proc/<pid>/cgroup: `<id>:<controllers>:<path>`; v2's is `0::<path>`. */
export function parseProcCgroup(text: string): { v1Memory?: string; v2?: string } {
  const out: { v1Memory?: string; v2?: string } = {};
  for (const line of text.split("\n")) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, id, controllers = "", path = ""] = m;
    if (id === "0" && controllers === "") out.v2 = path;
    else if (controllers.split(",").includes("memory")) out.v1Memory = path;
  }
  return out;
}

export interface Mount {
  /** The path inside the filesystem mounted (for a cgroup mount, the cgroup shown at the mount point). */
  readonly root: string;
  readonly mountPoint: string;
  readonly fsType: string;
  readonly superOptions: readonly string[];
}

/** Octal escapes mountinfo writes for space, tab, newline and backslash in paths. */
const unescapeOctal = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** /proc/<pid>/mountinfo: `id parent major:minor root mountpoint options [optional…] - fstype source superoptions`. */
export function parseMountinfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(" ");
    const dash = fields.indexOf("-");
    if (dash < 6 || fields.length < dash + 4) continue;
    out.push({
      root: unescapeOctal(fields[3] ?? ""),
      mountPoint: unescapeOctal(fields[4] ?? ""),
      fsType: fields[dash + 1] ?? "",
      superOptions: (fields[dash + 3] ?? "").split(","),
    });
  }
  return out;
}

export interface MemoryCgroupLocation {
  readonly version: 1 | 2;
  /** The process's own memory cgroup, as a directory of the mounted cgroup filesystem. */
  readonly dir: string;
}

/**
 * Where the process's memory cgroup is mounted: v1's `memory` hierarchy when the process has one, else the v2
 * hierarchy; a reason when neither is mounted here or the process's cgroup lies outside the mount's root.
 */
export function locateMemoryCgroup(procCgroup: string, mountinfo: string): MemoryCgroupLocation | { missing: string } {
  const own = parseProcCgroup(procCgroup);
  const mounts = parseMountinfo(mountinfo);
  const within = (mount: Mount, path: string): string | undefined => {
    const rel = posix.relative(mount.root, path);
    return rel.startsWith("..") ? undefined : join(mount.mountPoint, rel);
  };
  if (own.v1Memory !== undefined) {
    const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("memory"));
    if (!mount) return { missing: `the cgroup v1 memory hierarchy (/proc/self/cgroup names it) is not mounted` };
    const dir = within(mount, own.v1Memory);
    if (dir === undefined) {
      return {
        missing: `the memory cgroup ${own.v1Memory} lies outside the mounted ${mount.root} (${mount.mountPoint})`,
      };
    }
    return { version: 1, dir };
  }
  if (own.v2 !== undefined) {
    const mount = mounts.find((m) => m.fsType === "cgroup2");
    if (!mount) return { missing: "no cgroup v1 memory hierarchy, and the cgroup v2 hierarchy is not mounted" };
    const dir = within(mount, own.v2);
    if (dir === undefined) {
      return { missing: `the cgroup ${own.v2} lies outside the mounted ${mount.root} (${mount.mountPoint})` };
    }
    return { version: 2, dir };
  }
  return { missing: "/proc/self/cgroup names neither a cgroup v1 memory hierarchy nor a cgroup v2 one" };
}

/** `key value` lines (v1's memory.oom_control, v2's memory.events) as numbers. */
export function parseKeyedCounts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^(\w+)\s+(\d+)$/.exec(line.trim());
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

export interface MemoryCgroupStats {
  readonly version: 1 | 2;
  /** The peak of the cgroup's usage (page cache included); undefined on a v2 kernel before 5.19 (no memory.peak). */
  readonly peakBytes: number | undefined;
  /** Where the name of the peak figure comes from, for the log line. */
  readonly peakSource: string;
  /** Times usage met the limit: v1's memory.failcnt, v2's `max` event. */
  readonly failcnt: number;
  /** Processes the kernel's OOM killer ended in this cgroup. */
  readonly oomKills: number;
  /** Now, from memory.stat: anonymous memory (v1's `rss`, v2's `anon`) and page cache (`cache`, `file`). */
  readonly anonBytes: number;
  readonly fileBytes: number;
}

export interface MemoryCgroup {
  readonly version: 1 | 2;
  readonly dir: string;
  /** `command` run so that its process lives in the cgroup from its first byte: `sh` joins it, then execs. */
  wrap(command: readonly string[]): string[];
  stats(): Promise<MemoryCgroupStats>;
  /** Removes the cgroup, retrying while its tasks are still being reaped (rmdir answers EBUSY). */
  remove(): Promise<void>;
}

const readNumber = async (file: string): Promise<number> => {
  const text = (await readFile(file, "utf8")).trim();
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`${file}: not a number: ${JSON.stringify(text)}`);
  return n;
};

const counter = (counts: Record<string, number>, key: string, file: string): number => {
  const n = counts[key];
  if (n === undefined) throw new Error(`${file} has no "${key}" line (a kernel older than the test expects)`);
  return n;
};

const exists = (file: string) =>
  access(file, constants.F_OK).then(
    () => true,
    () => false,
  );

/** The handle of a cgroup already made at `dir`; `remove` retries for up to `removeTimeoutMs`. */
export function memoryCgroupAt(version: 1 | 2, dir: string, removeTimeoutMs = 10_000): MemoryCgroup {
  return {
    version,
    dir,
    wrap: (command) => [
      "sh",
      "-c",
      'echo $$ > "$1" && shift && exec "$@"',
      "sh",
      join(dir, "cgroup.procs"),
      ...command,
    ],
    async stats() {
      const statFile = join(dir, "memory.stat");
      const stat = parseKeyedCounts(await readFile(statFile, "utf8"));
      if (version === 1) {
        const oom = join(dir, "memory.oom_control");
        return {
          anonBytes: counter(stat, "rss", statFile),
          fileBytes: counter(stat, "cache", statFile),
          version,
          peakBytes: await readNumber(join(dir, "memory.max_usage_in_bytes")),
          peakSource: "memory.max_usage_in_bytes",
          failcnt: await readNumber(join(dir, "memory.failcnt")),
          oomKills: counter(parseKeyedCounts(await readFile(oom, "utf8")), "oom_kill", oom),
        };
      }
      const eventsFile = join(dir, "memory.events");
      const events = parseKeyedCounts(await readFile(eventsFile, "utf8"));
      const peak = join(dir, "memory.peak");
      return {
        anonBytes: counter(stat, "anon", statFile),
        fileBytes: counter(stat, "file", statFile),
        version,
        peakBytes: (await exists(peak)) ? await readNumber(peak) : undefined,
        peakSource: "memory.peak",
        failcnt: counter(events, "max", eventsFile),
        oomKills: counter(events, "oom_kill", eventsFile),
      };
    },
    async remove() {
      const deadline = Date.now() + removeTimeoutMs;
      for (;;) {
        try {
          await rmdir(dir);
          return;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT") return;
          if (code !== "EBUSY" || Date.now() > deadline) {
            throw new Error(`cgroup: removing ${dir}: ${(err as Error).message}`, { cause: err });
          }
          await Bun.sleep(100);
        }
      }
    },
  };
}

/**
 * Makes `<own memory cgroup>/<name>` with its memory limit at `limitBytes` and swap off (as a container runtime
 * sets it for a Kubernetes limit); throws `CgroupUnavailableError` naming what this machine lacks.
 */
export async function createMemoryCgroup(name: string, limitBytes: number): Promise<MemoryCgroup> {
  const where = locateMemoryCgroup(
    await readFile("/proc/self/cgroup", "utf8"),
    await readFile("/proc/self/mountinfo", "utf8"),
  );
  if ("missing" in where) throw new CgroupUnavailableError(where.missing);
  const dir = join(where.dir, name);
  const step = async (what: string, act: () => Promise<unknown>) => {
    try {
      await act();
    } catch (err) {
      throw new CgroupUnavailableError(`${what}: ${(err as Error).message}`, { cause: err });
    }
  };
  if (where.version === 2) {
    const controllers = await readFile(join(where.dir, "cgroup.controllers"), "utf8").catch(() => "");
    if (!controllers.split(/\s+/).includes("memory")) {
      throw new CgroupUnavailableError(
        `the memory controller is not delegated to this process's cgroup v2 ${where.dir} (cgroup.controllers: "${controllers.trim()}")`,
      );
    }
  }
  await step(`creating the memory cgroup ${dir} (cgroup v${where.version})`, () => mkdir(dir));
  const cgroup = memoryCgroupAt(where.version, dir);
  try {
    if (where.version === 1) {
      await step("setting memory.limit_in_bytes", () => writeFile(join(dir, "memory.limit_in_bytes"), `${limitBytes}`));
      const memsw = join(dir, "memory.memsw.limit_in_bytes");
      if (await exists(memsw))
        await step("setting memory.memsw.limit_in_bytes", () => writeFile(memsw, `${limitBytes}`));
    } else {
      // A v2 cgroup gets memory.max only once its parent's subtree_control enables memory; that fails (EBUSY) for a
      // parent that has processes of its own, the "no internal processes" rule.
      if (!(await exists(join(dir, "memory.max")))) {
        await step(`enabling +memory in ${join(where.dir, "cgroup.subtree_control")}`, () =>
          writeFile(join(where.dir, "cgroup.subtree_control"), "+memory"),
        );
      }
      await step("setting memory.max", () => writeFile(join(dir, "memory.max"), `${limitBytes}`));
      const swap = join(dir, "memory.swap.max");
      if (await exists(swap)) await step("setting memory.swap.max", () => writeFile(swap, "0"));
    }
  } catch (err) {
    await cgroup.remove().catch(() => undefined);
    throw err;
  }
  return cgroup;
}

/**
 * Copies `source` to `target` and drops the copy's pages from the page cache (written back, then
 * `posix_fadvise(DONTNEED)` through GNU dd's `iflag=nocache`), so the first process to read it, not the copier,
 * is charged for them: what a container that reads its executable from disk is charged. On a filesystem whose pages
 * cannot be dropped (tmpfs) they stay charged to the copier's cgroup.
 */
export async function copyUncached(source: string, target: string): Promise<void> {
  await copyFile(source, target);
  await chmod(target, 0o755);
  for (const cmd of [
    ["sync", target],
    ["dd", `if=${target}`, "iflag=nocache", "count=0", "status=none"],
  ]) {
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code !== 0)
      throw new Error(`dropping ${target} from the page cache: ${cmd.join(" ")}: exit ${code}: ${stderr}`);
  }
}
