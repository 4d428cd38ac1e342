/**
 * The thin runner: performs `plan.ts`'s operations one after another through `HcloudLoadBalancers` (each followed to
 * the end of its action), then reads the load balancer again when anything changed, and says what its status is.
 *
 * A repeated operation whose first answer was lost (the kit retries actions after a 5xx) is refused by the API with
 * a code meaning "already so": those count as done. A target the planner left out for the type's limit, or one the
 * API will not take (a server off the network or gone), is a warning, not a failure, so the rest of the Service is
 * still served.
 */
import type { LoadBalancerIngress, LoadBalancerStatus } from "../../../kube/objects.ts";
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { CloudLoadBalancer } from "../api/load-balancer-schemas.ts";
import type { HcloudLoadBalancers, TargetBody } from "../api/load-balancers.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import type { Operation } from "./plan.ts";

/** The calls of `HcloudLoadBalancers` the runner makes; tests may pass a recording stand-in. */
export type LoadBalancerWrites = Pick<
  HcloudLoadBalancers,
  | "get"
  | "update"
  | "changeDNSPtr"
  | "changeAlgorithm"
  | "changeType"
  | "detachFromNetwork"
  | "attachToNetwork"
  | "setPublicInterface"
  | "addService"
  | "updateService"
  | "deleteService"
  | "addTarget"
  | "removeTarget"
>;

/** Codes that mean the operation's end state already holds. */
const ALREADY: Partial<Record<Operation["op"], readonly string[]>> = {
  attachToNetwork: ["load_balancer_already_attached"],
  detachFromNetwork: ["load_balancer_not_attached_to_network"],
  deleteService: ["not_found"],
  addTarget: ["target_already_defined"],
  removeTarget: ["target_not_found", "not_found"],
};

/**
 * Why one Node's target cannot be added, by the API's code: it is left out with a warning and the others still go
 * in, so one broken Node does not stall a Service's every other change. The limit is normally planned around (the
 * type's `max_targets`); its code is here for an answer without it.
 */
const TARGET_LEFT_OUT: Readonly<Record<string, string>> = {
  resource_limit_exceeded: "the load balancer type's target limit is reached (a larger type holds more)",
  server_not_attached_to_network: "the server is not attached to HCLOUD_NETWORK, which use-private-ip needs",
  not_found: "the server no longer exists",
};

const codeOf = (err: unknown) => (err instanceof CloudApiError ? err.code : undefined);

/**
 * Runs `ops` on load balancer `lb`; returns it as it is afterwards (read again only when something was written).
 * `warn` hears about the targets left out.
 */
export async function applyOperations(
  ctx: CallContext,
  api: LoadBalancerWrites,
  lb: CloudLoadBalancer,
  ops: readonly Operation[],
  warn: (message: string) => void,
): Promise<CloudLoadBalancer> {
  let wrote = false;
  for (const op of ops) {
    if (op.op === "leaveOutTarget") {
      warn(`load balancer ${lb.name}: ${describeTarget(op)} is left out: its type holds ${op.max} targets`);
      continue;
    }
    wrote = true;
    try {
      await perform(ctx, api, lb.id, op);
    } catch (err) {
      const code = codeOf(err);
      if (code !== undefined && ALREADY[op.op]?.includes(code)) continue;
      if (op.op === "addService" && code === "source_port_already_used") {
        await api.updateService(ctx, lb.id, op.service);
        continue;
      }
      const why = op.op === "addTarget" && code !== undefined ? TARGET_LEFT_OUT[code] : undefined;
      if (op.op === "addTarget" && why !== undefined) {
        warn(`load balancer ${lb.name}: ${describeTarget(op)} is left out: ${why}`);
        continue;
      }
      throw new Error(`${describe(op)} on load balancer ${lb.id} (${lb.name}): ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  if (!wrote) return lb;
  const fresh = await api.get(ctx, lb.id);
  if (!fresh) throw new Error(`load balancer ${lb.id} (${lb.name}) disappeared while it was being changed`);
  return fresh;
}

function perform(
  ctx: CallContext,
  api: LoadBalancerWrites,
  id: number,
  op: Exclude<Operation, { op: "leaveOutTarget" }>,
): Promise<unknown> {
  switch (op.op) {
    case "update":
      return api.update(ctx, id, {
        ...(op.name === undefined ? {} : { name: op.name }),
        ...(op.labels === undefined ? {} : { labels: op.labels }),
      });
    case "changeDNSPtr":
      return api.changeDNSPtr(ctx, id, op.ip, op.dnsPtr);
    case "changeAlgorithm":
      return api.changeAlgorithm(ctx, id, op.type);
    case "changeType":
      return api.changeType(ctx, id, op.type);
    case "detachFromNetwork":
      return api.detachFromNetwork(ctx, id, op.network);
    case "attachToNetwork":
      return api.attachToNetwork(ctx, id, {
        network: op.network,
        ...(op.ip === undefined ? {} : { ip: op.ip }),
        ...(op.ipRange === undefined ? {} : { ipRange: op.ipRange }),
      });
    case "setPublicInterface":
      return api.setPublicInterface(ctx, id, op.enabled);
    case "deleteService":
      return api.deleteService(ctx, id, op.listenPort);
    case "addService":
      return api.addService(ctx, id, op.service);
    case "updateService":
      return api.updateService(ctx, id, op.service);
    case "removeTarget":
      return api.removeTarget(ctx, id, op.target);
    case "addTarget":
      return api.addTarget(ctx, id, op.target);
  }
}

function describeTarget({ target: t }: { readonly target: TargetBody }): string {
  return t.type === "server" ? `server ${t.server.id}` : `IP ${t.ip.ip}`;
}

/** One line naming the operation, for errors and logs. */
export function describe(op: Operation): string {
  switch (op.op) {
    case "update":
      return `update (${[op.name === undefined ? "" : `name ${op.name}`, op.labels ? "labels" : ""].filter(Boolean).join(", ")})`;
    case "changeDNSPtr":
      return `change_dns_ptr ${op.ip} → ${op.dnsPtr ?? "default"}`;
    case "changeAlgorithm":
      return `change_algorithm ${op.type}`;
    case "changeType":
      return `change_type ${op.type}`;
    case "detachFromNetwork":
      return `detach_from_network ${op.network}`;
    case "attachToNetwork":
      return `attach_to_network ${op.network}${op.ip ? ` at ${op.ip}` : ""}${op.ipRange ? ` in ${op.ipRange}` : ""}`;
    case "setPublicInterface":
      return `${op.enabled ? "enable" : "disable"}_public_interface`;
    case "deleteService":
      return `delete_service ${op.listenPort}`;
    case "addService":
      return `add_service ${op.service.listen_port}`;
    case "updateService":
      return `update_service ${op.service.listen_port}`;
    case "removeTarget":
      return `remove_target ${describeTarget(op)}`;
    case "addTarget":
      return `add_target ${describeTarget(op)}`;
    case "leaveOutTarget":
      return `leave out ${describeTarget(op)} (the type holds ${op.max} targets)`;
  }
}

/**
 * The Service's status (hccm's): the hostname alone when the annotation sets one; else the public IPv4 and, unless
 * disabled, IPv6 while the public interface is on, then the private addresses unless private ingress is off. With
 * the PROXY protocol on each entry says `ipMode: Proxy`, so kube-proxy sends in-cluster traffic through the load
 * balancer instead of short-cutting it.
 */
export function statusOf(lb: CloudLoadBalancer, desired: DesiredLoadBalancer["ingress"] & { proxyProtocol: boolean }) {
  if (desired.hostname !== undefined) return { ingress: [{ hostname: desired.hostname }] } satisfies LoadBalancerStatus;
  const mode = desired.proxyProtocol ? { ipMode: "Proxy" } : {};
  const ingress: LoadBalancerIngress[] = [];
  const pub = lb.public_net;
  if (pub?.enabled ?? true) {
    if (pub?.ipv4?.ip) ingress.push({ ip: pub.ipv4.ip, ...mode });
    if (desired.ipv6 && pub?.ipv6?.ip) ingress.push({ ip: pub.ipv6.ip, ...mode });
  }
  if (desired.privateIngress) for (const n of lb.private_net) ingress.push({ ip: n.ip, ...mode });
  return { ingress } satisfies LoadBalancerStatus;
}
