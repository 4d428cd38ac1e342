import { describe, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { ConfigError } from "../config/errors.ts";
import type { CloudProvider } from "./cloud.ts";
import { parseCloudConfig } from "./config.ts";
import { ProviderRegistry, UnknownProviderError } from "./registry.ts";

const provider = (name: string): CloudProvider => ({ providerName: name, hasClusterID: () => true });

describe("ProviderRegistry", () => {
  test("throws on a second registration of the same name", () => {
    const r = new ProviderRegistry();
    r.register("acme", () => provider("acme"));
    expect(() => r.register("acme", () => provider("acme"))).toThrow('Cloud provider "acme" was registered twice');
  });

  test("a lazily registered provider is known by name and loaded, once, when first built", async () => {
    const r = new ProviderRegistry();
    let loads = 0;
    r.registerLazily("acme", async () => {
      loads++;
      r.register("acme", () => provider("acme"));
    });
    expect(r.names()).toEqual(["acme"]);
    expect(loads).toBe(0);
    expect((await r.init("acme", undefined)).providerName).toBe("acme");
    expect((await r.factory("acme")?.({ config: undefined, configSource: undefined, env: {} }))?.providerName).toBe(
      "acme",
    );
    expect(loads).toBe(1);
  });

  test("a lazily registered provider whose module registers nothing fails naming it", async () => {
    const r = new ProviderRegistry();
    r.registerLazily("acme", async () => {});
    await expect(r.init("acme", undefined)).rejects.toThrow('loading cloud provider "acme" registered nothing');
  });

  test("a name registered lazily twice, or lazily after a provider, throws", () => {
    const r = new ProviderRegistry();
    r.registerLazily("acme", async () => {});
    expect(() => r.registerLazily("acme", async () => {})).toThrow("registered twice");
    r.register("zeta", () => provider("zeta"));
    expect(() => r.registerLazily("zeta", async () => {})).toThrow("registered twice");
  });

  test.each(["", "Acme", "acme_cloud", "-acme", "acme-"])("rejects the invalid name %p", (name) => {
    expect(() => new ProviderRegistry().register(name, () => provider(name))).toThrow("is invalid");
  });

  test("names an unknown provider and lists the registered ones, sorted", async () => {
    const r = new ProviderRegistry();
    r.register("zeta", () => provider("zeta"));
    r.register("alpha", () => provider("alpha"));
    const err = await r.init("nope", undefined).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownProviderError);
    expect(err.message).toBe('unknown cloud provider "nope"; this executable knows: alpha, zeta');
  });

  test("hands the factory the file's content, its source and the environment", async () => {
    const dir = await mkdtemp(join(tmpdir(), "registry-"));
    const path = join(dir, "cloud.yaml");
    await writeFile(path, "region: eu\n");
    const r = new ProviderRegistry();
    let seen: unknown;
    r.register("acme", (input) => {
      seen = input;
      return provider("acme");
    });
    await r.init("acme", path, { TOKEN: "t" });
    expect(seen).toEqual({ config: "region: eu\n", configSource: `--cloud-config=${path}`, env: { TOKEN: "t" } });
  });

  test("passes no config when --cloud-config is empty", async () => {
    const r = new ProviderRegistry();
    let seen: unknown = "unset";
    r.register("acme", ({ config }) => {
      seen = config;
      return provider("acme");
    });
    await r.init("acme", undefined, {});
    expect(seen).toBeUndefined();
  });

  test("names the path when the cloud-config cannot be read", async () => {
    const r = new ProviderRegistry();
    r.register("acme", () => provider("acme"));
    await expect(r.init("acme", "/nonexistent/cloud.yaml", {})).rejects.toThrow(
      'could not read --cloud-config "/nonexistent/cloud.yaml": ENOENT',
    );
  });

  test("wraps a factory's ConfigError, keeping every problem", async () => {
    const r = new ProviderRegistry();
    const schema = v.object({ url: v.pipe(v.string(), v.url("url must be a URL")), token: v.string() });
    r.register("acme", ({ config, configSource }) => {
      parseCloudConfig(schema, config, configSource);
      return provider("acme");
    });
    const dir = await mkdtemp(join(tmpdir(), "registry-"));
    const path = join(dir, "cloud.yaml");
    await writeFile(path, "url: not a url\n");
    const err = await r.init("acme", path, {}).catch((e) => e);
    expect(err.message).toStartWith('could not init cloud provider "acme": --cloud-config=');
    expect(err.message).toContain("url: url must be a URL");
    expect(err.message).toContain("token: is required but missing");
    expect(err.cause).toBeInstanceOf(ConfigError);
    expect((err.cause as ConfigError).issues).toHaveLength(2);
  });

  test("refuses a factory whose provider reports another name", async () => {
    const r = new ProviderRegistry();
    r.register("acme", () => provider("other"));
    await expect(r.init("acme", undefined, {})).rejects.toThrow('built a provider named "other"');
  });
});

describe("parseCloudConfig", () => {
  const schema = v.object({ pools: v.array(v.object({ cidr: v.string("cidr must be a string") })) });

  test("reports dotted paths into arrays", () => {
    const err = (() => {
      try {
        parseCloudConfig(schema, "pools:\n  - cidr: 1\n", "cfg");
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err?.issues).toEqual([{ path: "pools[0].cidr", message: "cidr must be a string" }]);
  });

  test("names the source when the text is not YAML", () => {
    expect(() => parseCloudConfig(schema, "a: [", "--cloud-config=/x")).toThrow("--cloud-config=/x is invalid");
  });

  test("treats an empty file as an empty object", () => {
    expect(() => parseCloudConfig(schema, "  \n", "cfg")).toThrow("pools");
  });
});
