/**
 * Reading inventory entries from a ConfigMap: one data key per machine, the key being the machine's (Node's) name
 * and the value a YAML mapping of its fields (see machine-schema.ts). An entry that cannot be read is reported with
 * every problem and the fix, and its node is neither initialised from it nor ever reported missing.
 */
import * as v from "valibot";
import { issuesOf, tagIssues } from "../../config/validate.ts";
import type { ConfigMap } from "../../kube/objects.ts";
import type { ConfigMapMachines } from "./inventory.ts";
import { type Machine, machineBodySchema, toMachine } from "./machine-schema.ts";
import { formatProviderID } from "./provider-id.ts";

const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The entries of an inventory ConfigMap, or `null` when it does not exist. */
export function readInventoryConfigMap(cm: ConfigMap | undefined): ConfigMapMachines | null {
  if (!cm) return null;
  const machines: Machine[] = [];
  const invalid = new Map<string, string[]>();
  const seenIDs = new Map<string, string>();
  for (const [name, text] of Object.entries(cm.data ?? {})) {
    if (!NODE_NAME.test(name) || name.length > 253) {
      invalid.set(name, [`the key "${name}" is not a Node name; use the node's lower-case name as the key`]);
      continue;
    }
    let raw: unknown;
    try {
      raw = text.trim() === "" ? {} : Bun.YAML.parse(text);
    } catch (err) {
      invalid.set(name, [`not valid YAML: ${(err as Error).message}`]);
      continue;
    }
    const tagged = tagIssues(text);
    if (tagged.length > 0) {
      invalid.set(
        name,
        tagged.map((i) => `${i.path}: ${i.message}`),
      );
      continue;
    }
    const result = v.safeParse(machineBodySchema, raw ?? {}, { abortEarly: false });
    if (!result.success) {
      invalid.set(
        name,
        issuesOf(result.issues).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)),
      );
      continue;
    }
    const machine = toMachine(name, result.output, formatProviderID);
    const other = seenIDs.get(machine.providerID);
    if (other !== undefined) {
      invalid.set(name, [`providerID "${machine.providerID}" is also the provider ID of "${other}"`]);
      continue;
    }
    seenIDs.set(machine.providerID, name);
    machines.push(machine);
  }
  return { machines, invalid };
}

/** One line per unreadable entry, for the log. */
export function describeInvalid(source: string, invalid: ReadonlyMap<string, readonly string[]>): string[] {
  return [...invalid].map(([name, problems]) => `${source} entry "${name}": ${problems.join("; ")}`);
}
