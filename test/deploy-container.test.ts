/**
 * The container image file, deploy/container/Containerfile, checked without a container engine: what it is built
 * from, who it runs as, and that the root its COPY lines make holds the executable and exactly the shared objects
 * the executable needs (per `ldd`), CA certificates and a passwd entry — nothing else. The root is run chrooted in
 * test/deploy-container-chroot.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  CONTAINERFILE,
  type Containerfile,
  hostImageArch,
  imageEnv,
  imageFiles,
  imageLabels,
  layOut,
  listFiles,
  parseContainerfile,
  type RootFile,
} from "./deploy-containerfile.ts";
import { executablesDir } from "./support/executables.ts";

const ARCHES = ["amd64", "arm64"] as const;
const EXECUTABLE_PATH = "/usr/local/bin/cloud-controller-manager";
const isLoader = (path: string) => /\/ld-linux[^/]*\.so\.\d+$/.test(path);

let cf: Containerfile;
let files: RootFile[];
let root: string;

beforeAll(async () => {
  cf = parseContainerfile(await readFile(CONTAINERFILE, "utf8"));
  files = imageFiles(cf, hostImageArch(), await executablesDir());
  root = await mkdtemp(join(tmpdir(), "ccm-image-root-"));
  await layOut(root, files);
}, 300_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the Containerfile", () => {
  test("makes a non-root image from scratch whose entry point is the executable", () => {
    const final = cf.stages.at(-1);
    expect(final?.user).toBe("65532:65532");
    expect(final?.entrypoint).toBe(`["${EXECUTABLE_PATH}"]`);
    for (const arch of ARCHES) {
      const stage = cf.stages.find((s) => s.name === `root-${arch}`);
      expect({ arch, base: stage?.base }).toEqual({ arch, base: "scratch" });
    }
  });

  test("pins its Debian base to a dated release", () => {
    expect(cf.args.get("DEBIAN")).toMatch(/^docker\.io\/library\/debian:bookworm-\d{8}-slim(@sha256:[0-9a-f]{64})?$/);
  });

  test("copies the executable for each architecture under one path, from dist/", async () => {
    const dist = await executablesDir();
    const suffix = { amd64: "linux-x64", arm64: "linux-arm64" } as const;
    for (const arch of ARCHES) {
      const exe = imageFiles(cf, arch, dist).find((f) => f.path === EXECUTABLE_PATH);
      expect(exe?.source).toBe(join(dist, `cloud-controller-manager-${suffix[arch]}`));
    }
  });

  test("gives every architecture the same libraries, each with its own loader", async () => {
    const libs = (arch: string) =>
      imageFiles(cf, arch, "/dist")
        .filter((f) => f.from === "glibc")
        .map((f) => f.path);
    const [amd64, arm64] = [libs("amd64"), libs("arm64")];
    expect(amd64.filter(isLoader)).toEqual(["/lib64/ld-linux-x86-64.so.2"]);
    expect(arm64.filter(isLoader)).toEqual(["/lib/ld-linux-aarch64.so.1"]);
    const names = (paths: string[]) =>
      paths
        .filter((p) => !isLoader(p))
        .map((p) => basename(p))
        .sort();
    expect(names(arm64)).toEqual(names(amd64));
  });

  const noLdd = Bun.which("ldd")
    ? undefined
    : "ldd is not installed (it comes with glibc: apt-get install -y libc-bin)";
  test.skipIf(noLdd !== undefined)(
    `copies exactly the shared objects ldd names for the host executable${noLdd ? ` [skipped: ${noLdd}]` : ""}`,
    async () => {
      const exe = files.find((f) => f.path === EXECUTABLE_PATH)?.source as string;
      const r = Bun.spawnSync(["ldd", exe], { stdout: "pipe", stderr: "pipe" });
      expect(r.exitCode).toBe(0);
      // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and "/lib64/ld-linux-x86-64.so.2 (0x…)"; the vDSO has
      // no file.
      const named = r.stdout
        .toString()
        .split("\n")
        .map((l) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(l)?.[1])
        .filter((p): p is string => p !== undefined)
        .sort();
      const copied = files
        .filter((f) => f.from === "glibc")
        .map((f) => f.source)
        .sort();
      expect(copied).toEqual(named);
    },
  );

  test("lays out a root with the executable, its libraries, CA certificates, passwd and package records only", async () => {
    const expected = [
      EXECUTABLE_PATH,
      "/etc/passwd",
      "/etc/ssl/certs/ca-certificates.crt",
      "/etc/os-release",
      "/usr/share/doc/cloud-controller-manager/sbom.cdx.json",
      ...["base-files", "ca-certificates", "libc6"].map((p) => `/var/lib/dpkg/status.d/${p}`),
      ...files.filter((f) => f.from === "glibc").map((f) => f.path),
    ].sort();
    expect(await listFiles(root)).toEqual(expected);
    expect(files.map((f) => f.path).sort()).toEqual(expected);
  });

  test("makes the CA bundle count: Bun trusts only its built-in roots unless NODE_USE_SYSTEM_CA is set", () => {
    expect(imageEnv(cf, hostImageArch())).toEqual({ NODE_USE_SYSTEM_CA: "1" });
  });

  test("names itself with OCI labels, filled from the build's arguments", () => {
    expect(imageLabels(cf, "amd64")).toEqual({
      "org.opencontainers.image.title": "cloud-controller-manager",
      "org.opencontainers.image.description": expect.stringContaining("cloud-controller-manager") as unknown as string,
      "org.opencontainers.image.version": "dev",
      "org.opencontainers.image.revision": "unknown",
      "org.opencontainers.image.created": "1970-01-01T00:00:00Z",
      "org.opencontainers.image.base.name": "scratch",
    });
    const built = imageLabels(cf, "arm64", { VERSION: "v1.2.3", REVISION: "abc", CREATED: "2026-11-25T00:00:00Z" });
    expect(built["org.opencontainers.image.version"]).toBe("v1.2.3");
    expect(built["org.opencontainers.image.revision"]).toBe("abc");
    expect(built["org.opencontainers.image.created"]).toBe("2026-11-25T00:00:00Z");
  });

  test("tells scanners what it holds: Debian's os-release and an installed dpkg record per package it takes files from", async () => {
    expect(await readFile(join(root, "etc", "os-release"), "utf8")).toMatch(/^ID=debian$/m);
    const debianFiles = files.filter((f) => f.from !== "context" && !f.path.startsWith("/var/lib/dpkg/"));
    const owners = new Set<string>();
    for (const f of debianFiles) {
      // ca-certificates.crt is made by the package's postinst, so dpkg owns no such path: the package is named here.
      if (f.path === "/etc/ssl/certs/ca-certificates.crt") {
        owners.add("ca-certificates");
        continue;
      }
      const r = Bun.spawnSync(["dpkg", "-S", f.source], { stdout: "pipe", stderr: "pipe" });
      const owner = /^([^:\s]+)(?::\w+)?: /.exec(r.stdout.toString())?.[1];
      expect({ file: f.source, owner: owner !== undefined }).toEqual({ file: f.source, owner: true });
      owners.add(owner as string);
    }
    const recordsDir = join(root, "var", "lib", "dpkg", "status.d");
    expect((await readdir(recordsDir)).sort()).toEqual([...owners].sort());
    for (const name of owners) {
      const record = await readFile(join(recordsDir, name), "utf8");
      expect(record).toMatch(new RegExp(`^Package: ${name}$`, "m"));
      expect(record).toMatch(/^Status: install ok installed$/m);
      expect(record).toMatch(/^Version: \S+$/m);
      expect(record).toMatch(new RegExp(`^Architecture: (all|${hostImageArch()})$`, "m"));
    }
  });

  test("carries the build's CycloneDX SBOM of the executable", async () => {
    const bom = JSON.parse(
      await readFile(join(root, "usr", "share", "doc", "cloud-controller-manager", "sbom.cdx.json"), "utf8"),
    ) as { bomFormat: string; components: { name: string }[] };
    expect(bom.bomFormat).toBe("CycloneDX");
    expect(bom.components.map((c) => c.name)).toEqual(expect.arrayContaining(["consola", "prom-client", "bun"]));
  });

  test("has a passwd entry for the user the image runs as", async () => {
    const passwd = await readFile(join(root, "etc", "passwd"), "utf8");
    expect(passwd).toMatch(/^nonroot:x:65532:65532:/m);
  });
});
