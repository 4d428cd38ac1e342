/**
 * The controllers this manager runs, their aliases, and the `--controllers` resolution.
 * One table: the command validates against it, the manager starts from it, logs and metrics name from it.
 */

export const CONTROLLERS = [
  { name: "cloud-node-controller", alias: "cloud-node", metricName: "cloud-node" },
  { name: "cloud-node-lifecycle-controller", alias: "cloud-node-lifecycle", metricName: "cloud-node-lifecycle" },
  { name: "service-lb-controller", alias: "service", metricName: "service" },
  { name: "node-route-controller", alias: "route", metricName: "route" },
  { name: "node-ipam-controller", alias: "nodeipam", metricName: "nodeipam" },
] as const;

export type ControllerName = (typeof CONTROLLERS)[number]["name"];

const KNOWN = new Set<string>(CONTROLLERS.map((c) => c.name));
const ALIASES = new Map<string, ControllerName>(CONTROLLERS.map((c) => [c.alias, c.name]));

/** The canonical name for a name or alias, or `undefined`. */
export function canonicalControllerName(nameOrAlias: string): ControllerName | undefined {
  if (KNOWN.has(nameOrAlias)) return nameOrAlias as ControllerName;
  return ALIASES.get(nameOrAlias);
}

/**
 * Validate `--controllers` entries: each entry other than `*`, without its leading `-` and after alias
 * resolution, must be a known controller. Messages are upstream's.
 */
export function validateControllerList(entries: readonly string[]): string[] {
  const errors: string[] = [];
  for (const entry of entries) {
    if (entry === "*") continue;
    const bare = entry.startsWith("-") ? entry.slice(1) : entry;
    if (!canonicalControllerName(bare)) errors.push(`"${bare}" is not in the list of known controllers`);
  }
  return errors;
}

/** Rewrite entries to canonical names, keeping a leading `-` (upstream config derivation step 3). */
export function canonicalizeControllerList(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    if (entry === "*") return entry;
    const negated = entry.startsWith("-");
    const bare = negated ? entry.slice(1) : entry;
    const name = canonicalControllerName(bare) ?? bare;
    return negated ? `-${name}` : name;
  });
}

/**
 * Is `name` enabled by the (canonicalised) list? The first entry naming it decides (`name` on, `-name` off);
 * otherwise it is on only if the list contains `*`. An empty list enables nothing.
 */
export function isControllerEnabled(name: ControllerName, entries: readonly string[]): boolean {
  let star = false;
  for (const entry of entries) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === "*") star = true;
  }
  return star;
}

/** Every controller enabled by the list, in table order. */
export function enabledControllers(entries: readonly string[]): ControllerName[] {
  const canonical = canonicalizeControllerList(entries);
  return CONTROLLERS.map((c) => c.name).filter((name) => isControllerEnabled(name, canonical));
}
