/** The compiled executables as an operator first meets them: from another folder, no node_modules beside them. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { FLAGS } from "../cmd/flags.ts";
import { discoverProviders } from "../scripts/build.ts";
import { executable, executablesDir, runExecutable } from "./support/executables.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

let allInOne: string;
beforeAll(async () => {
  allInOne = await executable();
}, 300_000);

describe("the all-in-one executable", () => {
  test("lists every upstream flag in --help", async () => {
    const r = await runExecutable(allInOne, ["--help"]);
    expect(r.code).toBe(0);
    for (const f of FLAGS) expect(r.stdout).toContain(`--${f.name}`);
  });

  test("prints the version stamped by the build", async () => {
    const r = await runExecutable(allInOne, ["--version"]);
    expect(r.stdout.trim()).toBe("cloud-controller-manager v0.0.0-test");
  });

  test("exits non-zero for an unknown provider, naming the ones it knows", async () => {
    const shippable = (await discoverProviders()).filter((p) => p.shippable).map((p) => p.name);
    const r = await runExecutable(allInOne, ["--cloud-provider=nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `unknown cloud provider "nope"; this executable knows: ${shippable.join(", ") || "none"}`,
    );
  });

  test("reports both problems of '--concurrent-service-syncs=0 --node-monitor-period=-1s' at once", async () => {
    const r = await runExecutable(allInOne, ["--concurrent-service-syncs=0", "--node-monitor-period=-1s"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--concurrent-service-syncs must be at least 1, got 0");
    expect(r.stderr).toContain('--node-monitor-period must be greater than 0, got "-1s"');
  });

  // A default `bun build --compile` binary parses ./bunfig.toml at start and aborts on a broken one (checked by
  // hand: exit 1, "Expected '=' after a key"); ours must not read it, nor ./.env (switched off together).
  test("ignores bunfig.toml and .env in the working directory", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const cwd = await mkdtemp(join(tmpdir(), "ccm-dotenv-"));
    await writeFile(join(cwd, ".env"), "CCM_SHOULD_NOT_LOAD=1\n");
    await writeFile(join(cwd, "bunfig.toml"), "this is = not toml [\n");
    const r = await runExecutable(allInOne, ["--version"], { cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("the build", () => {
  test("makes one executable per shippable provider, and checksums for all", async () => {
    const dir = await executablesDir();
    const sums = await readFile(join(dir, "SHA256SUMS"), "utf8");
    for (const p of (await discoverProviders()).filter((x) => x.shippable && !x.composesOthers)) {
      const path = await executable(p.name);
      expect(existsSync(path)).toBe(true);
      expect(sums).toContain(`${p.name}-cloud-controller-manager-`);
    }
    expect(sums).toMatch(/^[0-9a-f]{64} {2}cloud-controller-manager-/m);
  });

  test("a per-provider executable presets its provider and refuses another", async () => {
    const shippable = (await discoverProviders()).filter((p) => p.shippable && !p.composesOthers);
    for (const p of shippable) {
      const r = await runExecutable(await executable(p.name), ["--cloud-provider=other"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`this executable is built for --cloud-provider=${p.name}`);
    }
  });
});
