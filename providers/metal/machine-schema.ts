/**
 * The valibot schema of one inventory machine, shared by the cloud-config (`inventory.machines[]`, with `name`) and
 * the inventory ConfigMap (one key per machine, the key being its name):
 *
 * ```yaml
 * providerID: metal://node-1      # optional; default metal://<name>
 * addresses:                      # by type; one address or a list
 *   InternalIP: [10.0.0.11, fd00::11]
 *   ExternalIP: 203.0.113.11
 *   Hostname: node-1.lab.example
 * zone: rack-1
 * region: dc-1
 * instanceType: r640
 * labels: { example.com/rack-row: "3" }
 * probe: { host: 10.0.0.11, port: 22 }   # optional: where the shutdown probe connects
 * ```
 *
 * Zone, region, instance type and labels become node labels, so they must be valid label values.
 */
import * as v from "valibot";
import type { NodeAddress } from "../../kube/objects.ts";
import { canonicalIP } from "../../net/ip.ts";

export const addressTypes = ["InternalIP", "ExternalIP", "Hostname", "InternalDNS", "ExternalDNS"] as const;
export type AddressType = (typeof addressTypes)[number];
const ipTypes = new Set<string>(["InternalIP", "ExternalIP"]);

const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RESERVED = /(^|\.)(kubernetes|k8s)\.io\//;

export const labelValue = (what: string) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    v.nonEmpty("must not be empty; leave the field out instead"),
    v.check(
      (s) => LABEL_VALUE.test(s),
      "must be a valid label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    ),
  );

export const dnsSubdomain = (what: string) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    v.check(
      (s) => s.length <= 253 && DNS_SUBDOMAIN.test(s),
      `must be a lower-case DNS name such as node-1 or node-1.lab (${what})`,
    ),
  );

export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && !(prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix))) {
    return `label key "${key}" has an invalid prefix; use a DNS name such as example.com/`;
  }
  if (!LABEL_NAME.test(name)) return `label key "${key}" is invalid; use letters, digits, '-', '_', '.' (at most 63)`;
  if (RESERVED.test(key)) {
    return `label key "${key}" is under kubernetes.io/ or k8s.io/, which the node controller drops; use your own prefix`;
  }
  return undefined;
}

const addressList = (type: AddressType) =>
  v.pipe(
    v.union([v.string(), v.array(v.string())], "must be an address or a list of addresses"),
    v.transform((a) => (typeof a === "string" ? [a] : a)),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      for (const address of dataset.value) {
        if (ipTypes.has(type) && !canonicalIP(address)) {
          addIssue({ message: `"${address}" is not an IP address (${type} takes IPv4 or IPv6 addresses)` });
        } else if (address.trim() === "") addIssue({ message: "must not be empty" });
      }
    }),
  );

const addresses = v.objectWithRest(
  Object.fromEntries(addressTypes.map((t) => [t, v.exactOptional(addressList(t))])) as Record<
    AddressType,
    v.ExactOptionalSchema<ReturnType<typeof addressList>, undefined>
  >,
  v.never(`is not an address type; use ${addressTypes.join(", ")}`),
  "must be a mapping of address type to addresses, such as InternalIP: 10.0.0.11",
);

const probeTarget = v.objectWithRest(
  {
    host: v.exactOptional(v.pipe(v.string("must be a host name or an address"), v.nonEmpty("must not be empty"))),
    port: v.exactOptional(
      v.pipe(v.number("must be a port number"), v.integer("must be a whole number"), v.minValue(1), v.maxValue(65535)),
    ),
  },
  v.never("is not a probe field; use host and port"),
  "must be a mapping such as { host: 10.0.0.11, port: 22 }",
);

/** Every field of a machine except its name. */
export const machineFields = {
  providerID: v.exactOptional(
    v.pipe(
      v.string("must be a string such as metal://node-1"),
      v.check((s) => /^\S+$/.test(s), "must be non-empty and without spaces, such as metal://node-1"),
    ),
  ),
  addresses: v.exactOptional(addresses),
  zone: v.exactOptional(labelValue("the zone label")),
  region: v.exactOptional(labelValue("the region label")),
  instanceType: v.exactOptional(labelValue("the instance-type label")),
  labels: v.exactOptional(
    v.pipe(
      v.record(v.string(), v.union([labelValue("a label value"), v.literal("")], "must be a valid label value")),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        for (const key of Object.keys(dataset.value)) {
          const problem = labelKeyProblem(key);
          if (problem) addIssue({ message: problem });
        }
      }),
    ),
  ),
  probe: v.exactOptional(probeTarget),
};

export const machineKeys = ["name", ...Object.keys(machineFields)];

/** A machine's fields as the ConfigMap holds them (the name is the key). */
export const machineBodySchema = v.objectWithRest(
  machineFields,
  v.never(`is not a machine field; the fields are ${machineKeys.slice(1).join(", ")}`),
  "must be a mapping of machine fields such as addresses: and zone:",
);

/** A machine's fields as validated (the schemas' output is assignable to this). */
export interface MachineBody {
  readonly providerID?: string;
  readonly addresses?: Partial<Record<AddressType, readonly string[]>>;
  readonly zone?: string;
  readonly region?: string;
  readonly instanceType?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly probe?: { readonly host?: string; readonly port?: number };
}

/** A machine as the provider uses it: name and provider ID resolved, addresses as node addresses. */
export interface Machine {
  readonly name: string;
  readonly providerID: string;
  readonly addresses: readonly NodeAddress[];
  readonly zone?: string | undefined;
  readonly region?: string | undefined;
  readonly instanceType?: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly probe?: { readonly host?: string; readonly port?: number } | undefined;
}

export function toMachine(name: string, body: MachineBody, defaultProviderID: (name: string) => string): Machine {
  const nodeAddresses: NodeAddress[] = [];
  for (const type of addressTypes) {
    for (const address of body.addresses?.[type] ?? []) {
      nodeAddresses.push({ type, address: ipTypes.has(type) ? (canonicalIP(address) ?? address) : address.trim() });
    }
  }
  return {
    name,
    providerID: body.providerID ?? defaultProviderID(name),
    addresses: nodeAddresses,
    zone: body.zone,
    region: body.region,
    instanceType: body.instanceType,
    labels: body.labels ?? {},
    probe: body.probe,
  };
}
