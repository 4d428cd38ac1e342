/**
 * The provider kit end to end, as an author meets it: in a copy of the tree, `bun run new-provider` makes a provider
 * that passes biome and tsc as generated, builds into its own executable, and runs the conformance suite, which
 * reports what the skeleton does not implement as skips, never as passes. The provider guide's code blocks are
 * checked against a scaffolded `acme`: excerpts stand in its files as written, snippets compile beside them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { createConsola } from "consola";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { discoverProviders } from "../scripts/build.ts";
import { hostSuffix, type Ran, runExecutable } from "./support/executables.ts";
import { excerptAt, guideBlocks } from "./support/guide-blocks.ts";
import { poll, spawnCollecting } from "./support/processes.ts";

const ROOT = resolve(import.meta.dir, "..");
const name = `kit-${crypto.randomUUID().slice(0, 6)}`;
let temp: string;
let copy: string;
let scaffolded: Ran;
let allBefore: string;
/** The scaffolded provider's executable, once the build test has made it. */
let scaffoldExe = "";

const skipped = ["node_modules", "dist", "build", ".cache", ".git"];

/** The files of the tree: tracked and untracked-but-not-ignored when git knows it, else a walk. */
async function treeFiles(root: string): Promise<string[]> {
  const git = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root });
  if (git.exitCode === 0) {
    return git.stdout
      .toString()
      .split("\0")
      .filter((f) => f !== "" && existsSync(join(root, f)));
  }
  const out: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = relative(root, join(entry.parentPath, entry.name));
    if (entry.isFile() && !skipped.some((s) => path === s || path.startsWith(`${s}/`))) out.push(path);
  }
  return out;
}

/** Run a command in the copy to completion. */
async function run(cmd: string[]): Promise<Ran> {
  const proc = Bun.spawn(cmd, { cwd: copy, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

const bun = process.execPath;
const bin = (tool: string) => join(ROOT, "node_modules", ".bin", tool);
const imports = (allTs: string) =>
  [...allTs.matchAll(/^lazily\("([a-z0-9-]+)", \(\) => import\("\.\/\1\/index\.ts"\)\);$/gm)].map((m) => m[1]);

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), "ccm-new-provider-"));
  copy = join(temp, "tree");
  for (const file of await treeFiles(ROOT)) {
    await mkdir(dirname(join(copy, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(copy, file));
  }
  await symlink(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  allBefore = await readFile(join(copy, "providers", "all.ts"), "utf8");
  scaffolded = await run([bun, "run", "new-provider", name]);
}, 120_000);

afterAll(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

describe(`bun run new-provider ${name}`, () => {
  test("creates the standard files and adds the provider to providers/all.ts", async () => {
    expect(scaffolded.stderr).not.toContain("error:");
    expect(scaffolded.code).toBe(0);
    const files = [
      "index.ts",
      "provider.ts",
      "config.ts",
      "config.test.ts",
      "provider-id.ts",
      "provider-id.test.ts",
      "instances.ts",
      "api/client.ts",
      "api/memory.ts",
      "conformance.test.ts",
      "README.md",
    ];
    for (const f of files) expect(existsSync(join(copy, "providers", name, f))).toBe(true);
    const allAfter = await readFile(join(copy, "providers", "all.ts"), "utf8");
    expect(imports(allAfter).sort()).toEqual([...imports(allBefore), name].sort());
    const found = (await discoverProviders(copy)).find((p) => p.name === name);
    expect(found).toEqual({ name, shippable: true });
  });

  test.each([
    [name, "already exists"],
    ["Bad_Name", "use lower-case letters, digits and inner dashes"],
    ["9lives", "must start with a letter"],
  ])("refuses %p (%s) and changes nothing", async (bad, message) => {
    const before = await readFile(join(copy, "providers", "all.ts"), "utf8");
    const r = await run([bun, "scripts/new-provider.ts", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(await readFile(join(copy, "providers", "all.ts"), "utf8")).toBe(before);
  });

  test("the generated code passes biome and tsc as generated", async () => {
    const lint = await run([bin("biome"), "check", `providers/${name}`, "providers/all.ts"]);
    expect(lint.stdout + lint.stderr).not.toContain("×");
    expect(lint.code).toBe(0);
    const config = { extends: "./tsconfig.json", include: [`providers/${name}`, "providers/all.ts"] };
    await writeFile(join(copy, "tsconfig.new-provider.json"), JSON.stringify(config));
    const types = await run([bin("tsc"), "--noEmit", "-p", "tsconfig.new-provider.json"]);
    expect(types.stdout + types.stderr).toBe("");
    expect(types.code).toBe(0);
  }, 120_000);

  test(`builds ${name}-cloud-controller-manager, which answers --version and --help`, async () => {
    const out = join(temp, "out");
    const build = await run([
      bun,
      "scripts/build.ts",
      `--target=${hostSuffix}`,
      `--provider=${name}`,
      "--no-all-in-one",
      `--outdir=${out}`,
      "--version=v0.0.0-kit",
    ]);
    expect(build.stderr).toBe("");
    expect(build.code).toBe(0);
    const exe = join(out, `${name}-cloud-controller-manager-${hostSuffix}`);
    scaffoldExe = exe;
    const version = await runExecutable(exe, ["--version"]);
    expect(version.stdout.trim()).toBe(`${name}-cloud-controller-manager v0.0.0-kit`);
    const help = await runExecutable(exe, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`${name}-cloud-controller-manager [flags]`);
    expect(help.stdout).toContain("--cloud-config");
  }, 180_000);

  test("its tests pass, and the conformance suite reports what the skeleton does not offer as skips", async () => {
    const r = await run([bun, "test", `providers/${name}`]);
    const text = r.stdout + r.stderr;
    expect(text).toMatch(/^\s*0 fail$/m);
    expect(r.code).toBe(0);
    const suite = `${name} conformance`;
    for (const id of ["instancesV2/running", "instancesV2/deleted", "instancesV2.bulk/consistent"]) {
      expect(text).toContain(`(pass) ${suite} > ${id.split("/")[0]} > ${id}: `);
    }
    const notOffered = ["loadBalancer/ensure", "routes/dual-stack", "rateLimit/shape", "instances/running"];
    for (const id of notOffered) {
      expect(text).toMatch(new RegExp(`\\(skip\\) ${suite} > [^>]+ > ${id}: .* — skipped: capability not offered`));
    }
    expect(Number(/^\s*(\d+) skip$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(notOffered.length);
  }, 120_000);
});

describe(`${name}-cloud-controller-manager over its HTTP client, as the guide leaves it`, () => {
  const tokenVar = `${name.toUpperCase().replaceAll("-", "_")}_TOKEN`;
  const machine = {
    ...{ id: "m-1", name: "n1", zone: "zone-a", region: "region-1", instanceType: "standard-1" },
    ...{ addresses: [{ type: "InternalIP", address: "10.0.0.1" }], state: "running" },
  };
  let cloud: ReturnType<typeof Bun.serve> | undefined;
  let api: ApiServer | undefined;
  let kubeconfig = "";
  let cloudConfig = "";
  beforeAll(async () => {
    // The cloud as api/http.ts expects it: the bearer token, `/machines` in pages, `/machines/{id}`.
    cloud = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        if (req.headers.get("authorization") !== "Bearer right-token") {
          return Response.json({ error: { code: "unauthorized", message: "invalid token" } }, { status: 401 });
        }
        const url = new URL(req.url);
        if (url.pathname === "/machines") {
          const name = url.searchParams.get("name");
          const machines = name === null || name === machine.name ? [machine] : [];
          return Response.json({ machines, meta: { pagination: { next_page: null } } });
        }
        if (url.pathname === `/machines/${machine.id}`) return Response.json({ machine });
        return Response.json({ error: { code: "not_found", message: "no such thing" } }, { status: 404 });
      },
    });
    api = await startApiServer({ logger: createConsola({ level: -999 }) });
    kubeconfig = join(temp, "kubeconfig");
    await api.writeKubeconfig(kubeconfig);
    cloudConfig = join(temp, "cloud.yaml");
    await writeFile(cloudConfig, `endpoint: http://127.0.0.1:${cloud.port}\n`);
    api.store.create(Resources.nodes, {
      metadata: { name: "n1" },
      spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
    });
  }, 60_000);
  afterAll(async () => {
    await cloud?.stop(true);
    await api?.stop();
  });
  const args = (command: string) => [command, `--cloud-config=${cloudConfig}`, `--kubeconfig=${kubeconfig}`];

  test("doctor with a wrong token fails, naming the token's variable", async () => {
    const r = await runExecutable(scaffoldExe, args("doctor"), { env: { PATH: "/usr/bin:/bin", [tokenVar]: "wrong" } });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`the cloud refused ${tokenVar}`);
  });

  test("the manager initialises the node; plan on the converged cluster finds nothing and exits 0", async () => {
    const env = { [tokenVar]: "right-token" };
    const manager = spawnCollecting(
      [
        scaffoldExe,
        `--cloud-config=${cloudConfig}`,
        `--kubeconfig=${kubeconfig}`,
        "--leader-elect=false",
        "--secure-port=0",
        "--cluster-cidr=10.128.0.0/9",
      ],
      env,
    );
    try {
      await poll(
        () => {
          const node = api?.store.get<Node>(Resources.nodes, "n1");
          return node?.spec?.providerID === `${name}://m-1` && (node.spec.taints ?? []).length === 0;
        },
        { timeoutMs: 60_000, message: "n1 initialised by the scaffolded manager" },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}; it said:\n${manager.output().slice(-2000)}`);
      });
    } finally {
      manager.proc.kill("SIGTERM");
      await manager.exited;
    }
    const plan = await runExecutable(scaffoldExe, [...args("plan"), "--cluster-cidr=10.128.0.0/9"], {
      env: { PATH: "/usr/bin:/bin", ...env },
    });
    expect({ code: plan.code, out: plan.stdout + plan.stderr }).toEqual({ code: 0, out: expect.any(String) });
  }, 120_000);
});

describe("docs/writing-a-provider.md against a freshly scaffolded acme", () => {
  const guide = readFileSync(join(ROOT, "docs", "writing-a-provider.md"), "utf8");
  const blocks = guideBlocks(guide);
  let acme: Ran;
  beforeAll(async () => {
    acme = await run([bun, "run", "new-provider", "acme"]);
  }, 120_000);

  test("the scaffold of the guide's name succeeds", () => {
    expect(acme.stderr).not.toContain("error:");
    expect(acme.code).toBe(0);
  });

  test("the guide shows verifyAccess and planLoadBalancer, and so does the scaffold", async () => {
    const provider = await readFile(join(copy, "providers", "acme", "provider.ts"), "utf8");
    for (const word of ["verifyAccess", "planLoadBalancer"]) {
      expect(guide).toContain(word);
      expect(provider).toContain(word);
    }
  });

  test.each(blocks.filter((b) => b.kind === "excerpt").map((b) => [`line ${b.line}`, b] as const))(
    "the excerpt at %s stands in the scaffolded file as written",
    async (_at, block) => {
      const file = await readFile(join(copy, block.file), "utf8");
      expect({ at: excerptAt(block.lines, file), file: block.file }).toEqual({
        at: expect.any(Number),
        file: block.file,
      });
    },
  );

  test("every other code block compiles in providers/acme/ after the context its comment gives", async () => {
    const snippets = blocks.filter((b) => b.kind === "snippet");
    expect(snippets.length).toBeGreaterThanOrEqual(5);
    const files = [];
    for (const b of snippets) {
      const file = `providers/acme/guide-line-${b.line}.ts`;
      await writeFile(join(copy, file), b.source);
      files.push(file);
    }
    const config = { extends: "./tsconfig.json", include: ["providers/acme", "providers/all.ts"] };
    await writeFile(join(copy, "tsconfig.guide.json"), JSON.stringify(config));
    const types = await run([bin("tsc"), "--noEmit", "-p", "tsconfig.guide.json"]);
    // tsc names the file and line: guide-line-<N>.ts is the block at line N of the guide.
    expect(types.stdout + types.stderr).toBe("");
    expect(types.code).toBe(0);
  }, 120_000);
});
