/**
 * The machine inventory: the cloud-config's machines, overlaid by a watched ConfigMap's (an entry there replaces the
 * cloud-config's entry of the same name). A node is matched by provider ID when it has one, else by name; a node
 * with a provider ID is never matched by name, because its ID is immutable and another ID means another machine.
 *
 * "Absent" is only trusted when every configured source has been read: until the ConfigMap's first read, or while
 * it does not exist, the inventory is incomplete, and nothing is reported missing because of it.
 */
import type { Node } from "../../kube/objects.ts";
import type { Machine } from "./machine-schema.ts";

export type Lookup =
  | { readonly kind: "machine"; readonly machine: Machine }
  | { readonly kind: "invalid"; readonly name: string; readonly problems: readonly string[] }
  | { readonly kind: "absent" };

export interface ConfigMapMachines {
  readonly machines: readonly Machine[];
  /** Entries that could not be read: name → problems. */
  readonly invalid: ReadonlyMap<string, readonly string[]>;
}

export class Inventory {
  readonly #static: readonly Machine[];
  /** `undefined`: not read yet; `null`: read, and it does not exist. */
  #configMap: ConfigMapMachines | null | undefined;
  readonly #configMapName: string | undefined;
  #byName = new Map<string, Machine>();
  #byProviderID = new Map<string, Machine>();

  /** `configMapName` (namespace/name) when a ConfigMap is configured: then the inventory starts incomplete. */
  constructor(machines: readonly Machine[], configMapName?: string) {
    this.#static = machines;
    this.#configMapName = configMapName;
    this.#configMap = configMapName === undefined ? null : undefined;
    this.#rebuild();
  }

  /** The ConfigMap's current entries, or `null` when it does not exist. */
  setConfigMap(entries: ConfigMapMachines | null): void {
    this.#configMap = entries;
    this.#rebuild();
  }

  #rebuild(): void {
    const byName = new Map<string, Machine>();
    for (const m of this.#static) byName.set(m.name, m);
    for (const m of this.#configMap?.machines ?? []) byName.set(m.name, m);
    for (const name of this.#configMap?.invalid.keys() ?? []) byName.delete(name);
    this.#byName = byName;
    this.#byProviderID = new Map([...byName.values()].map((m) => [m.providerID, m]));
  }

  lookup(node: Node): Lookup {
    const providerID = node.spec?.providerID;
    const name = node.metadata?.name ?? "";
    if (providerID) {
      const machine = this.#byProviderID.get(providerID);
      if (machine) return { kind: "machine", machine };
    } else {
      const machine = this.#byName.get(name);
      if (machine) return { kind: "machine", machine };
    }
    // An unreadable entry may be this node's: never "absent" then, whatever its provider ID.
    const problems = this.#configMap?.invalid.get(name);
    if (problems) return { kind: "invalid", name, problems };
    return { kind: "absent" };
  }

  /** Why an "absent" answer cannot be trusted yet, or undefined when every source has been read. */
  incomplete(): string | undefined {
    if (this.#configMapName === undefined) return undefined;
    if (this.#configMap === undefined) return `the inventory ConfigMap ${this.#configMapName} has not been read yet`;
    if (this.#configMap === null) return `the inventory ConfigMap ${this.#configMapName} does not exist`;
    return undefined;
  }

  /** Every machine, cloud-config first overlaid by the ConfigMap. */
  machines(): Machine[] {
    return [...this.#byName.values()];
  }
}
