/**
 * LoadBalancer for Hetzner Cloud, with hccm's behaviour so its load balancers carry over unchanged:
 *
 * - **Name**: the `name` annotation, else Kubernetes' default (`a` + the UID, 32 characters).
 * - **Finding it**: by the `hcloud-ccm/service-uid` label, then by name. One found by name without the label is
 *   adopted (labelled, nothing else recreated: same ID, same IPs); one found by name that carries another Service's
 *   label is a conflict, never taken over. Two with this Service's label is an error naming both.
 * - **Creating it**: only after both lookups found nothing, in one call with its listeners, targets and network.
 *   `create` is never repeated blindly by the API client, so a create whose answer was lost leaves one load
 *   balancer, found by its label on the next sync.
 * - **Changing it**: `lb/desired.ts` says what the Service wants, `lb/plan.ts` what differs, `lb/apply.ts` does it;
 *   a converged load balancer costs one listing and no write. `planLoadBalancer` shows the same plan, reads only.
 * - **Deleting it**: only the one carrying this Service's label; a delete-protected one is left, with a warning.
 *
 * Annotations are read before any call: an invalid one stops the sync with one `InvalidAnnotationsError` naming
 * each key and value, and nothing is written. `spec.loadBalancerClass` is not looked at here: hccm serves only
 * class-less Services, the framework's default, so `classes` is left unset.
 */
import type { ConsolaInstance } from "consola";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { type CallContext, defaultLoadBalancerName, type LoadBalancer, type LoadBalancerPlan } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import { CloudApiError } from "../kit/http/errors.ts";
import { type HcloudAnnotationValues, hcloudAnnotations } from "./annotations.ts";
import type { CloudLoadBalancer } from "./api/load-balancer-schemas.ts";
import { type CreateLoadBalancerBody, type HcloudLoadBalancers, SERVICE_UID_LABEL } from "./api/load-balancers.ts";
import type { RobotApi, RobotServer } from "./api/robot.ts";
import type { HcloudConfig } from "./config.ts";
import { applyOperations, describe, type LoadBalancerWrites, statusOf } from "./lb/apply.ts";
import { certificateIDs, type HcloudCertificatesApi } from "./lb/certificates.ts";
import { type DesiredLoadBalancer, desiredLoadBalancer, LoadBalancerSpecError } from "./lb/desired.ts";
import { planLoadBalancer } from "./lb/plan.ts";
import { previewLoadBalancer } from "./lb/preview.ts";
import { loadBalancerTypeWarnings } from "./lb/type-warnings.ts";
import type { NetworkRef } from "./network.ts";
import { tryParseProviderID } from "./provider-id.ts";

export type { HcloudCertificatesApi };

/** The load-balancer calls the capability makes (`HcloudLoadBalancers` has them). */
export type HcloudLoadBalancersApi = LoadBalancerWrites &
  Pick<HcloudLoadBalancers, "list" | "byName" | "create" | "delete">;

export interface HcloudLoadBalancerDeps {
  readonly lbs: HcloudLoadBalancersApi;
  /** `HCLOUD_NETWORK`, resolved once (shared with instances and routes); absent when it is not set. */
  readonly network?: NetworkRef | undefined;
  /** Robot with credentials, for Robot Nodes' IP targets; absent otherwise. */
  readonly robot?: RobotApi | undefined;
  /** For `http-certificates` given by name and the managed certificate; without it only IDs work. */
  readonly certificates?: HcloudCertificatesApi | undefined;
  readonly config: {
    readonly loadBalancers: HcloudConfig["loadBalancers"];
    readonly robot: Pick<HcloudConfig["robot"], "enabled">;
  };
  readonly logger?: ConsolaInstance | undefined;
  /** A Warning event about the Service that does not stop its sync (`ServiceWarnings.warn` fits). */
  readonly warn?: ((service: Service, reason: string, message: string) => void) | undefined;
  /** Milliseconds since the epoch, for a deprecated type's end of sale; default the wall clock. */
  readonly now?: (() => number) | undefined;
}

const OP = "hcloud/load-balancers";

export function createHcloudLoadBalancer(deps: HcloudLoadBalancerDeps) {
  const { lbs, config, logger } = deps;
  const annotations = hcloudAnnotations(config.loadBalancers);

  async function step<T>(op: string, service: Service, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw wrapError(`${OP}.${op} ${serviceName(service)}`, err);
    }
  }

  /** This Service's load balancer by its label; the caller decides whether a name match counts. */
  async function byLabel(ctx: CallContext, uid: string): Promise<CloudLoadBalancer | undefined> {
    const found = await lbs.list(ctx, `${SERVICE_UID_LABEL}=${uid}`);
    if (found.length > 1) {
      throw new Error(
        `load balancers ${found.map((l) => `${l.id} (${l.name})`).join(", ")} all carry ${SERVICE_UID_LABEL}=${uid}; delete all but one in the Hetzner Console`,
      );
    }
    return found[0];
  }

  /** By label, else by name when that one is free to take (no label, or this Service's). */
  async function find(
    ctx: CallContext,
    service: Service,
    name: string,
    quiet = false,
  ): Promise<CloudLoadBalancer | undefined> {
    const uid = uidOf(service);
    const labelled = await byLabel(ctx, uid);
    if (labelled) return labelled;
    const named = await lbs.byName(ctx, name);
    const owner = named?.labels[SERVICE_UID_LABEL];
    if (named && owner !== undefined && owner !== uid) {
      throw new Error(
        `the load balancer named ${name} (${named.id}) belongs to another Service (${SERVICE_UID_LABEL}=${owner}); choose another name with load-balancer.hetzner.cloud/name, or, if that Service is gone for good, remove the label from the load balancer so this Service takes it over`,
      );
    }
    if (named && !quiet) {
      logger?.info(`${serviceName(service)}: adopting load balancer ${named.id} (${name}) found by name`);
    }
    return named;
  }

  /** With `write: false` (a preview) nothing is created and no warning goes out. */
  async function desiredFor(
    ctx: CallContext,
    service: Service,
    values: HcloudAnnotationValues,
    nodes: readonly Node[],
    write = true,
  ): Promise<{ desired: DesiredLoadBalancer; first: readonly string[] }> {
    const networkID = deps.network ? await deps.network.id(ctx) : undefined;
    // Refusals first (pure): a Service that cannot be served gets no certificate and no Robot call.
    desiredLoadBalancer({ service, values, nodes, config, networkID });
    const robotServers = await robotServersFor(ctx, nodes);
    const certs = await certificateIDs(ctx, deps.certificates, uidOf(service), values, write);
    const desired = desiredLoadBalancer({
      service,
      values,
      nodes,
      config,
      networkID,
      robotServers,
      certificateIDs: certs.ids,
    });
    if (write) for (const w of desired.warnings) warn(service, "LoadBalancerConfiguration", w);
    return { desired, first: certs.wouldCreate === undefined ? [] : [certs.wouldCreate] };
  }

  async function robotServersFor(ctx: CallContext, nodes: readonly Node[]) {
    if (!config.robot.enabled || !deps.robot) return undefined;
    const anyRobot = nodes.some((n) => tryParseProviderID(n.spec?.providerID ?? "")?.kind === "robot");
    if (!anyRobot) return undefined;
    const servers = await deps.robot.listServers(ctx);
    return new Map<number, RobotServer>(servers.map((s) => [s.number, s]));
  }

  function warn(service: Service, reason: string, message: string) {
    if (deps.warn) deps.warn(service, reason, message);
    else logger?.warn(`${serviceName(service)}: ${message}`);
  }

  async function create(ctx: CallContext, service: Service, desired: DesiredLoadBalancer): Promise<CloudLoadBalancer> {
    const c = desired.create;
    if (c.location === undefined && c.networkZone === undefined) {
      throw new LoadBalancerSpecError(
        "neither load-balancer.hetzner.cloud/location nor load-balancer.hetzner.cloud/network-zone is set; set one (or HCLOUD_LOAD_BALANCERS_LOCATION / HCLOUD_LOAD_BALANCERS_NETWORK_ZONE)",
      );
    }
    // Attached at creation when any address will do, saving an action; a chosen address or subnet is attached after.
    const net = desired.network;
    const atCreate = net && net.ip === undefined && net.ipRange === undefined ? net.id : undefined;
    const body: CreateLoadBalancerBody = {
      name: desired.name,
      load_balancer_type: c.type,
      ...(c.location === undefined ? {} : { location: c.location }),
      ...(c.location !== undefined || c.networkZone === undefined ? {} : { network_zone: c.networkZone }),
      ...(c.algorithm === undefined ? {} : { algorithm: { type: c.algorithm } }),
      ...(atCreate === undefined ? {} : { network: atCreate }),
      // Off only with a network (the API refuses otherwise); else it goes off once attached and targets are private.
      ...(c.publicInterface === undefined || (!c.publicInterface && atCreate === undefined)
        ? {}
        : { public_interface: c.publicInterface }),
      labels: { [SERVICE_UID_LABEL]: desired.uid },
    };
    // Listeners and targets in the same call: one action instead of one per port and Node. Server targets on private
    // IPs need the network, so they wait for the attach when it comes after.
    const privateTargets = desired.targets.some((t) => t.type === "server" && t.use_private_ip);
    const full: CreateLoadBalancerBody = {
      ...body,
      services: desired.services,
      ...(privateTargets && atCreate === undefined ? {} : { targets: desired.targets }),
    };
    let lb: CloudLoadBalancer;
    try {
      lb = await lbs.create(ctx, full);
    } catch (err) {
      // Refused as a whole (a Node's server gone, a bad listener): nothing was made, so making the bare load balancer
      // is safe; the runner then adds what it can, one by one, and says what it cannot.
      if (!refusedOutright(err)) throw err;
      logger?.info(`${serviceName(service)}: creating with listeners and targets refused (${(err as Error).message})`);
      lb = await lbs.create(ctx, body);
    }
    logger?.info(`${serviceName(service)}: created load balancer ${lb.id} (${lb.name})`);
    return lb;
  }

  /** hccm's type warnings, once per sync, about the type the load balancer has after it. */
  function warnAboutType(service: Service, desired: DesiredLoadBalancer, lb: CloudLoadBalancer) {
    const now = (deps.now ?? Date.now)();
    const configured = desired.type !== undefined;
    for (const w of loadBalancerTypeWarnings({ configured, type: lb.load_balancer_type, now })) {
      warn(service, w.reason, w.message);
    }
  }

  async function converge(ctx: CallContext, service: Service, lb: CloudLoadBalancer, desired: DesiredLoadBalancer) {
    const ops = planLoadBalancer(lb, desired);
    if (ops.length > 0) {
      logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${ops.map(describe).join(", ")}`);
    }
    return applyOperations(ctx, lbs, lb, ops, (m) => warn(service, "TargetLeftOut", m));
  }

  return {
    getLoadBalancerName(_ctx, _clusterName, service) {
      const read = annotations.read(service);
      return read.values.name ?? defaultLoadBalancerName(service);
    },

    async getLoadBalancer(ctx, _clusterName, service): Promise<LoadBalancerStatus | undefined> {
      return step("get", service, async () => {
        const lb = await byLabel(ctx, uidOf(service));
        if (!lb) return undefined;
        const values = annotations.read(service).values;
        return statusOf(lb, {
          ...(values.hostname === undefined ? {} : { hostname: values.hostname }),
          ipv6: !values.ipv6Disabled,
          privateIngress: !values.disablePrivateIngress,
          proxyProtocol: values.proxyProtocol,
        });
      });
    },

    async ensureLoadBalancer(ctx, _clusterName, service, nodes) {
      return step("ensure", service, async () => {
        const values = annotations.parse(service);
        const { desired } = await desiredFor(ctx, service, values, nodes);
        const lb = (await find(ctx, service, desired.name)) ?? (await create(ctx, service, desired));
        const now = await converge(ctx, service, lb, desired);
        warnAboutType(service, desired, now);
        return statusOf(now, { ...desired.ingress, proxyProtocol: desired.proxyProtocol });
      });
    },

    async updateLoadBalancer(ctx, _clusterName, service, nodes) {
      await step("update", service, async () => {
        const values = annotations.parse(service);
        const { desired } = await desiredFor(ctx, service, values, nodes);
        const lb = await find(ctx, service, desired.name);
        if (!lb) return;
        const ops = planLoadBalancer(lb, desired).filter((o) => o.op === "addTarget" || o.op === "removeTarget");
        if (ops.length > 0) {
          logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${ops.map(describe).join(", ")}`);
        }
        await applyOperations(ctx, lbs, lb, ops, (m) => warn(service, "TargetLeftOut", m));
        warnAboutType(service, desired, lb);
      });
    },

    async planLoadBalancer(ctx, _clusterName, service, nodes): Promise<LoadBalancerPlan> {
      return step("plan", service, async () => {
        const values = annotations.parse(service);
        const { desired, first } = await desiredFor(ctx, service, values, nodes, false);
        const lb = await find(ctx, service, desired.name, true);
        return previewLoadBalancer(lb, desired, lb ? planLoadBalancer(lb, desired) : [], first);
      });
    },

    async ensureLoadBalancerDeleted(ctx, _clusterName, service) {
      await step("delete", service, async () => {
        const lb = await byLabel(ctx, uidOf(service));
        if (!lb) return;
        try {
          await lbs.delete(ctx, lb.id);
          logger?.info(`${serviceName(service)}: deleted load balancer ${lb.id} (${lb.name})`);
        } catch (err) {
          if (!(err instanceof CloudApiError && err.code === "protected")) throw err;
          warn(
            service,
            "LoadBalancerProtected",
            `load balancer ${lb.id} (${lb.name}) is delete-protected; it is left in place`,
          );
        }
      });
    },
  } satisfies LoadBalancer;
}

function uidOf(service: Service): string {
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to own its load balancer by");
  return uid;
}

/** A 4xx that is no "try again" (`locked`, `conflict`, the rate limit): the API refused the request and made nothing. */
function refusedOutright(err: unknown): boolean {
  return err instanceof CloudApiError && err.status >= 400 && err.status < 500 && ![409, 423, 429].includes(err.status);
}

function serviceName(service: Service): string {
  return `Service ${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
}
