import { describe, expect, test } from "bun:test";
import { annotation } from "./declare.ts";
import { bool, cidr, duration, list, text } from "./readers.ts";
import { annotationTable, withGeneratedSection } from "./reference.ts";

describe("the reference table", () => {
  test("states type, default, meaning with what is accepted, and an example", () => {
    const table = annotationTable([
      annotation("example.com/interval", duration(), {
        description: "Between checks.",
        example: "15s",
        default: 15_000,
      }),
      annotation("example.com/proxy", bool(), { description: "PROXY | v2.", example: "true" }),
      annotation("example.com/sources", list(cidr()), {
        description: "Who may connect.",
        example: "10.0.0.0/8",
        default: [],
        defaultText: "everyone",
      }),
      annotation("example.com/record", text(), { description: "The record.", example: "", writtenBy: "provider" }),
    ]);
    expect(table.split("\n")).toEqual([
      "| annotation | type | default | meaning | example |",
      "|---|---|---|---|---|",
      "| `example.com/interval` | duration | `15s` | Between checks. Accepts a duration such as 30s or 1m30s. | `15s` |",
      "| `example.com/proxy` | bool | not set | PROXY \\| v2. Accepts true or false. | `true` |",
      "| `example.com/sources` | list of CIDR | everyone | Who may connect. Accepts a comma-separated list, each a CIDR such as 10.0.0.0/8 or 2001:db8::/32. | `10.0.0.0/8` |",
      '| `example.com/record` | string | not set | The record. *Written by the provider; do not edit.* | `""` |',
    ]);
  });
});

describe("generated sections", () => {
  const page = [
    "# Title",
    "<!-- BEGIN GENERATED annotations: npx bun scripts/gen-docs.ts writes this; do not edit -->",
    "old",
    "<!-- END GENERATED annotations -->",
    "after",
  ].join("\n");

  test("replaces only what lies between the markers", () => {
    expect(withGeneratedSection(page, "annotations", "new\n")).toBe(page.replace("old", "new"));
  });

  test("is stable: generating twice changes nothing", () => {
    const once = withGeneratedSection(page, "annotations", "new");
    expect(withGeneratedSection(once, "annotations", "new")).toBe(once);
  });

  test("refuses a page without the markers, saying which lines to add", () => {
    expect(() => withGeneratedSection("# Title\n", "annotations", "x", "docs/x.md")).toThrow(
      'docs/x.md has no generated section "annotations": add the lines\n<!-- BEGIN GENERATED annotations',
    );
  });
});
