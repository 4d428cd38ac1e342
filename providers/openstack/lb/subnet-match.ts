/**
 * Choosing the floating network's subnet by name or tags, as OCCM's `floating-subnet` and `floating-subnet-tags`
 * (its `loadbalancer_subnet_match.go`):
 *
 * - a name pattern is a glob (`public-*`), or a regular expression after `~`, matching the whole name; a leading `!`
 *   negates it;
 * - tags are comma-separated: any of them by default, all of them after `&`; a leading `!` negates (`!&a,b`: not all).
 */

export interface NamedSubnet {
  readonly id: string;
  readonly name: string;
  readonly tags: readonly string[];
}

export type SubnetMatcher = (subnet: NamedSubnet) => boolean;

/** The matcher of a name pattern, or why the pattern is no pattern. */
export function subnetNameMatcher(text: string): SubnetMatcher | { readonly problem: string } {
  const not = text.startsWith("!");
  const pattern = not ? text.slice(1) : text;
  let re: RegExp;
  if (pattern.startsWith("~")) {
    try {
      re = new RegExp(pattern.slice(1));
    } catch (err) {
      return { problem: `"${pattern.slice(1)}" is no regular expression: ${(err as Error).message}` };
    }
  } else {
    const source = [...pattern]
      .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
      .join("");
    re = new RegExp(`^${source}$`);
  }
  const whole = (name: string) => {
    const m = re.exec(name);
    return m !== null && m.index === 0 && m[0] === name;
  };
  return (s) => whole(s.name) !== not;
}

export function subnetTagMatcher(text: string): SubnetMatcher {
  let rest = text;
  const not = rest.startsWith("!");
  if (not) rest = rest.slice(1);
  const all = rest.startsWith("&");
  if (all) rest = rest.slice(1);
  const tags = rest
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  return (s) => {
    const has = (t: string) => s.tags.includes(t);
    const hit = all ? tags.every(has) : tags.some(has);
    return hit !== not;
  };
}

/** The subnets `pattern` and `tags` (either may be absent) both accept, in the order given. */
export function matchingSubnets(
  subnets: readonly NamedSubnet[],
  pattern: string | undefined,
  tags: string | undefined,
): NamedSubnet[] {
  const byName = pattern === undefined ? undefined : subnetNameMatcher(pattern);
  if (byName !== undefined && typeof byName !== "function") throw new Error(byName.problem);
  const byTags = tags === undefined ? undefined : subnetTagMatcher(tags);
  return subnets.filter((s) => (byName ? byName(s) : true) && (byTags ? byTags(s) : true));
}
