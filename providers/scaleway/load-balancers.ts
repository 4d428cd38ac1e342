/**
 * LoadBalancer for Scaleway, with scw CCM's naming so its load balancers carry over in place (same ID, same IPs):
 *
 * - **Name**: `SCW_CCM_PREFIX` + the Service UID, in the `zone` annotation's zone (else `SCW_DEFAULT_ZONE`).
 * - **Finding it**: by the `scw-loadbalancer-id` annotation scw CCM wrote (`zone/id`), else by name. Found by ID
 *   under another name, one scw CCM tagged as its own (`managed-by-scaleway-cloud-controller-manager`) is another
 *   Service's (maybe of another cluster) and is refused, never changed; an untagged one is used, never deleted.
 * - **Ownership**: the tag `ccm-ts/service-uid=<uid>` marks a load balancer this manager adopted or made; `plan`
 *   says `adopt` for one without it (scw CCM's), which the first sync tags and otherwise keeps as it is.
 * - **Creating it**: only after both lookups found nothing, with the flexible IPs the Service asks for (`ip-ids`,
 *   `spec.loadBalancerIP`, else new ones: IPv4, and IPv6 with `flexible-ip-types`). A create whose answer was lost
 *   is found by name on the next sync: creates are never repeated blindly.
 * - **Changing it**: `lb/desired.ts` says what the Service wants, `lb/plan.ts` what differs, `lb/apply.ts` does
 *   it: every annotation change is applied on the next sync. `updateLoadBalancer` (Nodes changed) sets the backends'
 *   servers only, so frontends and their certificates are never touched by a scale-up.
 * - **Deleting it**: only the one with this Service's name (and never an externally managed one, of which only this
 *   Service's frontends and backends are removed); its IPs are released unless the Service chose them.
 */
import type { ConsolaInstance } from "consola";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import type { CallContext, LoadBalancer, LoadBalancerPlan } from "../cloud.ts";
import { RetryError, wrapError } from "../errors.ts";
import { ScalewayAnnotations, type ScalewayAnnotationValues } from "./annotations.ts";
import type { ScwLoadBalancer } from "./api/lb-schemas.ts";
import type { LoadBalancersApi } from "./api/load-balancers.ts";
import type { ScalewayConfig } from "./config.ts";
import { aclPrefix, aclSpecs, aclsEqual } from "./lb/acls.ts";
import { applyOperations, statusOf } from "./lb/apply.ts";
import {
  type DesiredLoadBalancer,
  desiredLoadBalancer,
  identityOf,
  ingressOf,
  LoadBalancerSpecError,
} from "./lb/desired.ts";
import { loadBalancerLookup } from "./lb/lookup.ts";
import { describe, type FoundLoadBalancer, planLoadBalancer } from "./lb/plan.ts";
import { previewLoadBalancer } from "./lb/preview.ts";

/** The tag marking a load balancer this manager made or adopted for the Service with this UID. */
export const ownerTag = (uid: string) => `ccm-ts/service-uid=${uid}`;

/** How long to wait for a load balancer that is not `ready` yet before the sync is tried again. */
export const NOT_READY_RETRY_MS = 10_000;

export interface ScalewayLoadBalancerDeps {
  readonly api: LoadBalancersApi;
  readonly config: Pick<ScalewayConfig, "loadBalancer" | "privateNetworkID" | "zone" | "region" | "projectID">;
  readonly logger?: ConsolaInstance | undefined;
  /** A Warning event about the Service that does not stop its sync (`ServiceWarnings.warn` fits). */
  readonly warn?: ((service: Service, reason: string, message: string) => void) | undefined;
}

const OP = "scaleway/load-balancers";

export function createScalewayLoadBalancer(deps: ScalewayLoadBalancerDeps): LoadBalancer {
  const { api, config, logger } = deps;
  const { find, staticIpIds } = loadBalancerLookup(api);

  async function step<T>(op: string, service: Service, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw wrapError(`${OP}.${op} ${serviceName(service)}`, err);
    }
  }

  function warn(service: Service, reason: string, message: string) {
    if (deps.warn) deps.warn(service, reason, message);
    else logger?.warn(`${serviceName(service)}: ${message}`);
  }

  function desiredOf(service: Service, nodes: readonly Node[], write: boolean) {
    const values = ScalewayAnnotations.parse(service);
    const desired = desiredLoadBalancer({ service, values, nodes, config });
    if (write) for (const w of desired.warnings) warn(service, "LoadBalancerConfiguration", w);
    return { values, desired };
  }

  async function create(ctx: CallContext, service: Service, desired: DesiredLoadBalancer): Promise<ScwLoadBalancer> {
    if (desired.externallyManaged)
      throw new LoadBalancerSpecError("an externally managed load balancer is never created");
    const ipIds = desired.private ? [] : await staticIpIds(ctx, desired);
    const lb = await api.createLoadBalancer(ctx, desired.zone, {
      name: desired.name,
      description: desired.create.description,
      type: desired.create.type,
      tags: [...desired.create.tags, ownerTag(desired.uid)],
      ...(ipIds.length > 0 ? { ip_ids: ipIds } : {}),
      assign_flexible_ip: !desired.private && ipIds.length === 0,
      assign_flexible_ipv6: !desired.private && ipIds.length === 0 && desired.create.ipv6,
      ssl_compatibility_level: desired.sslCompatibilityLevel,
      ...(config.projectID === undefined ? {} : { project_id: config.projectID }),
    });
    logger?.info(`${serviceName(service)}: created load balancer ${lb.zone}/${lb.id} (${lb.name})`);
    return lb;
  }

  /** scw CCM re-creates its own load balancer when its IPs no longer are the chosen ones or it changed public/private. */
  async function mustRecreate(ctx: CallContext, desired: DesiredLoadBalancer, lb: ScwLoadBalancer) {
    if (desired.externallyManaged || lb.name !== desired.name) return undefined;
    if (desired.private !== (lb.ips.length === 0))
      return desired.private ? "it is to be private" : "it is to be public";
    if (desired.private || (desired.ipIds.length === 0 && !desired.loadBalancerIP)) return undefined;
    const want = await staticIpIds(ctx, desired, lb.id);
    const have = lb.ips.map((ip) => ip.id);
    return want.length === have.length && want.every((id) => have.includes(id)) ? undefined : "its IPs are to change";
  }

  async function read(ctx: CallContext, lb: ScwLoadBalancer): Promise<FoundLoadBalancer> {
    const [frontends, backends, pns] = await Promise.all([
      api.listFrontends(ctx, lb.zone, lb.id),
      api.listBackends(ctx, lb.zone, lb.id),
      api.listPrivateNetworks(ctx, lb.zone, lb.id),
    ]);
    return { lb, frontends, backends, privateNetworks: pns.map((p) => p.privateNetworkId) };
  }

  async function status(
    ctx: CallContext,
    lb: ScwLoadBalancer,
    desired: Pick<DesiredLoadBalancer, "private" | "ingress">,
    /** Without an address yet: a retry (ensure), or an empty ingress (get, which must not hold up a deletion). */
    strict = true,
  ): Promise<LoadBalancerStatus> {
    if (!desired.private) return statusOf(lb, desired.ingress);
    const ips = await api.listPrivateIPv4s(ctx, lb.zone.replace(/-\d+$/, ""), lb.id);
    if (ips.length === 0 && !strict) return { ingress: [] };
    if (ips.length === 0)
      throw new RetryError(
        `private load balancer ${lb.id} has no address on its private network yet`,
        NOT_READY_RETRY_MS,
      );
    return { ingress: ips.map((ip) => ({ ip, ipMode: desired.ingress.ipMode })) };
  }

  function requireReady(lb: ScwLoadBalancer) {
    if (lb.status !== "ready") {
      throw new RetryError(`load balancer ${lb.zone}/${lb.id} is ${lb.status}, not ready yet`, NOT_READY_RETRY_MS);
    }
  }

  /** Each frontend's access list as `spec.loadBalancerSourceRanges` wants it: one read, a write only when it differs. */
  async function reconcileAcls(
    ctx: CallContext,
    service: Service,
    lb: ScwLoadBalancer,
    frontends: ReadonlyMap<number, string>,
    desired: DesiredLoadBalancer,
  ) {
    for (const p of desired.ports) {
      const id = frontends.get(p.frontend.inboundPort);
      if (id === undefined) continue;
      const want = aclSpecs(id, desired.aclAllow);
      const got = await api.listAcls(ctx, lb.zone, id, aclPrefix(id));
      if (aclsEqual(got, want)) continue;
      await api.setAcls(ctx, lb.zone, id, want);
      logger?.info(
        `${serviceName(service)}: load balancer ${lb.id}: set ${want.length} ACL rule(s) on port ${p.frontend.inboundPort}`,
      );
    }
  }

  async function adoptTag(ctx: CallContext, service: Service, lb: ScwLoadBalancer, desired: DesiredLoadBalancer) {
    if (desired.externallyManaged || lb.tags.includes(ownerTag(desired.uid))) return;
    await api.updateLoadBalancer(ctx, lb.zone, lb.id, {
      name: lb.name,
      description: lb.description,
      tags: [...lb.tags, ownerTag(desired.uid)],
      ssl_compatibility_level: lb.sslCompatibilityLevel,
    });
    logger?.info(`${serviceName(service)}: adopted load balancer ${lb.zone}/${lb.id} (${lb.name}) in place`);
  }

  async function remove(ctx: CallContext, service: Service, lb: ScwLoadBalancer, values: ScalewayAnnotationValues) {
    // The IPs go with it unless the Service chose one of them (scw CCM keeps them whenever any is chosen, so a
    // booked IP replaced by a chosen one would be left behind, paid for and unused).
    const chosen = values.ipIds ?? [];
    const wanted = service.spec?.loadBalancerIP;
    const kept = lb.ips.some((ip) => chosen.includes(ip.id) || (wanted !== undefined && ip.address === wanted));
    await api.deleteLoadBalancer(ctx, lb.zone, lb.id, !kept);
    logger?.info(`${serviceName(service)}: deleted load balancer ${lb.zone}/${lb.id} (${lb.name})`);
  }

  return {
    getLoadBalancerName(_ctx, _clusterName, service) {
      return `${config.loadBalancer.prefix}${service.metadata?.uid ?? ""}`;
    },

    async getLoadBalancer(ctx, _clusterName, service) {
      return step("get", service, async () => {
        // Read leniently: the service controller asks before deleting, and a bad annotation must not hold that up.
        const values = ScalewayAnnotations.read(service).values;
        const identity = identityOf(service, values, config);
        const lb = await find(ctx, identity).catch((err: unknown) => {
          if (err instanceof LoadBalancerSpecError) return undefined;
          throw err;
        });
        if (!lb) return undefined;
        const ingress = ingressOf(service, values);
        return status(ctx, lb, { private: values.private, ingress }, false);
      });
    },

    async ensureLoadBalancer(ctx, _clusterName, service, nodes) {
      return step("ensure", service, async () => {
        const { values, desired } = desiredOf(service, nodes, true);
        let lb = (await find(ctx, desired)) ?? (await create(ctx, service, desired));
        const why = await mustRecreate(ctx, desired, lb);
        if (why !== undefined) {
          logger?.info(`${serviceName(service)}: re-creating load balancer ${lb.id}: ${why}`);
          await remove(ctx, service, lb, values);
          lb = await create(ctx, service, desired);
        }
        requireReady(lb);
        await adoptTag(ctx, service, lb, desired);
        const found = await read(ctx, lb);
        const ops = planLoadBalancer(found, desired);
        if (ops.length > 0)
          logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${ops.map(describe).join(", ")}`);
        const frontends = await applyOperations(ctx, api, lb, found, ops);
        await reconcileAcls(ctx, service, lb, frontends, desired);
        return status(ctx, lb, desired);
      });
    },

    async updateLoadBalancer(ctx, _clusterName, service, nodes) {
      await step("update", service, async () => {
        const { desired } = desiredOf(service, nodes, true);
        const lb = await find(ctx, desired);
        if (!lb) return;
        requireReady(lb);
        const found = await read(ctx, lb);
        const ops = planLoadBalancer(found, desired).filter((o) => o.op === "setServers");
        if (ops.length > 0)
          logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${ops.map(describe).join(", ")}`);
        const frontends = await applyOperations(ctx, api, lb, found, ops);
        // The access lists allow the Nodes' addresses: they follow the Nodes too.
        await reconcileAcls(ctx, service, lb, frontends, desired);
      });
    },

    async planLoadBalancer(ctx, _clusterName, service, nodes): Promise<LoadBalancerPlan> {
      return step("plan", service, async () => {
        const { desired } = desiredOf(service, nodes, false);
        const lb = await find(ctx, desired);
        if (!lb) return previewLoadBalancer(undefined, desired, [], ownerTag(desired.uid));
        const why = await mustRecreate(ctx, desired, lb);
        if (why !== undefined) {
          const made = previewLoadBalancer(undefined, desired, [], ownerTag(desired.uid));
          // Its addresses change: no status is promised.
          return { action: "update", name: lb.name, changes: [`delete ${lb.zone}/${lb.id}: ${why}`, ...made.changes] };
        }
        const found = await read(ctx, lb);
        const acls: string[] = [];
        for (const p of desired.ports) {
          const id = found.frontends.find((f) => f.inboundPort === p.frontend.inboundPort)?.id;
          const want = aclSpecs(id ?? "new", desired.aclAllow);
          const got = id === undefined ? [] : await api.listAcls(ctx, lb.zone, id, aclPrefix(id));
          if (!aclsEqual(got, want)) acls.push(`set ${want.length} ACL rule(s) on port ${p.frontend.inboundPort}`);
        }
        const ops = planLoadBalancer(found, desired);
        return previewLoadBalancer(found, desired, ops, ownerTag(desired.uid), acls);
      });
    },

    async ensureLoadBalancerDeleted(ctx, _clusterName, service) {
      await step("delete", service, async () => {
        // Deleting never waits for the annotations to be fixed: an invalid value reads as unset here.
        const values = ScalewayAnnotations.read(service).values;
        const desired = identityOf(service, values, config);
        const lb = await find(ctx, desired).catch((err: unknown) => {
          // Another Service's load balancer is never deleted, nor does it hold up this Service's deletion.
          if (!(err instanceof LoadBalancerSpecError)) throw err;
          warn(service, "LoadBalancerKept", err.message);
          return undefined;
        });
        if (!lb) return;
        if (desired.externallyManaged) {
          // Only this Service's frontends and backends (named after its UID); frontends first, they use the backends.
          const own = <T extends { name: string }>(items: readonly T[]) =>
            items.filter((i) => i.name.startsWith(`${desired.uid}_`));
          for (const f of own(await api.listFrontends(ctx, lb.zone, lb.id)))
            await api.deleteFrontend(ctx, lb.zone, f.id);
          for (const b of own(await api.listBackends(ctx, lb.zone, lb.id))) await api.deleteBackend(ctx, lb.zone, b.id);
          return;
        }
        if (lb.name !== desired.name) {
          warn(
            service,
            "LoadBalancerKept",
            `load balancer ${lb.zone}/${lb.id} is named ${lb.name}, not ${desired.name}: it is not deleted`,
          );
          return;
        }
        await remove(ctx, service, lb, values);
      });
    },
  };
}

function serviceName(service: Service): string {
  return `Service ${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
}
