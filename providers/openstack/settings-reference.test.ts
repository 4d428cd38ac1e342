import { describe, expect, test } from "bun:test";
import { referenceProblems } from "../kit/settings-reference.ts";
import { cloudConfKeyNames } from "./config.ts";
import { openstack } from "./provider.ts";

describe("the openstack settings reference", () => {
  test("documents every key and variable the provider reads, each once, and nothing else", () => {
    const read = [...cloudConfKeyNames(), "OS_CCM_REGIONAL"];
    expect(referenceProblems(openstack.settings.reference ?? [], read)).toEqual([]);
  });
});
