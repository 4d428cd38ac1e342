/**
 * LoadBalancer over Octavia, with OCCM's behaviour so its load balancers carry over unchanged:
 *
 * - **Name**: OCCM's `kube_service_<cluster>_<namespace>_<name>`, else, as OCCM falls back, its legacy name (`a` +
 *   the UID); the `load-balancer-id` annotation, when set, finds it by ID instead.
 * - **Owned by cluster**: ours only with the tag `kube_service_uid=<Service UID>`. One found by name with another
 *   Service's UID tag (another cluster with the same `--cluster-name`, OCCM #1273 and #2241) is refused with a
 *   Warning, never adopted or deleted. One without any UID tag (OCCM made it) is adopted in place: tagged, same ID,
 *   same VIP and floating IP.
 * - **Changing it**: `lb/desired.ts` says what the Service wants, `lb/plan.ts` what differs, `lb/apply.ts` does it,
 *   each change waited on until the load balancer is `ACTIVE` again.
 * - **Never stuck**: one in `ERROR` is rebuilt (deleted and made again, its floating IP kept and bound to the new
 *   VIP) with a Warning; one `PENDING_*` past the deadline gets a Warning naming its state and the sync fails, to be
 *   retried (Octavia refuses every change, and a delete, until it settles).
 * - **Deleting it**: only one carrying this Service's UID tag, with cascade unless `[LoadBalancer] cascade-delete =
 *   false`; the floating IP a manager made goes too, unless `keep-floatingip`.
 */
import type { ConsolaInstance } from "consola";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { type CallContext, defaultLoadBalancerName, type LoadBalancer, type LoadBalancerPlan } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import { type OpenStackAnnotationValues, openStackAnnotations } from "./annotations.ts";
import type { ComputeApi } from "./api/compute.ts";
import type { FloatingIPApi } from "./api/floating-ips.ts";
import { LoadBalancerStateError, type OctaviaApi } from "./api/octavia.ts";
import type { FloatingIP, OctaviaLoadBalancer } from "./api/octavia-schemas.ts";
import type { OpenStackConfig } from "./config.ts";
import { applyOperations, statusOf } from "./lb/apply.ts";
import { createLoadBalancer } from "./lb/create.ts";
import {
  type DesiredLoadBalancer,
  desiredLoadBalancer,
  LoadBalancerSpecError,
  loadBalancerName,
  nodeAddress,
  OWNER_TAG_PREFIX,
  ownerTag,
} from "./lb/desired.ts";
import { ensureFloatingIP, releaseFloatingIP } from "./lb/floating-ip.ts";
import { describe, planLoadBalancer } from "./lb/plan.ts";
import { previewLoadBalancer } from "./lb/preview.ts";
import { parseProviderID } from "./provider-id.ts";

export interface OpenStackLoadBalancerDeps {
  readonly octavia: OctaviaApi;
  readonly floatingIPs: FloatingIPApi;
  readonly compute: Pick<ComputeApi, "listPorts">;
  readonly config: Pick<OpenStackConfig, "loadBalancer" | "loadBalancerClasses">;
  readonly logger?: Pick<ConsolaInstance, "info" | "warn"> | undefined;
  /** A Warning event about the Service that does not stop its sync (`ServiceWarnings.warn` fits). */
  readonly warn?: ((service: Service, reason: string, message: string) => void) | undefined;
}

const OP = "openstack/load-balancers";

export function createOpenStackLoadBalancer(deps: OpenStackLoadBalancerDeps) {
  const { octavia, floatingIPs: fips, config, logger } = deps;
  const annotations = openStackAnnotations(config.loadBalancer);

  function warn(service: Service, reason: string, message: string) {
    if (deps.warn) deps.warn(service, reason, message);
    else logger?.warn(`${serviceName(service)}: ${message}`);
  }

  async function step<T>(op: string, service: Service, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof LoadBalancerStateError) {
        const stuck = err.lb.provisioning_status !== "ERROR";
        warn(service, stuck ? "LoadBalancerStuck" : "LoadBalancerError", err.message);
      }
      throw wrapError(`${OP}.${op} ${serviceName(service)}`, err);
    }
  }

  /** The load balancer by ID annotation or name; refuses one another Service owns. `undefined`: none. */
  async function find(
    ctx: CallContext,
    service: Service,
    values: OpenStackAnnotationValues,
    name: string,
    write: boolean,
  ): Promise<OctaviaLoadBalancer | undefined> {
    let lb: OctaviaLoadBalancer | undefined;
    if (values.loadBalancerID !== undefined) {
      lb = await octavia.get(ctx, values.loadBalancerID);
      if (!lb) {
        throw new LoadBalancerSpecError(
          `loadbalancer.openstack.org/load-balancer-id names ${values.loadBalancerID}, which Octavia does not have; remove the annotation to have one made`,
        );
      }
    } else {
      let found = await octavia.listByName(ctx, name);
      // OCCM's fallback (`getLoadbalancerByName`): load balancers it made before it named them by cluster.
      if (found.length === 0) found = await octavia.listByName(ctx, defaultLoadBalancerName(service));
      if (found.length > 1) {
        throw new Error(
          `load balancers ${found.map((l) => l.id).join(", ")} are all named ${name}; delete all but one`,
        );
      }
      lb = found[0];
    }
    if (!lb) return undefined;
    const owner = (lb.tags ?? []).find((t) => t.startsWith(OWNER_TAG_PREFIX));
    if (owner !== undefined && owner !== ownerTag(uidOf(service))) {
      const message = `load balancer ${lb.id} (${lb.name}) belongs to another Service (${owner}), of another cluster with the same --cluster-name or of an earlier Service of this name; it is neither adopted nor deleted. Give this cluster its own --cluster-name, or remove the tag if that Service is gone for good`;
      if (write) warn(service, "LoadBalancerOwnedElsewhere", message);
      throw new LoadBalancerSpecError(message);
    }
    if (owner === undefined && write)
      logger?.info(`${serviceName(service)}: adopting load balancer ${lb.id} (${lb.name})`);
    return lb;
  }

  /** The network of the first Node's port holding its InternalIP: the VIP's, when `cloud.conf` names none. */
  async function fallbackNetwork(
    ctx: CallContext,
    service: Service,
    values: OpenStackAnnotationValues,
    nodes: readonly Node[],
  ) {
    const lbConf = config.loadBalancer;
    if (values.portID || values.subnetID || values.networkID || lbConf["subnet-id"] || lbConf["network-id"])
      return undefined;
    const node = nodes[0];
    const id = node && serverID(node.spec?.providerID ?? "");
    if (!node || !id) return undefined;
    const address = nodeAddress(node, service.spec?.ipFamilies?.[0] === "IPv6" ? "IPv6" : "IPv4");
    const ports = await deps.compute.listPorts(ctx, id);
    return (ports.find((p) => address !== undefined && p.fixedIPs.includes(address)) ?? ports[0])?.networkID;
  }

  async function desiredFor(ctx: CallContext, clusterName: string, service: Service, nodes: readonly Node[]) {
    const values = annotations.parse(service);
    const fallbackNetworkID = await fallbackNetwork(ctx, service, values, nodes);
    const desired = desiredLoadBalancer({ service, values, nodes, clusterName, config, fallbackNetworkID });
    return { values, desired };
  }

  /** ERROR: delete it and make it again, the floating IP detached first and bound to the new VIP after. */
  async function rebuild(ctx: CallContext, service: Service, lb: OctaviaLoadBalancer, desired: DesiredLoadBalancer) {
    const [fip] = lb.vip_port_id ? await fips.floatingIPs(ctx, { port_id: lb.vip_port_id }) : [];
    warn(
      service,
      "LoadBalancerError",
      `load balancer ${lb.id} (${lb.name}) is in ERROR; it is deleted and made again${fip ? `, keeping floating IP ${fip.floating_ip_address}` : ""}`,
    );
    if (fip) await fips.bindFloatingIP(ctx, fip.id, null);
    await remove(ctx, lb);
    const made = await createLoadBalancer(ctx, octavia, desired, serial(logger, service));
    return { lb: made, kept: fip };
  }

  /**
   * Deletes it and waits until it is gone: with cascade (`[LoadBalancer] cascade-delete`, the default, and always in
   * ERROR, where Octavia refuses changes to children), else each pool and listener first, as OCCM does.
   */
  async function remove(ctx: CallContext, lb: OctaviaLoadBalancer): Promise<void> {
    const cascade = config.loadBalancer["cascade-delete"] || lb.provisioning_status === "ERROR";
    if (!cascade) {
      const view = await octavia.view(ctx, lb);
      for (const l of view.listeners) {
        if (l.pool) await octavia.deletePool(ctx, lb.id, l.pool.pool.id);
        await octavia.deleteListener(ctx, lb.id, l.listener.id);
      }
      const fresh = await octavia.get(ctx, lb.id);
      for (const pool of fresh?.pools ?? []) await octavia.deletePool(ctx, lb.id, pool.id);
    }
    await octavia.delete(ctx, lb.id, cascade);
    await octavia.waitGone(ctx, lb.id);
  }

  function serial(log: typeof logger, service: Service) {
    return {
      serial: config.loadBalancer["provider-requires-serial-api-calls"],
      log: (m: string) => log?.info(`${serviceName(service)}: ${m}`),
    };
  }

  async function converge(
    ctx: CallContext,
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
    membersOnly: boolean,
  ): Promise<LoadBalancerStatus | undefined> {
    const { values, desired } = await desiredFor(ctx, clusterName, service, nodes);
    let lb = await find(ctx, service, values, desired.name, true);
    let kept: FloatingIP | undefined;
    if (!lb) {
      if (membersOnly) return undefined;
      lb = await createLoadBalancer(ctx, octavia, desired, serial(logger, service));
      logger?.info(`${serviceName(service)}: created load balancer ${lb.id} (${lb.name})`);
    } else if (lb.provisioning_status === "ERROR") {
      ({ lb, kept } = await rebuild(ctx, service, lb, desired));
    } else if (lb.provisioning_status !== "ACTIVE") {
      lb = await octavia.waitActive(ctx, lb.id);
    }
    const view = await octavia.view(ctx, lb);
    const ops = planLoadBalancer(view, desired).filter((o) => !membersOnly || o.op === "replaceMembers");
    if (ops.length > 0)
      logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${ops.map(describe).join("; ")}`);
    await applyOperations(ctx, octavia, lb.id, ops);
    if (membersOnly) return undefined;
    const fip = await ensureFloatingIP(ctx, fips, lb, view.floatingIP, desired, kept);
    if (!fip && !desired.internal) {
      // OCCM's `eventLBForceInternal`: no floating network, so the VIP alone is the address.
      warn(
        service,
        "LoadBalancerForcedInternal",
        "no floating network is configured ([LoadBalancer] floating-network-id, or loadbalancer.openstack.org/floating-network-id), so the load balancer is internal: its address is the VIP",
      );
    }
    return statusOf(lb, fip, desired);
  }

  return {
    getLoadBalancerName(_ctx, clusterName, service) {
      return loadBalancerName(clusterName, service);
    },

    async getLoadBalancer(ctx, clusterName, service): Promise<LoadBalancerStatus | undefined> {
      return step("get", service, async () => {
        const { values } = annotations.read(service);
        const lb = await find(ctx, service, values, loadBalancerName(clusterName, service), false).catch((err) => {
          if (err instanceof LoadBalancerSpecError) return undefined;
          throw err;
        });
        if (!lb || !(lb.tags ?? []).includes(ownerTag(uidOf(service)))) return undefined;
        const [fip] = lb.vip_port_id ? await fips.floatingIPs(ctx, { port_id: lb.vip_port_id }) : [];
        const proxy = values.proxyProtocol !== undefined;
        return statusOf(lb, fip, {
          ...(values.hostname === undefined ? {} : { hostname: values.hostname }),
          proxyProtocol: proxy,
          ...(proxy && config.loadBalancer["enable-ingress-hostname"]
            ? { ingressHostnameSuffix: config.loadBalancer["ingress-hostname-suffix"] }
            : {}),
        });
      });
    },

    async ensureLoadBalancer(ctx, clusterName, service, nodes) {
      return step("ensure", service, async () => {
        const status = await converge(ctx, clusterName, service, nodes, false);
        if (!status) throw new Error("the load balancer was not made");
        return status;
      });
    },

    async updateLoadBalancer(ctx, clusterName, service, nodes) {
      await step("update", service, () => converge(ctx, clusterName, service, nodes, true));
    },

    async planLoadBalancer(ctx, clusterName, service, nodes): Promise<LoadBalancerPlan> {
      return step("plan", service, async () => {
        const { values, desired } = await desiredFor(ctx, clusterName, service, nodes);
        const lb = await find(ctx, service, values, desired.name, false);
        const view = lb && (await octavia.view(ctx, lb));
        return previewLoadBalancer(view, desired, view ? planLoadBalancer(view, desired) : []);
      });
    },

    async ensureLoadBalancerDeleted(ctx, clusterName, service) {
      await step("delete", service, async () => {
        const { values } = annotations.read(service);
        const name = loadBalancerName(clusterName, service);
        const lb = await find(ctx, service, values, name, false).catch((err) => {
          if (err instanceof LoadBalancerSpecError) return undefined;
          throw err;
        });
        if (!lb || !(lb.tags ?? []).includes(ownerTag(uidOf(service)))) return;
        if (lb.provisioning_status.startsWith("PENDING_")) await octavia.waitActive(ctx, lb.id);
        const [fip] = lb.vip_port_id ? await fips.floatingIPs(ctx, { port_id: lb.vip_port_id }) : [];
        if (fip) {
          const how = await releaseFloatingIP(ctx, fips, fip, values.keepFloatingIP);
          logger?.info(`${serviceName(service)}: floating IP ${fip.floating_ip_address} ${how}`);
        }
        await remove(ctx, lb);
        logger?.info(`${serviceName(service)}: deleted load balancer ${lb.id} (${lb.name})`);
      });
    },
  } satisfies LoadBalancer;
}

function uidOf(service: Service): string {
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to own its load balancer by");
  return uid;
}

function serverID(providerID: string): string | undefined {
  try {
    return parseProviderID(providerID).id;
  } catch {
    return undefined;
  }
}

function serviceName(service: Service): string {
  return `Service ${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
}
