import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { configProblems } from "../../config/testing.ts";
import { parseSandboxConfig, sandboxSettings, tokenEnvVar } from "./config.ts";

const source = "--cloud-config=/etc/sandbox.yaml";

function problems(text: string | undefined, env: Record<string, string> = {}): Record<string, string> {
  return configProblems(() => parseSandboxConfig(text, source, env));
}

describe("parseSandboxConfig", () => {
  test("reads every field and applies defaults", () => {
    expect(parseSandboxConfig("url: http://127.0.0.1:8081/\ntoken: t\n", source, {})).toEqual({
      url: "http://127.0.0.1:8081",
      token: "t",
      timeoutMs: 10_000,
      instances: "v2",
    });
    const full =
      "url: https://cloud.example\ntokenFile: /run/token\ntimeoutMs: 2500\ncluster: demo\ninstances: legacy\n";
    expect(parseSandboxConfig(full, source, {})).toEqual({
      url: "https://cloud.example",
      tokenFile: "/run/token",
      timeoutMs: 2500,
      cluster: "demo",
      instances: "legacy",
    });
  });

  test("accepts JSON, and a token from the environment alone", () => {
    expect(parseSandboxConfig('{"url": "http://h:1"}', source, { [tokenEnvVar]: "t" }).url).toBe("http://h:1");
  });

  test("lists every problem at once, each with its field and the fix", () => {
    const text = "url: ftp://x\ntoken: a\ntokenFile: /b\ntimeoutMs: 0\ntokn: c\nextra: 1\ninstances: v1\n";
    expect(problems(text)).toEqual({
      url: "must be an http:// or https:// URL such as http://127.0.0.1:8081",
      timeoutMs: "must be at least 1",
      tokn: "is not a known key; the keys are url, token, tokenFile, timeoutMs, cluster, instances, loadBalancer",
      extra: "is not a known key; the keys are url, token, tokenFile, timeoutMs, cluster, instances, loadBalancer",
      instances: "must be v2 (InstancesV2, the default) or legacy (the older Instances and Zones interfaces)",
      tokenFile: "set either token or tokenFile, not both",
    });
  });

  test.each([
    ["an empty token", '""'],
    ["a blank token", '"  "'],
  ])("%s is refused", (_name, token) => {
    expect(problems(`url: http://h:1\ntoken: ${token}\n`)).toEqual({ token: "must not be empty or only whitespace" });
  });

  test("reads the load balancer classes; serving nothing, an unknown field or a bad class is named", () => {
    const base = "url: http://h:1\ntoken: t\n";
    expect(
      parseSandboxConfig(`${base}loadBalancer: { classes: [a.example/lb], classless: false }\n`, source, {}),
    ).toMatchObject({ loadBalancer: { classes: ["a.example/lb"], classless: false } });
    expect(problems(`${base}loadBalancer: { classless: false, class: x }\n`)).toEqual({
      "loadBalancer.class": "is not a loadBalancer field; use classes and classless",
      "loadBalancer.classless":
        "is false, and classes names none: no Service would be served; name a class or leave classless out",
    });
    expect(Object.keys(problems(`${base}loadBalancer: { classes: ["-x"] }\n`))).toEqual(["loadBalancer.classes[0]"]);
  });

  test.each([
    ["no cloud-config at all", undefined],
    ["an empty file", ""],
  ])("%s asks for the url and a token", (_, text) => {
    expect(problems(text)).toEqual({
      url: "is required: the simulated cloud's base URL, such as http://127.0.0.1:8081 (the sandbox prints it)",
      token: `is required: set token or tokenFile, or the environment variable ${tokenEnvVar}`,
    });
  });

  test.each([
    ["not-a-url", "url"],
    ["http://", "url"],
  ])("rejects the url %p", (url, field) => {
    expect(Object.keys(problems(`url: "${url}"\ntoken: t\n`))).toEqual([field]);
  });

  test("names the source and counts the problems in the message", () => {
    expect(() => parseSandboxConfig("url: 3\nfoo: 1\n", source, { [tokenEnvVar]: "t" })).toThrow(
      `${source} is invalid (2 problems):`,
    );
  });

  test("reports YAML that does not parse", () => {
    expect(Object.keys(problems("url: [unclosed\n"))).toEqual([""]);
  });

  test("a mapping is required", () => {
    expect(problems("- a\n- b\n")).toMatchObject({ url: expect.stringContaining("is required") });
    expect(problems("just text")).toEqual({ "": "must be a mapping of keys such as url: and tokenFile:" });
  });
});

describe("the token", () => {
  const files: Record<string, string> = { "/run/token": "from-file\n", "/run/empty": "  \n" };
  const readFile = async (path: string) => {
    const content = files[path];
    if (content === undefined) throw Object.assign(new Error("no such file"), { code: "ENOENT" });
    return content;
  };
  const env = { [tokenEnvVar]: "from-env" };
  const resolveToken = async (fields: Record<string, string>, env: Record<string, string>) => {
    const config = Object.entries({ url: "http://h", ...fields })
      .map(([k, v]) => `${k}: ${v}\n`)
      .join("");
    const read = await sandboxSettings.read({ name: "sandbox", config, configSource: source, env, readFile });
    return read.value.token;
  };

  test.each([
    ["token wins over the environment", { token: "inline" }, "inline"],
    ["tokenFile is read and trimmed", { tokenFile: "/run/token" }, "from-file"],
    ["the environment is the fallback", {}, "from-env"],
  ])("%s", async (_, fields, token) => {
    expect(await resolveToken(fields, env)).toBe(token);
  });

  test.each([
    ["/run/missing", 'cannot read "/run/missing": ENOENT'],
    ["/run/empty", 'names "/run/empty", which is empty'],
  ])("a bad tokenFile %p is a ConfigError on tokenFile", async (path, message) => {
    const err: unknown = await resolveToken({ tokenFile: path }, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([{ path: "tokenFile", message }]);
  });
});
