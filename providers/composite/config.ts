/**
 * The composite provider's cloud-config (`--cloud-config`, YAML or JSON), documented in docs/composing-providers.md:
 * the providers to compose, each with its own configuration exactly as it takes it alone, and which of them serves
 * load balancers and routes.
 *
 * ```yaml
 * providers:
 *   - name: sandbox                  # a provider this executable knows
 *     config: { url: http://127.0.0.1:8081, token: dev }   # its cloud-config, as a mapping
 *     schemes: [sandbox]             # provider-ID schemes of its Nodes (default: its name)
 *   - name: metal
 *     config: { inventory: { machines: [...] } }
 *     nodes: true                    # false: this part serves no Nodes (only load balancers or routes)
 * loadBalancer: metal                # the part whose load balancers the service controller uses (absent: none)
 * routes: sandbox                    # the part whose routes the route controller programs (absent: none)
 * ```
 *
 * `loadBalancer` and `routes` are never inferred: a cloud the operator did not name must not start making load
 * balancers because it happens to offer them.
 */
import * as v from "valibot";
import type { ConfigIssue } from "../../config/errors.ts";
import { issuesOf } from "../../config/validate.ts";

/** A provider-ID scheme as Kubernetes compares it: the part before `://`, lower case. */
const schemePattern = /^[a-z][a-z0-9+.-]*$/;

const partName = v.pipe(
  v.string("must be the name of a provider, such as sandbox or metal"),
  v.nonEmpty("must be the name of a provider, such as sandbox or metal"),
);

const scheme = v.pipe(
  v.string("must be a provider-ID scheme such as sandbox (the part before ://)"),
  v.regex(schemePattern, "must be a lower-case provider-ID scheme such as sandbox, without ://"),
);

const part = v.objectWithRest(
  {
    name: partName,
    // A mapping, never a list: YAML lists would pass a record check as objects with numeric keys.
    config: v.optional(
      v.custom<Readonly<Record<string, unknown>>>(
        (c) => typeof c === "object" && c !== null && !Array.isArray(c),
        "must be a mapping: the provider's own cloud-config, as it takes it alone",
      ),
    ),
    schemes: v.optional(
      v.pipe(v.array(scheme, "must be a list of provider-ID schemes"), v.minLength(1, "must name at least one scheme")),
    ),
    nodes: v.optional(v.boolean("must be true or false (does this part serve Nodes)"), true),
  },
  v.never("is not a field of a part; the fields are name, config, schemes and nodes"),
  "must be a mapping such as { name: metal, config: {...} }",
);

const schema = v.objectWithRest(
  {
    providers: v.pipe(
      v.array(part, "must be a list of providers, such as [{ name: sandbox, config: {...} }, { name: metal }]"),
      v.minLength(1, "must name at least one provider"),
    ),
    loadBalancer: v.optional(partName),
    routes: v.optional(partName),
  },
  v.never("is not a known field; the fields are providers, loadBalancer and routes"),
  "must be a mapping with providers:",
);

export type CompositeConfig = v.InferOutput<typeof schema>;
export type PartConfig = CompositeConfig["providers"][number];

/** The scheme of a provider ID (`sandbox` in `sandbox://m-1`), or undefined when it has none. */
export function schemeOf(providerID: string): string | undefined {
  const at = providerID.indexOf("://");
  return at > 0 ? providerID.slice(0, at) : undefined;
}

/**
 * Validate the composite's own fields. Returns the typed config (when there is no problem) and every problem: shape
 * problems from the schema, and what spans fields (names and schemes given twice, `loadBalancer`/`routes` naming no
 * part, a part that is the composite itself), checked on every entry that has what the check reads, so one typo
 * does not hide another.
 */
export function checkCompositeConfig(raw: unknown): { config?: CompositeConfig; issues: ConfigIssue[] } {
  const result = v.safeParse(schema, raw, { abortEarly: false });
  const issues = [...(result.success ? [] : issuesOf(result.issues)), ...crossFieldIssues(raw)];
  return result.success && issues.length === 0 ? { config: result.output, issues } : { issues };
}

function crossFieldIssues(raw: unknown): ConfigIssue[] {
  const top = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const entries = Array.isArray(top.providers) ? (top.providers as unknown[]) : [];
  const issues: ConfigIssue[] = [];
  const firstByName = new Map<string, number>();
  const ownerOfScheme = new Map<string, string>();
  entries.forEach((entry, i) => {
    const { name, schemes, nodes } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    if (typeof name !== "string" || name === "") return;
    const seen = firstByName.get(name);
    if (seen !== undefined) {
      issues.push({
        path: `providers[${i}].name`,
        message: `"${name}" is already providers[${seen}]; give each provider once`,
      });
    } else firstByName.set(name, i);
    if (name === "composite") {
      issues.push({ path: `providers[${i}].name`, message: "a composite cannot contain a composite; list its parts" });
    }
    if (nodes === false) return;
    const declared = Array.isArray(schemes) ? schemes.filter((x): x is string => typeof x === "string") : [name];
    for (const scheme of declared) {
      const owner = ownerOfScheme.get(scheme);
      if (owner !== undefined && owner !== name) {
        issues.push({
          path: `providers[${i}].schemes`,
          message: `scheme "${scheme}" is already ${owner}'s; a Node's provider ID must lead to one provider`,
        });
      } else ownerOfScheme.set(scheme, name);
    }
  });
  for (const field of ["loadBalancer", "routes"] as const) {
    const name = top[field];
    if (typeof name === "string" && name !== "" && !firstByName.has(name)) {
      issues.push({
        path: field,
        message: `"${name}" is not one of the providers listed (${[...firstByName.keys()].join(", ") || "none"})`,
      });
    }
  }
  return issues;
}

/** The provider-ID schemes whose Nodes a part serves: as configured, else its name. */
export function schemesOf(part: PartConfig): readonly string[] {
  return part.schemes ?? [part.name];
}
