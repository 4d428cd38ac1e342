/**
 * The metal provider's cloud-config (`--cloud-config`, YAML or JSON), documented in docs/providers/metal.md. Every part is
 * optional: without a file, nodes are initialised from what they report themselves and there are no load balancers.
 *
 * ```yaml
 * inventory:
 *   machines: [{ name: node-1, addresses: { InternalIP: 10.0.0.11 }, zone: rack-1 }]
 *   configMap: { namespace: kube-system, name: metal-inventory }   # also watch this ConfigMap
 *   requireInventoryEntry: false            # true: a node without an entry stays uninitialised
 *   deleteNodesMissingFromInventory: false  # true: a NotReady node without an entry is deleted
 * shutdownProbe: { port: 22, timeoutMs: 2000 }  # a NotReady node whose port does not answer is "shut down"
 * loadBalancer:                                  # present ⇒ the provider offers load balancers
 *   global: { addresses: [192.0.2.0/28, 2001:db8::/120], allowShare: false }
 *   namespaces: { team-a: { addresses: [192.0.2.64-192.0.2.79] } }
 *   searchOrder: ascending
 *   avoidBuggyIPs: false
 *   kubeVipConfigMap: { namespace: kube-system, name: kubevip }  # also read pools in kube-vip's format
 *   kubeVipAnnotation: true                  # write kube-vip.io/loadbalancerIPs for kube-vip to announce
 *   classes: [metal.example.com/pool]        # also serve Services of these spec.loadBalancerClass values
 *   classless: true                          # serve Services without a class (false: beside MetalLB or Cilium)
 * ```
 */
import * as v from "valibot";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import { parseCloudConfig } from "../config.ts";
import { loadBalancerClassFields, servesNothing, servesNothingMessage } from "../load-balancer-classes.ts";
import { parseAddressEntry, parseCIDR } from "./address-ranges.ts";
import { dnsSubdomain, machineFields, machineKeys } from "./machine-schema.ts";
import { type AddressPool, buildPool, GLOBAL_SCOPE, type PoolSet } from "./pools.ts";

const defaultSource = "the metal cloud-config";

const bool = (what: string) => v.boolean(`must be true or false (${what})`);

const configMapRef = (defaults: { namespace: string; name: string }) =>
  v.objectWithRest(
    {
      namespace: v.optional(dnsSubdomain("a namespace"), defaults.namespace),
      name: v.optional(dnsSubdomain("a ConfigMap name"), defaults.name),
    },
    v.never("is not a field here; use namespace and name"),
    `must be a mapping such as { namespace: ${defaults.namespace}, name: ${defaults.name} }`,
  );

const machine = v.objectWithRest(
  { name: dnsSubdomain("the Node's name"), ...machineFields },
  v.never(`is not a machine field; the fields are ${machineKeys.join(", ")}`),
  (issue) =>
    issue.expected === '"name"'
      ? "is required: the machine's Node name"
      : "must be a mapping of machine fields such as name: and addresses:",
);

const addressEntry = v.pipe(
  v.string("must be a CIDR (192.0.2.0/24), a range (192.0.2.10-192.0.2.20) or an address"),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const parsed = parseAddressEntry(dataset.value, true);
    if (typeof parsed === "string") addIssue({ message: parsed });
    else if (parsed.family === 4 && parsed.end === 0n) addIssue({ message: "0.0.0.0 cannot be allocated" });
    else if (wholeSpace(dataset.value)) {
      // Skipping the network's ends makes 0.0.0.0/0 start at 0.0.0.1: it would hand out addresses nobody routes.
      const family = parsed.family === 4 ? "IPv4" : "IPv6";
      addIssue({
        message: `"${dataset.value}" is the whole ${family} address space; name the addresses load balancers may take, such as ${parsed.family === 4 ? "192.0.2.0/28" : "2001:db8::/120"}`,
      });
    }
  }),
);

const wholeSpace = (entry: string): boolean => {
  const cidr = entry.includes("/") ? parseCIDR(entry) : undefined;
  return typeof cidr === "object" && cidr.prefix === 0;
};

const pool = v.objectWithRest(
  {
    addresses: v.exactOptional(
      v.pipe(v.array(addressEntry, "must be a list of CIDRs and ranges"), v.minLength(1, "must not be empty")),
    ),
    allowShare: v.exactOptional(bool("may Services share an address when their ports differ")),
    interface: v.exactOptional(v.pipe(v.string("must be an interface name"), v.nonEmpty("must not be empty"))),
  },
  v.never("is not a pool field; use addresses, allowShare and interface"),
  "must be a mapping such as { addresses: [192.0.2.0/28] }",
);

export const metalConfigSchema = v.objectWithRest(
  {
    inventory: v.optional(
      v.objectWithRest(
        {
          machines: v.optional(v.array(machine, "must be a list of machines"), []),
          configMap: v.exactOptional(configMapRef({ namespace: "kube-system", name: "metal-inventory" })),
          requireInventoryEntry: v.optional(bool("a node without an entry stays uninitialised"), false),
          deleteNodesMissingFromInventory: v.optional(bool("delete NotReady nodes without an entry"), false),
        },
        v.never(
          "is not an inventory field; use machines, configMap, requireInventoryEntry, deleteNodesMissingFromInventory",
        ),
        "must be a mapping such as { machines: [...] }",
      ),
      {},
    ),
    shutdownProbe: v.exactOptional(
      v.objectWithRest(
        {
          port: v.optional(
            v.pipe(v.number("must be a port"), v.integer("must be a whole number"), v.minValue(1), v.maxValue(65535)),
            22,
          ),
          timeoutMs: v.optional(
            v.pipe(
              v.number("must be a number of milliseconds"),
              v.integer("must be a whole number of milliseconds"),
              v.minValue(1, "must be at least 1"),
              v.maxValue(60_000, "must be at most 60000 (1 minute)"),
            ),
            2000,
          ),
        },
        v.never("is not a probe field; use port and timeoutMs"),
        "must be a mapping such as { port: 22, timeoutMs: 2000 }",
      ),
    ),
    loadBalancer: v.exactOptional(
      v.pipe(
        v.objectWithRest(
          {
            global: v.exactOptional(pool),
            namespaces: v.optional(v.record(dnsSubdomain("a namespace"), pool, "must map namespaces to pools"), {}),
            searchOrder: v.optional(
              v.picklist(["ascending", "descending"], "must be ascending or descending"),
              "ascending",
            ),
            avoidBuggyIPs: v.optional(bool("skip IPv4 addresses ending in .0 or .255"), false),
            kubeVipConfigMap: v.exactOptional(configMapRef({ namespace: "kube-system", name: "kubevip" })),
            kubeVipAnnotation: v.optional(bool("write kube-vip.io/loadbalancerIPs"), true),
            ...loadBalancerClassFields,
          },
          v.never(
            "is not a loadBalancer field; use global, namespaces, searchOrder, avoidBuggyIPs, kubeVipConfigMap, kubeVipAnnotation, classes, classless",
          ),
          "must be a mapping such as { global: { addresses: [192.0.2.0/28] } }",
        ),
        v.forward(
          v.partialCheck([["classes"], ["classless"]], (lb) => servesNothing(lb) === undefined, servesNothingMessage),
          ["classless"],
        ),
      ),
    ),
  },
  v.never("is not a known key; the keys are inventory, shutdownProbe, loadBalancer"),
  "must be a mapping of keys such as inventory: and loadBalancer:",
);

export type MetalConfig = v.InferOutput<typeof metalConfigSchema>;
export type PoolConfig = v.InferOutput<typeof pool>;

/**
 * Parse and validate; throws a `ConfigError` listing every problem (including duplicate machine names and
 * provider IDs). `undefined` text means no file was given, which is valid.
 */
export function parseMetalConfig(text: string | undefined, source: string | undefined): MetalConfig {
  const where = source ?? defaultSource;
  let config: MetalConfig | undefined;
  const issues: ConfigIssue[] = [];
  try {
    config = parseCloudConfig(metalConfigSchema, text, where);
  } catch (err) {
    if (!(err instanceof ConfigError) || err.issues.some((i) => i.message.startsWith("not valid YAML"))) throw err;
    issues.push(...err.issues);
  }
  issues.push(...duplicateMachines(text));
  if (issues.length > 0 || !config) throw new ConfigError(where, issues);
  return config;
}

/** Two machines with one name or one provider ID: valibot checks items one by one, so this looks at the raw list. */
function duplicateMachines(text: string | undefined): ConfigIssue[] {
  const raw = text?.trim() ? (Bun.YAML.parse(text) as { inventory?: { machines?: unknown } } | null) : null;
  const machines = raw?.inventory?.machines;
  if (!Array.isArray(machines)) return [];
  const issues: ConfigIssue[] = [];
  const repeated = new Set<number>();
  for (const field of ["name", "providerID"] as const) {
    const seen = new Map<string, number>();
    machines.forEach((m, i) => {
      const fields = typeof m === "object" && m !== null ? (m as Record<string, unknown>) : {};
      // A repeated name is reported once, not again through the provider ID it implies.
      if (typeof fields.name !== "string" || repeated.has(i)) return;
      // A machine without a provider ID gets metal://<name>, which may meet another's explicit one.
      const key = field === "name" ? fields.name : String(fields.providerID ?? `metal://${fields.name}`);
      const first = seen.get(key);
      if (first !== undefined) {
        repeated.add(i);
        issues.push({
          path: `inventory.machines[${i}].${field}`,
          message: `"${key}" is also the ${field} of inventory.machines[${first}]; each machine needs its own`,
        });
      } else seen.set(key, i);
    });
  }
  return issues;
}

/** The cloud-config's pools. Entries were validated by the schema, so every scope builds. */
export function configuredPools(lb: NonNullable<MetalConfig["loadBalancer"]>): PoolSet {
  const pools = new Map<string, AddressPool>();
  const sharing = new Map<string, boolean>();
  const scopes: [string, PoolConfig | undefined, string][] = [
    [GLOBAL_SCOPE, lb.global, "cloud-config loadBalancer.global"],
    ...Object.entries(lb.namespaces).map(([ns, p]): [string, PoolConfig, string] => [
      ns,
      p,
      `cloud-config loadBalancer.namespaces.${ns}`,
    ]),
  ];
  for (const [scope, config, source] of scopes) {
    if (!config) continue;
    if (config.allowShare !== undefined) sharing.set(scope, config.allowShare);
    if (!config.addresses) continue;
    const built = buildPool({
      scope,
      source,
      entries: config.addresses,
      skipCIDREnds: true,
      avoidBuggyIPs: lb.avoidBuggyIPs,
      descending: lb.searchOrder === "descending",
      interface: config.interface,
    });
    if (Array.isArray(built)) throw new Error(`${source}: ${built.join("; ")}`);
    pools.set(scope, built);
  }
  return { pools, broken: new Map(), sharing };
}
