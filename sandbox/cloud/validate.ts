/** Request bodies and queries of the simulated cloud's API: one valibot schema each, every problem reported. */
import * as v from "valibot";
import { isCIDR } from "./address-pool.ts";
import { optionsSchema } from "./lb-options.ts";
import { CloudError } from "./state.ts";

/** Names of load balancers and routes: they travel in URL paths. */
const resourceName = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9]([a-zA-Z0-9._-]{0,251}[a-zA-Z0-9])?$/, "use 1-253 letters, digits, '.', '_' or '-'"),
);
const text = v.pipe(v.string(), v.nonEmpty("must not be empty"));
const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));

const address = v.strictObject({
  type: v.picklist(["InternalIP", "ExternalIP", "Hostname"]),
  address: text,
});
const machineState = v.picklist(["running", "stopped"]);

/** Label keys and values as Kubernetes takes them: an optional DNS-subdomain prefix and `/`, a 1-63 name. */
const labelName = /^([A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)$/;
const labelKey = v.pipe(
  v.string(),
  v.check((key) => {
    const slash = key.lastIndexOf("/");
    const prefix = slash < 0 ? undefined : key.slice(0, slash);
    const okPrefix = prefix === undefined || /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(prefix);
    return okPrefix && labelName.test(key.slice(slash + 1));
  }, "a label key: an optional DNS prefix and '/', then 1-63 letters, digits, '-', '_' or '.'"),
);
const labelValue = v.pipe(
  v.string(),
  v.check((value) => value === "" || labelName.test(value), "a label value: up to 63 letters, digits, '-', '_' or '.'"),
);

export const machineSpecSchema = v.strictObject({
  name: resourceName,
  zone: v.exactOptional(text),
  region: v.exactOptional(text),
  instanceType: v.exactOptional(text),
  addresses: v.exactOptional(v.array(address)),
  state: v.exactOptional(machineState),
  labels: v.exactOptional(v.record(labelKey, labelValue)),
  metadataPending: v.exactOptional(v.boolean()),
  providerIDHidden: v.exactOptional(v.boolean()),
  podCIDRs: v.exactOptional(
    v.pipe(
      v.array(v.pipe(v.string(), v.check(isCIDR, "not an IPv4 or IPv6 CIDR"))),
      v.check(
        (cidrs) => new Set(cidrs.map((c) => c.includes(":"))).size === cidrs.length,
        "at most one pod CIDR per IP family",
      ),
    ),
  ),
});

export const machinePatchSchema = v.strictObject({
  ...machineSpecSchema.entries,
  name: v.exactOptional(resourceName),
});

const lbPort = v.strictObject({
  name: v.string(),
  protocol: v.picklist(["TCP", "UDP", "SCTP"]),
  port,
  nodePort: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)),
});

export const loadBalancerSpecSchema = v.strictObject({
  cluster: text,
  serviceUID: text,
  serviceNamespace: text,
  serviceName: text,
  ports: v.pipe(v.array(lbPort), v.minLength(1, "a load balancer needs at least one port")),
  nodes: v.array(text),
  options: v.exactOptional(optionsSchema),
});

export const loadBalancerPatchSchema = v.strictObject({
  nodes: v.exactOptional(loadBalancerSpecSchema.entries.nodes),
  ports: v.exactOptional(loadBalancerSpecSchema.entries.ports),
});

export const routeSchema = v.strictObject({
  name: resourceName,
  cluster: text,
  targetNode: v.string(),
  destinationCIDR: v.pipe(v.string(), v.check(isCIDR, "not an IPv4 or IPv6 CIDR")),
  nameHint: v.optional(v.string(), ""),
  // Any of a Node's address types (InternalDNS and ExternalDNS too): they are the node's, not a machine's.
  targetNodeAddresses: v.exactOptional(v.array(v.strictObject({ type: text, address: text }))),
});

export const settingsSchema = v.strictObject({
  routeNodeAddresses: v.optional(v.boolean(), false),
});

const failRule = v.strictObject({
  method: v.exactOptional(v.pipe(v.string(), v.regex(/^[A-Za-z]+$/, "an HTTP method such as GET"))),
  pathPrefix: v.optional(v.pipe(v.string(), v.startsWith("/")), "/"),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
  retryAfterSeconds: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

export const faultsSchema = v.strictObject({
  latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  errorRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), 0),
  rateLimit: v.exactOptional(
    v.nullable(
      v.strictObject({ qps: v.pipe(v.number(), v.gtValue(0)), burst: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
    ),
    null,
  ),
  failNext: v.optional(v.array(failRule), []),
});

/** Parse `value` or throw a 400 `CloudError` that lists every problem as `path: message`. */
export function parseBody<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => String((p as { key: unknown }).key)).join(".");
    return path ? `${path}: ${describeIssue(issue)}` : describeIssue(issue);
  });
  throw new CloudError(400, "InvalidRequest", problems.join("; "));
}

/** valibot's key issues in plain words; every other issue keeps its own message. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.type !== "strict_object" || issue.kind !== "schema") return issue.message;
  if (issue.expected === "never") return "unknown field";
  return issue.expected?.startsWith('"') ? "required" : issue.message;
}

/** A positive integer query parameter, `fallback` when absent, 400 when malformed or above `max`. */
export function intParam(params: URLSearchParams, key: string, fallback: number, max: number): number {
  const raw = params.get(key);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > max) {
    throw new CloudError(400, "InvalidRequest", `query ${key}: expected an integer from 1 to ${max}, got "${raw}"`);
  }
  return n;
}
