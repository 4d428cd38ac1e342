import { describe, expect, test } from "bun:test";
import { flagsReference } from "../scripts/gen-docs.ts";
import { FEATURE_GATES } from "./feature-gates.ts";
import { FLAGS } from "./flags.ts";
import { renderFlagSections } from "./help.ts";

const compatibilityOnly = FLAGS.filter((f) => f.effect === "none");

describe("the flag table", () => {
  test("every compatibility-only flag gives a reason of at least one sentence", () => {
    const withoutReason = compatibilityOnly.filter((f) => !/^[A-Z-].{20,}[.)]$/s.test(f.reason?.trim() ?? ""));
    expect(withoutReason.map((f) => `--${f.name}: ${JSON.stringify(f.reason)}`)).toEqual([]);
  });

  test("a reason is only given with effect none", () => {
    expect(FLAGS.filter((f) => f.reason !== undefined && f.effect !== "none").map((f) => f.name)).toEqual([]);
  });

  test("the help of a compatibility-only flag does not stand in for its reason", () => {
    // What upstream's flag means goes in `help`; why it has no effect here goes in `reason`.
    expect(compatibilityOnly.filter((f) => /no effect|not served here/i.test(f.help)).map((f) => f.name)).toEqual([]);
  });

  test("docs/flags.md and --help print each compatibility-only flag's reason", () => {
    const docs = flagsReference();
    const help = renderFlagSections(undefined, ["sandbox"]).join("\n");
    for (const f of compatibilityOnly) {
      const row = docs.split("\n").find((line) => line.startsWith(`| \`--${f.name}\` |`));
      expect(row).toContain(`*compatibility only*: ${f.reason?.replaceAll("|", "\\|")}`);
      expect(help.replace(/\s+/g, " ")).toContain(`no effect here: ${f.reason}]`);
    }
  });

  test("the flags upstream acts on and that are built here are not compatibility-only", () => {
    const built = [
      "cert-dir",
      "permit-port-sharing",
      "log-text-split-stream",
      "tls-min-version",
      "tls-cipher-suites",
      "webhook-tls-min-version",
      "webhook-tls-cipher-suites",
    ];
    expect(compatibilityOnly.map((f) => f.name).filter((n) => built.includes(n))).toEqual([]);
  });

  test("every compatibility-only feature gate says why it changes nothing here", () => {
    const withoutReason = FEATURE_GATES.filter((g) => g.effect === "none" && !/^No effect here: .{20,}/.test(g.here));
    expect(withoutReason.map((g) => g.name)).toEqual([]);
  });
});
