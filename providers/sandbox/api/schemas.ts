/**
 * The simulated cloud's answers and request bodies as the sandbox provider reads and sends them (docs/sandbox.md),
 * checked at the edge by the cloud-API kit. Like a real provider's, these shapes are the provider's own, not
 * imported from sandbox/cloud/: fields the provider does not use are tolerated (left out of the output), so the
 * cloud may add some without breaking its clients.
 */
import * as v from "valibot";

const nonEmpty = v.pipe(v.string(), v.nonEmpty());

const address = v.object({
  type: v.picklist(["InternalIP", "ExternalIP", "Hostname"]),
  address: nonEmpty,
});

const machine = v.object({
  id: nonEmpty,
  name: nonEmpty,
  zone: v.string(),
  region: v.string(),
  instanceType: v.string(),
  addresses: v.array(address),
  state: v.picklist(["running", "stopped"]),
  // What a cloud that says less (an older one) leaves out reads as "nothing more to say".
  labels: v.optional(v.record(v.string(), v.string()), {}),
  metadataPending: v.optional(v.boolean(), false),
  providerIDHidden: v.optional(v.boolean(), false),
  podCIDRs: v.optional(v.array(v.string()), []),
});

export const machineAnswer = v.object({ machine });

export const machinePageAnswer = v.object({
  machines: v.array(machine),
  pagination: v.object({ nextPage: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))) }),
});

const port = v.object({
  name: v.string(),
  protocol: v.picklist(["TCP", "UDP", "SCTP"]),
  port: v.pipe(v.number(), v.integer()),
  nodePort: v.pipe(v.number(), v.integer()),
});

/**
 * Loose: fields beyond these (`options`, `createdAt`) are kept as the cloud sent them, so a field the provider
 * adds to its spec round-trips without a change here.
 */
const loadBalancer = v.looseObject({
  name: nonEmpty,
  cluster: v.string(),
  serviceUID: v.string(),
  serviceNamespace: v.string(),
  serviceName: v.string(),
  ports: v.array(port),
  nodes: v.array(v.string()),
  address: nonEmpty,
});

export const loadBalancerAnswer = v.object({ loadBalancer });

/** The body of `PUT /v1/load-balancers/{name}`: loose, so fields the provider adds to its spec are sent as given. */
export const loadBalancerSpecBody = v.looseObject({
  cluster: nonEmpty,
  serviceUID: nonEmpty,
  serviceNamespace: v.string(),
  serviceName: v.string(),
  ports: v.pipe(v.array(port), v.minLength(1, "needs at least one port")),
  nodes: v.array(v.string()),
});

export const loadBalancerNodesBody = v.object({ nodes: v.array(v.string()) });

const route = v.object({
  name: nonEmpty,
  cluster: v.string(),
  targetNode: v.string(),
  destinationCIDR: nonEmpty,
  nameHint: v.string(),
  targetNodeAddresses: v.exactOptional(v.array(v.object({ type: nonEmpty, address: nonEmpty }))),
});

export const routeBody = route;
export const routeAnswer = v.object({ route });
export const routesAnswer = v.object({ routes: v.array(route) });

/** A 204 answer (deletes). */
export const noContent = v.null();
