import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ConfigError } from "../../config/errors.ts";
import type { Node } from "../../kube/objects.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { FakeCloud } from "../fake/fake-cloud.ts";
import { ProviderRegistry } from "../registry.ts";
import { testProviderRuntime } from "../runtime.ts";
import { defineProvider, type ProviderContext } from "./define-provider.ts";
import { cloudConfigSettings } from "./settings.ts";

const schema = v.strictObject({ url: v.pipe(v.string(), v.url("must be a URL")), tokenFile: v.optional(v.string()) });
const files: Record<string, string> = { "/run/token": "s3cret\n" };
const readFile = async (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error("none"), { code: "ENOENT" });
  return text;
};

function acme(seen: ProviderContext<{ url: string; token: string | undefined }>[] = []) {
  return defineProvider({
    name: "acme",
    settings: cloudConfigSettings({
      schema,
      resolve: async (c, tools) => ({
        url: c.url,
        token: c.tokenFile === undefined ? undefined : await tools.secretFile(c.tokenFile, "tokenFile"),
      }),
    }),
    rateLimit: { qps: 5, burst: 10 },
    create(ctx) {
      seen.push(ctx);
      ctx.logger.info(`built for ${ctx.settings.url}`);
      return { hasClusterID: () => true };
    },
  });
}

const node: Node = { metadata: { name: "n1" } };

describe("defineProvider", () => {
  test("the registry builds the declaration: its name, its rate limit, settings read and secrets resolved", async () => {
    const seen: ProviderContext<{ url: string; token: string | undefined }>[] = [];
    const registry = new ProviderRegistry();
    const def = acme(seen);
    registry.register(def.name, (input) => def.build(input, { readFile }));
    const { logger, logs } = captureLogger();
    const provider = await registry.init("acme", undefined, {}, { logger }).catch((e) => e);
    expect(provider).toBeInstanceOf(Error);
    expect(provider.cause).toBeInstanceOf(ConfigError);

    const built = await def.build(
      { config: "url: http://a\ntokenFile: /run/token\n", configSource: "x", env: {}, logger },
      { readFile },
    );
    expect(built.providerName).toBe("acme");
    expect(built.rateLimit).toEqual({ qps: 5, burst: 10 });
    expect(seen[0]?.settings).toEqual({ url: "http://a", token: "s3cret" });
    expect(seen[0]?.http.rateLimit).toEqual({ qps: 5, burst: 10 });
    // The logger is there at construction, tagged with the provider's name.
    expect(logs.map((l) => l.message)).toContain("built for http://a");
  });

  test("every problem of the file and the files it names is one ConfigError", async () => {
    const err = await acme()
      .build({ config: "url: nope\ntokenFile: /run/none\n", configSource: "--cloud-config=x", env: {} }, { readFile })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(["url"]);
    const unreadable = await acme()
      .build({ config: "url: http://a\ntokenFile: /run/none\n", configSource: "x", env: {} }, { readFile })
      .catch((e) => e);
    expect((unreadable as ConfigError).issues).toEqual([
      { path: "tokenFile", message: 'cannot read "/run/none": ENOENT' },
    ]);
  });

  test("the runtime handle fills in when initialize runs; warnings before it are only logged", async () => {
    const seen: ProviderContext<{ url: string; token: string | undefined }>[] = [];
    const { logger, logs } = captureLogger();
    const provider = await acme(seen).build({ config: "url: http://a", configSource: "x", env: {}, logger });
    const ctx = seen[0]!;
    expect(ctx.runtime.current()).toBeUndefined();
    ctx.runtime.nodeWarnings.warn(node, "Odd", "looks odd");
    expect(logs.some((l) => l.message === "Node n1: looks odd")).toBe(true);

    const kube = new EmulatorKubeClient();
    const abort = new AbortController();
    const rt = testProviderRuntime(kube, abort.signal, logger);
    await provider.initialize?.(rt);
    expect(await ctx.runtime.ready()).toBe(rt);
    expect(ctx.runtime.current()).toBe(rt);
    abort.abort();
  });

  test("a class instance keeps its identity and gets the runtime attached", async () => {
    let ctxSeen: ProviderContext<unknown> | undefined;
    const cloud = new FakeCloud();
    const def = defineProvider({
      name: "fake",
      settings: { read: () => ({ value: undefined }) },
      create(ctx) {
        ctxSeen = ctx;
        return cloud;
      },
    });
    const provider = await def.build({ config: undefined, configSource: undefined, env: {} });
    expect(provider).toBe(cloud);
    const abort = new AbortController();
    await provider.initialize?.(testProviderRuntime(new EmulatorKubeClient(), abort.signal, captureLogger().logger));
    expect(ctxSeen?.runtime.current()).toBeDefined();
    abort.abort();
  });

  test("the settings' warnings are said once, however often initialize runs", async () => {
    const def = defineProvider({
      name: "warns",
      settings: { read: () => ({ value: undefined, warnings: ["TOKEN looks short"] }) },
      create: () => ({ hasClusterID: () => true }),
    });
    const provider = await def.build({ config: undefined, configSource: undefined, env: {} });
    const { logger, logs } = captureLogger();
    const abort = new AbortController();
    for (let term = 0; term < 3; term++) {
      await provider.initialize?.(testProviderRuntime(new EmulatorKubeClient(), abort.signal, logger));
    }
    expect(logs.filter((l) => l.message === "TOKEN looks short")).toHaveLength(1);
    abort.abort();
  });

  test("a rate limit given as a function of the settings paces the clients and is the provider's", async () => {
    const seen: ProviderContext<{ qps: number }>[] = [];
    const def = defineProvider({
      name: "paced",
      settings: { read: (input) => ({ value: { qps: Number(input.env.QPS ?? "1") } }) },
      rateLimit: (s) => ({ qps: s.qps, burst: 2 }),
      create(ctx) {
        seen.push(ctx);
        return { hasClusterID: () => true };
      },
    });
    expect(def.rateLimit).toBeUndefined();
    const provider = await def.build({ config: undefined, configSource: undefined, env: { QPS: "7" } });
    expect(provider.rateLimit).toEqual({ qps: 7, burst: 2 });
    expect(seen[0]?.http.rateLimit).toEqual({ qps: 7, burst: 2 });
  });

  test("the manager's bound on a cloud answer reaches the clients' tuning", async () => {
    const seen: ProviderContext<{ url: string; token: string | undefined }>[] = [];
    await acme(seen).build({ config: "url: http://a", configSource: "x", env: {}, maxAnswerBytes: 1024 });
    expect(seen[0]?.http.maxAnswerBytes).toBe(1024);
  });
});
