import { expect, test } from "bun:test";
import { referenceProblems, schemaKeys } from "../kit/settings-reference.ts";
import { proxmoxConfigSchema } from "./config.ts";
import { proxmox } from "./provider.ts";

test("the proxmox reference documents every key of the cloud-config, each once, and nothing else", () => {
  const { leaves, containers } = schemaKeys(proxmoxConfigSchema);
  expect(referenceProblems(proxmox.settings.reference ?? [], leaves, containers)).toEqual([]);
});
