import { describe, expect, test } from "bun:test";
import { referenceProblems } from "../kit/settings-reference.ts";
import { scalewaySettingNames } from "./config.ts";
import { scaleway } from "./provider.ts";

describe("the scaleway settings reference", () => {
  test("documents every variable the provider reads, each once, and nothing else", () => {
    expect(referenceProblems(scaleway.settings.reference ?? [], scalewaySettingNames)).toEqual([]);
  });
});
