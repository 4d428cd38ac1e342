import { describe, expect, test } from "bun:test";
import {
  locateMemoryCgroup,
  type MemoryCgroupLocation,
  memoryCgroupAt,
  parseKeyedCounts,
  parseMountinfo,
  parseProcCgroup,
} from "./cgroup.ts";

// A hybrid host as Debian's systemd sets it up: v1 hierarchies, v2 mounted at /sys/fs/cgroup/unified.
const HYBRID_MOUNTS = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate",
].join("\n");
const V2_MOUNTS =
  "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot";
// A container without its own cgroup namespace: the mount's root is the container's cgroup.
const CONTAINER_V1_MOUNTS = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,relatime - cgroup cgroup rw,memory";

describe("parseProcCgroup", () => {
  const cases = [
    {
      name: "finds v1's memory line among the other controllers",
      text: "9:name=systemd:/\n4:memory:/process_api/3c4b\n3:cpu,cpuacct:/\n0::/\n",
      want: { v1Memory: "/process_api/3c4b", v2: "/" },
    },
    {
      name: "finds memory in a comma-joined controller list",
      text: "5:memory,hugetlb:/job/7\n",
      want: { v1Memory: "/job/7" },
    },
    {
      name: "reads a v2-only host's single line",
      text: "0::/user.slice/session-2.scope\n",
      want: { v2: "/user.slice/session-2.scope" },
    },
    { name: "ignores blank and malformed lines", text: "\ngarbage\n", want: {} },
  ];
  for (const c of cases) test(c.name, () => expect(parseProcCgroup(c.text)).toEqual(c.want));
});

describe("parseMountinfo", () => {
  const cases = [
    {
      name: "reads root, mount point, type and super options, with optional fields before the dash",
      text: "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 master:2 - cgroup cgroup rw,memory",
      want: [{ root: "/", mountPoint: "/sys/fs/cgroup/memory", fsType: "cgroup", superOptions: ["rw", "memory"] }],
    },
    {
      name: "unescapes octal escapes in paths",
      text: "40 1 0:40 / /mnt/with\\040space rw - cgroup2 cgroup2 rw",
      want: [{ root: "/", mountPoint: "/mnt/with space", fsType: "cgroup2", superOptions: ["rw"] }],
    },
    { name: "skips a line with no separator", text: "35 31 0:32 / /x rw cgroup cgroup rw", want: [] },
  ];
  for (const c of cases) test(c.name, () => expect(parseMountinfo(c.text)).toEqual(c.want));
});

describe("locateMemoryCgroup", () => {
  const cases: Array<{
    name: string;
    cgroup: string;
    mounts: string;
    want: MemoryCgroupLocation | { missing: string };
  }> = [
    {
      name: "prefers v1's memory hierarchy on a hybrid host",
      cgroup: "4:memory:/process_api/3c4b\n0::/\n",
      mounts: HYBRID_MOUNTS,
      want: { version: 1, dir: "/sys/fs/cgroup/memory/process_api/3c4b" },
    },
    {
      name: "uses the v2 mount on a v2-only host",
      cgroup: "0::/user.slice/a.scope\n",
      mounts: V2_MOUNTS,
      want: { version: 2, dir: "/sys/fs/cgroup/user.slice/a.scope" },
    },
    {
      name: "maps a path below a container's mount root into the mount",
      cgroup: "4:memory:/docker/abc/job\n",
      mounts: CONTAINER_V1_MOUNTS,
      want: { version: 1, dir: "/sys/fs/cgroup/memory/job" },
    },
    {
      name: "says so when the cgroup lies outside the mount's root",
      cgroup: "4:memory:/other\n",
      mounts: CONTAINER_V1_MOUNTS,
      want: { missing: "the memory cgroup /other lies outside the mounted /docker/abc (/sys/fs/cgroup/memory)" },
    },
    {
      name: "says so when v1 names memory but its hierarchy is not mounted",
      cgroup: "4:memory:/x\n",
      mounts: V2_MOUNTS,
      want: { missing: "the cgroup v1 memory hierarchy (/proc/self/cgroup names it) is not mounted" },
    },
    {
      name: "says so when no cgroup filesystem is mounted",
      cgroup: "0::/\n",
      mounts: "22 1 0:21 / /proc rw - proc proc rw",
      want: { missing: "no cgroup v1 memory hierarchy, and the cgroup v2 hierarchy is not mounted" },
    },
    {
      name: "says so when /proc/self/cgroup names no hierarchy",
      cgroup: "",
      mounts: HYBRID_MOUNTS,
      want: { missing: "/proc/self/cgroup names neither a cgroup v1 memory hierarchy nor a cgroup v2 one" },
    },
  ];
  for (const c of cases) test(c.name, () => expect(locateMemoryCgroup(c.cgroup, c.mounts)).toEqual(c.want));
});

describe("parseKeyedCounts", () => {
  const cases = [
    {
      name: "reads v1's memory.oom_control",
      text: "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
      want: { oom_kill_disable: 0, under_oom: 0, oom_kill: 2 },
    },
    {
      name: "reads v2's memory.events",
      text: "low 0\nhigh 0\nmax 17\noom 1\noom_kill 1\noom_group_kill 0\n",
      want: { low: 0, high: 0, max: 17, oom: 1, oom_kill: 1, oom_group_kill: 0 },
    },
    { name: "skips lines that are not `key number`", text: "oom_kill x\n\n", want: {} },
  ];
  for (const c of cases) test(c.name, () => expect(parseKeyedCounts(c.text)).toEqual(c.want));
});

test("wrap joins the cgroup from the shell, then execs the command with its arguments as given", () => {
  expect(memoryCgroupAt(1, "/sys/fs/cgroup/memory/t").wrap(["/bin/ccm", "--v=2", "a b"])).toEqual([
    "sh",
    "-c",
    'echo $$ > "$1" && shift && exec "$@"',
    "sh",
    "/sys/fs/cgroup/memory/t/cgroup.procs",
    "/bin/ccm",
    "--v=2",
    "a b",
  ]);
});
