import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { FakeCloud } from "../fake/fake-cloud.ts";
import { metal } from "../metal/provider.ts";
import { ProviderRegistry } from "../registry.ts";
import { sandbox as sandboxDefinition } from "../sandbox/provider.ts";
import { rejection } from "../testing.ts";
import { buildParts } from "./parts.ts";

function registry(): ProviderRegistry {
  const r = new ProviderRegistry();
  r.register(sandboxDefinition.name, sandboxDefinition.factory);
  r.register("metal", (input) => metal.factory(input));
  r.register("legacy", () => Object.assign(new FakeCloud(), { provider: "legacy" }));
  r.register("liar", () => new FakeCloud());
  return r;
}

const build = (config: string | undefined) =>
  buildParts(registry(), { config, configSource: "--cloud-config=c.yaml", env: {} });

async function problems(config: string | undefined): Promise<Record<string, string>> {
  const err = await rejection(() => build(config));
  if (!(err instanceof ConfigError)) throw err;
  return Object.fromEntries(err.issues.map((i) => [i.path, i.message]));
}

const sandbox = "{ name: sandbox, config: { url: http://127.0.0.1:1, token: t } }";
const metalWithPool = "{ name: metal, config: { loadBalancer: { global: { addresses: [192.0.2.0/28] } } } }";

describe("composite cloud-config", () => {
  test("builds each part from its own configuration, in order, with its schemes", async () => {
    const { parts, config } = await build(`providers: [${sandbox}, ${metalWithPool}]\nloadBalancer: metal`);
    expect(parts.map((p) => [p.name, p.provider.providerName, p.schemes, p.servesNodes])).toEqual([
      ["sandbox", "sandbox", ["sandbox"], true],
      ["metal", "metal", ["metal"], true],
    ]);
    expect(config.loadBalancer).toBe("metal");
  });

  test("a part with nodes: false serves no Nodes; schemes may be declared", async () => {
    const { parts } = await build(
      `providers: [{ name: sandbox, config: { url: http://x, token: t }, schemes: [sandbox, vm] }, { name: metal, nodes: false }]`,
    );
    expect(parts.map((p) => [p.name, p.schemes, p.servesNodes])).toEqual([
      ["sandbox", ["sandbox", "vm"], true],
      ["metal", ["metal"], false],
    ]);
  });

  const cases: [string, string | undefined, Record<string, string>][] = [
    [
      "no file says what to compose",
      undefined,
      {
        providers:
          "is required: pass --cloud-config with a file that lists the providers to compose (see docs/composing-providers.md)",
      },
    ],
    ["an empty list", "providers: []", { providers: "must name at least one provider" }],
    [
      "every part's own problems at once, each under its path, with the composite's",
      `providers: [{ name: sandbox, config: { url: ftp://x, timeoutMs: -1 } }, { name: metal, config: { loadBalancer: { global: { addresses: [nonsense] } } } }]\nroutes: nowhere\nextra: 1`,
      {
        "providers[0].config.url": "must be an http:// or https:// URL such as http://127.0.0.1:8081",
        "providers[0].config.timeoutMs": expect.any(String),
        "providers[0].config.token": expect.any(String),
        "providers[1].config.loadBalancer.global.addresses[0]": expect.any(String),
        extra: "is not a known field; the fields are providers, loadBalancer and routes",
        routes: '"nowhere" is not one of the providers listed (sandbox, metal)',
      },
    ],
    [
      "names and schemes given twice, a nested composite, an unknown provider, a choice naming no part",
      `providers: [${sandbox}, ${sandbox}, { name: metal, schemes: [sandbox] }, { name: composite }, { name: hcloud }]\nloadBalancer: hcloud2`,
      {
        "providers[1].name": '"sandbox" is already providers[0]; give each provider once',
        "providers[2].schemes": `scheme "sandbox" is already sandbox's; a Node's provider ID must lead to one provider`,
        "providers[3].name": "a composite cannot contain a composite; list its parts",
        "providers[4].name": `"hcloud" is not a provider of this executable; it knows legacy, liar, metal, sandbox`,
        loadBalancer: `"hcloud2" is not one of the providers listed (sandbox, metal, composite, hcloud)`,
      },
    ],
    [
      "a part's fields checked with the part named",
      "providers: [{ name: metal, config: [1], schemes: [Sandbox://], nodes: maybe, colour: red }, 3]",
      {
        "providers[0].config": "must be a mapping: the provider's own cloud-config, as it takes it alone",
        "providers[0].schemes[0]": "must be a lower-case provider-ID scheme such as sandbox, without ://",
        "providers[0].nodes": "must be true or false (does this part serve Nodes)",
        "providers[0].colour": "is not a field of a part; the fields are name, config, schemes and nodes",
        "providers[1]": "must be a mapping such as { name: metal, config: {...} }",
      },
    ],
    [
      "load balancers or routes from a part that offers none with its configuration",
      `providers: [{ name: metal }]\nloadBalancer: metal\nroutes: metal`,
      {
        loadBalancer: 'provider "metal" offers no loadBalancer with this configuration; no listed provider does',
        routes: 'provider "metal" offers no routes with this configuration; no listed provider does',
      },
    ],
    [
      "a part with only the legacy Instances API that is to serve Nodes",
      "providers: [{ name: legacy }]",
      {
        "providers[0].nodes":
          'provider "legacy" offers only the legacy Instances API, and the composite routes Nodes through InstancesV2; set nodes: false',
      },
    ],
    [
      "a factory that builds a provider of another name",
      "providers: [{ name: liar, nodes: false }]",
      { "providers[0].name": 'provider "liar" built a provider named "fake"' },
    ],
  ];
  for (const [name, config, expected] of cases) {
    test(`refuses ${name}`, async () => {
      expect(await problems(config)).toEqual(expected);
    });
  }

  test("a YAML key given twice is refused with its lines", async () => {
    expect(await problems("providers: []\nproviders: [{ name: metal }]")).toEqual({
      providers: expect.stringContaining("is given twice in one mapping, at lines 1 and 2"),
    });
  });

  test("the message names the file and each problem's path", async () => {
    const err = await rejection(() => build("providers: [{ name: sandbox, config: { url: nope, token: t } }]"));
    expect(err.message).toContain("--cloud-config=c.yaml is invalid (1 problem):\n  - providers[0].config.url: ");
  });
});
