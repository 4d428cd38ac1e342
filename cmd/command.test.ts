import { describe, expect, test } from "bun:test";
import { defineCommand } from "citty";
import type { CloudProvider } from "../providers/cloud.ts";
import { ProviderRegistry } from "../providers/registry.ts";
import { type CliInput, type RunManager, runCli } from "./command.ts";
import { FLAGS } from "./flags.ts";
import { allInOneSubcommands } from "./subcommands.ts";

interface Run {
  code: number;
  out: string;
  err: string;
  managed: Parameters<RunManager>[0] | undefined;
}

/** A `sandbox` sub-command with one flag, `--nodes` (default 3), whose value it hands to `saw` when it runs. */
const nodesCommand = (saw: (nodes: unknown) => void) => () =>
  defineCommand({
    meta: { name: "sandbox", description: "run the sandbox" },
    args: { nodes: { type: "string", default: "3" } },
    run: ({ args }) => {
      saw(args.nodes);
      return 0;
    },
  });

async function run(argv: string[], tweak: Partial<CliInput> = {}): Promise<Run> {
  const registry = new ProviderRegistry();
  const provider = (name: string, clusterID = true): CloudProvider => ({
    providerName: name,
    hasClusterID: () => clusterID,
  });
  registry.register("acme", () => ({
    ...provider("acme"),
    webhooks: { "service-annotations": { type: "validating", description: "test", admit: () => ({ allowed: true }) } },
  }));
  registry.register("untagged", () => provider("untagged", false));
  const result: Run = { code: -1, out: "", err: "", managed: undefined };
  result.code = await runCli({
    argv,
    binaryName: "cloud-controller-manager",
    build: { version: "v1.2.3", commit: "abc", buildDate: "2026-11-22" },
    registry,
    runManager: async (input) => {
      result.managed = input;
      return 0;
    },
    stdout: (t) => {
      result.out += t;
    },
    stderr: (t) => {
      result.err += t;
    },
    signal: new AbortController().signal,
    env: {},
    ...tweak,
  });
  return result;
}

describe("the command", () => {
  test("--help lists every upstream flag, grouped by section", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    for (const f of FLAGS) expect(r.out).toContain(`--${f.name}`);
    for (const section of ["Generic flags:", "Leader election flags:", "Secure serving flags:", "Misc flags:"]) {
      expect(r.out).toContain(section);
    }
    expect(r.out).toContain("--cluster-name string");
    expect(r.out).toContain('(default "kubernetes")');
  });

  test("--version prints the stamped version, and --version=raw prints JSON", async () => {
    expect((await run(["--version"])).out).toBe("cloud-controller-manager v1.2.3\n");
    const raw = JSON.parse((await run(["--version=raw"])).out);
    expect(raw).toMatchObject({ version: "v1.2.3", commit: "abc", buildDate: "2026-11-22" });
  });

  test("an unknown provider fails naming the known ones, before anything starts", async () => {
    const r = await run(["--cloud-provider=nope"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('unknown cloud provider "nope"; this executable knows: acme, untagged');
    expect(r.managed).toBeUndefined();
  });

  test("reports every invalid flag in one message and exits 1", async () => {
    const r = await run(["--concurrent-service-syncs=0", "--node-monitor-period=-1s", "--bogus", "extra"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("invalid command line (5 problems)");
    expect(r.err).toContain("unknown flag: --bogus");
    expect(r.err).toContain('"cloud-controller-manager" does not take any arguments, got [extra]');
    expect(r.err).toContain("--concurrent-service-syncs must be at least 1, got 0");
    expect(r.err).toContain('--node-monitor-period must be greater than 0, got "-1s"');
    expect(r.err).toContain("--cloud-provider is required: one of acme, untagged");
    expect(r.managed).toBeUndefined();
  });

  test("hands valid options and the built provider to the manager", async () => {
    const r = await run(["--cloud-provider=acme", "--cluster-name=prod", "--controllers=*,-route"]);
    expect(r.code).toBe(0);
    expect(r.managed?.provider.providerName).toBe("acme");
    expect(r.managed?.options.clusterName).toBe("prod");
    expect(r.managed?.options.controllers).toEqual(["*", "-node-route-controller"]);
  });

  test("refuses a webhook the provider does not declare, naming the ones it does", async () => {
    const r = await run(["--cloud-provider=acme", "--webhooks=*,-service-annotations,nope"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      '--webhooks: "nope" is not in the list of known webhooks (this provider\'s: service-annotations)',
    );
    expect(r.err).not.toContain('"service-annotations" is not');
    expect(r.managed).toBeUndefined();
  });

  test("refuses a provider without a cluster ID unless --allow-untagged-cloud", async () => {
    const refused = await run(["--cloud-provider=untagged"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("--allow-untagged-cloud");
    const allowed = await run(["--cloud-provider=untagged", "--allow-untagged-cloud"]);
    expect(allowed.code).toBe(0);
  });

  test("a per-provider executable presets --cloud-provider and rejects another", async () => {
    const preset = await run([], { presetProvider: "acme" });
    expect(preset.managed?.provider.providerName).toBe("acme");
    const other = await run(["--cloud-provider=untagged"], { presetProvider: "acme" });
    expect(other.code).toBe(1);
    expect(other.err).toContain("this executable is built for --cloud-provider=acme");
    const same = await run(["--cloud-provider=acme"], { presetProvider: "acme" });
    expect(same.code).toBe(0);
  });

  test("a per-provider executable also runs the composite when it holds one, and --help says so", async () => {
    const composite = (): CloudProvider => ({ providerName: "composite", hasClusterID: () => true });
    const registry = new ProviderRegistry();
    registry.register("acme", () => ({ providerName: "acme", hasClusterID: () => true }));
    registry.register("metal", () => ({ providerName: "metal", hasClusterID: () => true }));
    registry.register("composite", composite);
    const composed = await run(["--cloud-provider=composite"], { presetProvider: "acme", registry });
    expect(composed.managed?.provider.providerName).toBe("composite");
    const other = await run(["--cloud-provider=metal"], { presetProvider: "acme", registry });
    expect(other.err).toContain(
      "--cloud-provider=metal: this executable is built for --cloud-provider=acme (or --cloud-provider=composite to compose it with the providers built in)",
    );
    const help = await run(["--help"], { presetProvider: "acme", registry });
    expect(help.out).toContain('(default "acme")');
    expect(help.out).toContain('Also "composite", to compose acme with metal (docs/composing-providers.md).');
    const allInOne = await run(["--help"], { registry });
    expect(allInOne.out).toContain("Required. One of: acme, composite, metal.");
  });

  test.each([
    [
      "a missing --cloud-config names the file and the fix, not only ENOENT",
      ["--cloud-provider=acme", "--cloud-config=/nonexistent/cloud.yaml"],
      [
        'error: --cloud-config "/nonexistent/cloud.yaml" does not exist (ENOENT): pass the path of the acme provider\'s configuration file',
      ],
    ],
    [
      "a missing --kubeconfig and a provider that cannot start are both reported",
      ["--cloud-provider=needs-config", "--kubeconfig=/nonexistent/kubeconfig"],
      [
        "error: cloud-controller-manager cannot start (2 problems):",
        '  - --kubeconfig "/nonexistent/kubeconfig" does not exist (ENOENT): pass the path of a readable kubeconfig',
        '  - Cloud provider could not be initialized: could not init cloud provider "needs-config": url: is required',
      ],
    ],
    [
      "a problem that is itself a list stays one item, its own problems indented under it",
      ["--cloud-provider=two-problems", "--kubeconfig=/nonexistent/kubeconfig"],
      [
        "cannot start (2 problems):",
        '  - --kubeconfig "/nonexistent/kubeconfig"',
        '  - Cloud provider could not be initialized: could not init cloud provider "two-problems": the cloud-config has 2 problems:\n      - url: is required\n      - token: is required\n',
      ],
    ],
    [
      "a missing --kubeconfig and a missing --cloud-config are both reported",
      ["--cloud-provider=acme", "--kubeconfig=/nonexistent/kubeconfig", "--cloud-config=/nonexistent/cloud.yaml"],
      [
        "cannot start (2 problems):",
        '  - --kubeconfig "/nonexistent/kubeconfig"',
        '  - --cloud-config "/nonexistent/cloud.yaml"',
      ],
    ],
  ])("%s, before anything starts", async (_name, argv, want) => {
    const registry = new ProviderRegistry();
    registry.register("acme", () => ({ providerName: "acme", hasClusterID: () => true }));
    registry.register("two-problems", () => {
      throw new Error("the cloud-config has 2 problems:\n  - url: is required\n  - token: is required");
    });
    registry.register("needs-config", ({ config }) => {
      if (!config) throw new Error("url: is required");
      return { providerName: "needs-config", hasClusterID: () => true };
    });
    const r = await run(argv, { registry });
    expect(r.code).toBe(1);
    for (const line of want) expect(r.err).toContain(line);
    expect(r.managed).toBeUndefined();
  });

  // Every sub-command of the all-in-one, and the built-in ones every executable has.
  const subcommandNames = [...Object.keys(allInOneSubcommands), "completion", "version", "help"];
  test.each(
    subcommandNames.flatMap((name) => [
      [name, "--help"],
      [name, "-h"],
    ]),
  )("%s %s prints its usage and flags, exits 0 and runs nothing", async (name, flag) => {
    const r = await run([name as string, flag as string], {
      subcommands: allInOneSubcommands,
      runManager: async () => {
        throw new Error(`${name} ${flag} must not start the manager`);
      },
    });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage:\n  cloud-controller-manager ${name} `);
    expect(r.out).toMatch(/-h, --help +Help for /);
    expect(r.out).not.toContain("FAIL");
  });

  test.each([
    ["sandbox", ["--nodes int", "--services int", "--exit-when-ready", "--dir string"]],
    ["doctor", ["--kubeconfig string", "--cloud-provider string", "Required. One of: acme, untagged."]],
    ["version", ["--raw"]],
    ["completion", ["completion bash|zsh|fish"]],
  ])("%s --help lists its flags", async (name, want) => {
    const r = await run([name, "--help"], { subcommands: allInOneSubcommands });
    for (const line of want) expect(r.out).toContain(line);
  });

  test("--help lists every sub-command and the providers the executable knows", async () => {
    const r = await run(["--help"], { subcommands: allInOneSubcommands });
    for (const name of subcommandNames) expect(r.out).toContain(`  cloud-controller-manager ${name} `);
    expect(r.out).toContain("--cloud-provider string");
    expect(r.out).toContain("Required. One of: acme, untagged.");
  });

  test("the commands it prints are typed as the user runs it (from source: npx bun cmd/main.ts)", async () => {
    const r = await run(["--bogus"], { invocation: "npx bun cmd/main.ts", subcommands: allInOneSubcommands });
    expect(r.err).toContain("Run 'npx bun cmd/main.ts --help' for the flags.");
    expect(r.err).toContain("for a first look without a cloud, run 'npx bun cmd/main.ts sandbox'");
    const compiled = await run(["--bogus"]);
    expect(compiled.err).toContain("Run 'cloud-controller-manager --help' for the flags.");
  });

  test.each([
    ["help", ["--help"]],
    ["help sandbox", ["sandbox", "--help"]],
    ["help doctor", ["doctor", "-h"]],
    ["help completion", ["completion", "--help"]],
  ])("'%s' prints what %p prints", async (asked, same) => {
    const a = await run(asked.split(" "), { subcommands: allInOneSubcommands });
    const b = await run(same, { subcommands: allInOneSubcommands });
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out).toContain("Usage:");
  });

  test("'help' with an unknown command names the commands there are", async () => {
    const r = await run(["help", "nope"], { subcommands: allInOneSubcommands });
    expect(r.code).toBe(1);
    expect(r.err).toContain("error: help takes at most one command, one of doctor,");
    expect(r.err).toContain("got [nope]");
  });

  test("'version' prints what --version prints", async () => {
    expect((await run(["version"])).out).toBe("cloud-controller-manager v1.2.3\n");
    expect(JSON.parse((await run(["version", "--raw"])).out)).toMatchObject({ version: "v1.2.3" });
    const bad = await run(["version", "--short"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("version takes only --raw, got [--short]");
  });

  // `npm start --nodes=5`: npm keeps the flag as npm_config_nodes and the sandbox would start without it.
  test.each([
    [
      "a value flag and a boolean npm kept",
      [],
      { npm_config_nodes: "5", npm_config_exit_when_ready: "true" },
      'error: npm kept --nodes=5 --exit-when-ready for itself (options before "--" are npm\'s); run: npm start -- --nodes=5 --exit-when-ready\n',
    ],
    [
      "false, which npm passes on as an empty value",
      ["--services=2"],
      { npm_config_controllers: "" },
      'error: npm kept --controllers=false for itself (options before "--" are npm\'s); run: npm start -- --controllers=false --services=2\n',
    ],
  ])("refuses a sub-command's flags npm kept for itself: %s", async (_name, argv, config, want) => {
    let ran = false;
    const sandbox = () =>
      defineCommand({
        meta: { name: "sandbox", description: "run the sandbox" },
        args: {
          nodes: { type: "string", default: "3" },
          services: { type: "string", default: "1" },
          controllers: { type: "string", default: "true" },
          "exit-when-ready": { type: "boolean", default: false },
        },
        run: () => {
          ran = true;
          return 0;
        },
      });
    const r = await run(["sandbox", ...argv], {
      subcommands: { sandbox },
      env: { npm_lifecycle_event: "start", ...config },
    });
    expect(r.err).toBe(want);
    expect(r.code).toBe(1);
    expect(ran).toBe(false);
  });

  test("runs a sub-command whose flags came after '--' under npm", async () => {
    let seen: unknown;
    const sandbox = nodesCommand((nodes) => {
      seen = nodes;
    });
    const r = await run(["sandbox", "--nodes=5"], {
      subcommands: { sandbox },
      env: { npm_lifecycle_event: "start", npm_config_cache: "/root/.npm" },
    });
    expect(r.code).toBe(0);
    expect(seen).toBe("5");
  });

  test("dispatches a subcommand by its first argument", async () => {
    let seen: unknown;
    const sandbox = nodesCommand((nodes) => {
      seen = nodes;
    });
    const r = await run(["sandbox", "--nodes", "5"], { subcommands: { sandbox } });
    expect(r.code).toBe(0);
    expect(seen).toBe("5");
    const help = await run(["--help"], { subcommands: { sandbox } });
    expect(help.out).toContain("cloud-controller-manager sandbox [flags]");
  });

  test("--cidr-allocator-type=CloudAllocator with a provider that assigns no pod CIDRs stops before anything starts", async () => {
    const r = await run([
      "--cloud-provider=acme",
      "--allocate-node-cidrs=true",
      "--cidr-allocator-type=CloudAllocator",
    ]);
    expect(r.code).toBe(1);
    expect(r.managed).toBeUndefined();
    expect(r.err).toBe(
      "error: --cidr-allocator-type=CloudAllocator: the acme provider does not assign pod CIDRs (it has no cidrAllocator); use --cidr-allocator-type=RangeAllocator with --cluster-cidr, or leave --allocate-node-cidrs off\n",
    );
  });

  test("--enable-leader-migration with an invalid --leader-migration-config stops before anything starts, naming the field", async () => {
    const r = await run([
      "--cloud-provider=acme",
      "--enable-leader-migration",
      "--leader-migration-config=/nonexistent/leader-migration.yaml",
    ]);
    expect(r.code).toBe(1);
    expect(r.managed).toBeUndefined();
    expect(r.err).toStartWith(
      'error: --leader-migration-config "/nonexistent/leader-migration.yaml" cannot be read (ENOENT)',
    );
  });

  test("--enable-leader-migration hands the manager upstream's default configuration", async () => {
    const r = await run(["--cloud-provider=acme", "--enable-leader-migration"]);
    expect(r.code).toBe(0);
    expect(r.managed?.options.leaderMigrationConfig?.leaderName).toBe("cloud-provider-extraction-migration");
  });
});
