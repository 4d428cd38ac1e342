import { describe, expect, test } from "bun:test";
import { referenceProblems, settingsTable } from "../kit/settings-reference.ts";
import { hcloudSettingNames } from "./config.ts";
import { hcloud } from "./provider.ts";

describe("the hcloud settings reference", () => {
  test("documents every variable the provider reads, each once, and nothing else", () => {
    expect(referenceProblems(hcloud.settings.reference ?? [], hcloudSettingNames)).toEqual([]);
  });

  test("renders one row per group, its names in code", () => {
    const table = settingsTable(hcloud.settings.reference ?? []).split("\n");
    expect(table[0]).toBe("| variable | default | meaning |");
    expect(table).toContainEqual(
      expect.stringMatching(/^\| `HCLOUD_RATE_LIMIT_QPS`, `HCLOUD_RATE_LIMIT_BURST` \| `0\.9`, `10` \|/),
    );
  });
});
