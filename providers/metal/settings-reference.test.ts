import { expect, test } from "bun:test";
import { referenceProblems, schemaKeys } from "../kit/settings-reference.ts";
import { metalConfigSchema } from "./config.ts";
import { metal } from "./provider.ts";

test("the metal reference documents every key of the cloud-config, each once, and nothing else", () => {
  const { leaves, containers } = schemaKeys(metalConfigSchema);
  expect(referenceProblems(metal.settings.reference ?? [], leaves, containers)).toEqual([]);
});
