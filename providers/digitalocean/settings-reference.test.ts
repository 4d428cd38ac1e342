import { describe, expect, test } from "bun:test";
import { referenceProblems } from "../kit/settings-reference.ts";
import { digitalOceanSettingNames } from "./config.ts";
import { digitalocean } from "./provider.ts";

describe("the digitalocean settings reference", () => {
  test("documents every variable the provider reads, each once, and nothing else", () => {
    expect(referenceProblems(digitalocean.settings.reference ?? [], digitalOceanSettingNames)).toEqual([]);
  });
});
