/**
 * Pools in kube-vip-cloud-provider's ConfigMap format (by default `kube-system/kubevip`), so a cluster can switch
 * providers without rewriting its pools:
 *
 * - `cidr-<namespace>` / `cidr-global`: comma-separated CIDRs, IPv4 and/or IPv6;
 * - `range-<namespace>` / `range-global`: comma-separated `start-end` ranges (they may overlap);
 * - `allow-share-<namespace>` / `allow-share-global`: `true` lets Services share an address when ports differ;
 * - `interface-<namespace>` / `interface-global`: copied to `kube-vip.io/serviceInterface`;
 * - `search-order: desc`: allocate from the top; `skip-end-ips-in-cidr: true`: leave out IPv4 network and
 *   broadcast addresses of CIDRs.
 *
 * Differences, on purpose: `cidr-` and `range-` of one scope are combined (kube-vip-cloud-provider reads `cidr-`
 * only when both exist); as there, automatic allocation skips IPv4 addresses ending in `.0` or `.255`. DHCP mode
 * (`0.0.0.0/32`) is refused. Sharing happens only when a Service asks for an address another one holds.
 */
import { type AddressPool, buildPool, type PoolSet } from "./pools.ts";

export interface KubeVipPools {
  readonly set: PoolSet;
  /** Every problem found, each naming the key and the fix; broken scopes are also in `set.broken`. */
  readonly problems: readonly string[];
}

const TRUE = new Set(["true", "True", "TRUE", "1", "t", "T"]);
const FALSE = new Set(["false", "False", "FALSE", "0", "f", "F"]);

/** Parses the ConfigMap's `data`; `source` names it in messages (`ConfigMap kube-system/kubevip`). */
export function parseKubeVipConfigMap(data: Readonly<Record<string, string>>, source: string): KubeVipPools {
  const problems: string[] = [];
  const entries = new Map<string, { keys: string[]; values: string[]; problems: string[] }>();
  const sharing = new Map<string, boolean>();
  const interfaces = new Map<string, string>();
  const flag = (key: string, value: string): boolean | undefined => {
    const v = value.trim();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    problems.push(`${key}: "${value}" is not a boolean; write true or false`);
    return undefined;
  };
  let descending = false;
  let skipEnds = false;
  for (const [key, value] of Object.entries(data)) {
    const scoped = /^(cidr|range|allow-share|interface)-(.+)$/.exec(key);
    if (key === "search-order") {
      if (value.trim() !== "desc" && value.trim() !== "asc") problems.push(`${key}: "${value}" must be asc or desc`);
      descending = value.trim() === "desc";
    } else if (key === "skip-end-ips-in-cidr") skipEnds = flag(key, value) ?? false;
    else if (!scoped)
      problems.push(`${key}: not a kube-vip pool key (cidr-, range-, allow-share-, interface-); ignored`);
    else {
      const [, kind, scope = ""] = scoped;
      if (kind === "allow-share") {
        const on = flag(key, value);
        if (on !== undefined) sharing.set(scope, on);
      } else if (kind === "interface") interfaces.set(scope, value.trim());
      else {
        const list = value
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
        const entry = entries.get(scope) ?? { keys: [], values: [], problems: [] };
        entry.keys.push(key);
        for (const v of list) {
          const fits = kind === "cidr" ? v.includes("/") : v.includes("-");
          if (fits) entry.values.push(v);
          else
            entry.problems.push(
              `${key}: "${v}" is not a ${kind === "cidr" ? "CIDR such as 192.0.2.0/24" : "range such as 192.0.2.10-192.0.2.20"}`,
            );
        }
        entries.set(scope, entry);
        if (list.length === 0) entry.problems.push(`${key}: is empty; list addresses or remove the key`);
      }
    }
  }
  const pools = new Map<string, AddressPool>();
  const broken = new Map<string, readonly string[]>();
  for (const [scope, entry] of entries) {
    const built = buildPool({
      scope,
      source: `${source} ${entry.keys.join(", ")}`,
      entries: entry.values,
      skipCIDREnds: skipEnds,
      avoidBuggyIPs: true,
      descending,
      interface: interfaces.get(scope),
    });
    const keys = entry.keys.join(" / ");
    const found = [...entry.problems, ...(Array.isArray(built) ? built.map((p) => `${keys}: ${p}`) : [])];
    if (!Array.isArray(built) && found.length === 0) {
      pools.set(scope, built);
      continue;
    }
    problems.push(...found);
    broken.set(scope, found);
  }
  return { set: { pools, broken, sharing }, problems };
}
