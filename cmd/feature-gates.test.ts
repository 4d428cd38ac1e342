import { describe, expect, test } from "bun:test";
import { FEATURE_GATES, type GateDef, knownFeatureLines, parseFeatureGates } from "./feature-gates.ts";

const g = (name: string, stage: GateDef["stage"], def: boolean, locked = false): GateDef => ({
  name,
  stage,
  default: def,
  here: "",
  ...(locked && { locked: true }),
});
/** A small table with one gate of each kind, beside the two global ones. */
const TABLE = [
  g("AllAlpha", "ALPHA", false),
  g("AllBeta", "BETA", false),
  g("Alpha", "ALPHA", false),
  g("BetaOff", "BETA", false),
  g("BetaOn", "BETA", true),
  g("Stable", "GA", true),
  g("Locked", "GA", true, true),
  g("Old", "DEPRECATED", false),
];

const gatesFor = (value: string) => {
  const r = parseFeatureGates(value, TABLE);
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return Object.fromEntries(r.gates);
};
const errorsFor = (value: string) => {
  const r = parseFeatureGates(value, TABLE);
  return r.ok ? [] : r.errors;
};

describe("parseFeatureGates", () => {
  test.each([
    ["an empty value leaves every default", "", {}],
    ["a named gate takes its value", "Alpha=true", { Alpha: true }],
    ["Go's spellings of a bool are read", "Alpha=T,BetaOn=0", { Alpha: true, BetaOn: false }],
    ["spaces and empty entries are skipped", " Alpha = true ,,", { Alpha: true }],
    ["the last repeat wins", "Alpha=true,Alpha=false", {}],
    ["AllAlpha=true turns on every alpha gate", "AllAlpha=true", { AllAlpha: true, Alpha: true }],
    ["AllBeta=true turns on every beta gate", "AllBeta=true", { AllBeta: true, BetaOff: true }],
    ["AllBeta=false turns off every beta gate", "AllBeta=false", { BetaOn: false }],
    ["a gate named explicitly wins over AllBeta, before it", "BetaOff=false,AllBeta=true", { AllBeta: true }],
    ["a gate named explicitly wins over AllBeta, after it", "AllBeta=true,BetaOff=false", { AllBeta: true }],
    ["AllAlpha leaves beta gates alone", "AllAlpha=true,AllBeta=false", { AllAlpha: true, Alpha: true, BetaOn: false }],
    ["a locked gate may be set to its default", "Locked=true", {}],
  ])("%s", (_name, value, changed) => {
    const defaults = Object.fromEntries(TABLE.map((d) => [d.name, d.default]));
    expect(gatesFor(value)).toEqual({ ...defaults, ...changed });
  });

  test.each([
    [
      "an unknown gate",
      "Nope=true",
      ["--feature-gates: unrecognized feature gate: Nope (--help lists the known ones)"],
    ],
    ["a gate without a value", "Alpha", ["--feature-gates: missing bool value for Alpha"]],
    ["a value that is no bool", "Alpha=yes", ["--feature-gates: invalid value of Alpha=yes: must be true or false"]],
    [
      "a locked gate set away from its default",
      "Locked=false",
      ["--feature-gates: cannot set feature gate Locked to false, feature is locked to true"],
    ],
    [
      "several problems, all of them",
      "Nope=true,Alpha=maybe",
      [
        "--feature-gates: unrecognized feature gate: Nope (--help lists the known ones)",
        "--feature-gates: invalid value of Alpha=maybe: must be true or false",
      ],
    ],
  ])("refuses %s", (_name, value, want) => {
    expect(errorsFor(value)).toEqual(want);
  });

  test("warns of a GA or a deprecated gate that is set, not of others", () => {
    const r = parseFeatureGates("Stable=true,Old=false,Alpha=true", TABLE);
    expect(r.ok && r.warnings).toEqual([
      "setting GA feature gate Stable=true; it will be removed in a future release",
      "setting deprecated feature gate Old=false; it will be removed in a future release",
    ]);
  });
});

describe("the gate table", () => {
  test("names each gate once", () => {
    const names = FEATURE_GATES.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
  });

  test.each([
    // component-base's own, and its logging, metrics and z-pages gates
    ["AllAlpha", "ALPHA", false],
    ["AllBeta", "BETA", false],
    ["ContextualLogging", "BETA", true],
    ["LoggingAlphaOptions", "ALPHA", false],
    ["LoggingBetaOptions", "BETA", true],
    ["NativeHistograms", "ALPHA", false],
    ["ComponentStatusz", "BETA", true],
    // apiserver's
    ["UnauthenticatedHTTP2DOSMitigation", "BETA", true],
    ["APIServerTracing", "GA", true],
    // the controller-manager's
    ["CloudControllerManagerWatchBasedRoutesReconciliation", "ALPHA", false],
    ["CloudControllerManagerWebhook", "ALPHA", false],
    ["ControllerManagerReleaseLeaderElectionLockOnExit", "ALPHA", false],
  ] as const)("holds upstream's %s (%s, default %p)", (name, stage, def) => {
    expect(FEATURE_GATES.find((d) => d.name === name)).toMatchObject({ stage, default: def });
  });

  test("refuses a locked gate away from its default, as upstream does for APIServerTracing", () => {
    const r = parseFeatureGates("APIServerTracing=false");
    expect(r.ok ? [] : r.errors).toEqual([
      "--feature-gates: cannot set feature gate APIServerTracing to false, feature is locked to true",
    ]);
  });

  test("AllAlpha=true turns on the watch-based route reconciliation", () => {
    const r = parseFeatureGates("AllAlpha=true");
    expect(r.ok && r.gates.get("CloudControllerManagerWatchBasedRoutesReconciliation")).toBe(true);
  });

  test("says what every gate does here, and why when nothing", () => {
    for (const d of FEATURE_GATES) {
      expect(d.here).not.toBe("");
      if (d.effect === "none") expect(d.here).toStartWith("No effect here: ");
    }
  });
});

describe("knownFeatureLines", () => {
  test("lists alpha and beta gates in upstream's form, sorted as Go sorts, leaving GA and deprecated ones out", () => {
    expect(knownFeatureLines(TABLE)).toEqual([
      "AllAlpha=true|false (ALPHA - default=false)",
      "AllBeta=true|false (BETA - default=false)",
      "Alpha=true|false (ALPHA - default=false)",
      "BetaOff=true|false (BETA - default=false)",
      "BetaOn=true|false (BETA - default=true)",
    ]);
  });

  test("sorts capitals before lower case, as Go's byte order does", () => {
    const lines = knownFeatureLines();
    expect(lines.indexOf("APIServerIdentity=true|false (BETA - default=true)")).toBeLessThan(
      lines.indexOf("AllAlpha=true|false (ALPHA - default=false)"),
    );
  });
});
