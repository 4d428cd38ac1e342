/**
 * LoadBalancer for DigitalOcean, with DO CCM's behaviour (`cloud-controller-manager/do/loadbalancers.go`) so its
 * load balancers carry over unchanged, and ownership by cluster instead of by name:
 *
 * - **Finding it**: `lb/ownership.ts`: by the ID annotation, by this Service's tag, then by name only when the load
 *   balancer carries this cluster's tag. A name collision with another cluster's load balancer is a Warning event
 *   and a refused sync: never adopted, changed or deleted.
 * - **Creating it**: only after the lookups found nothing, in one call with its rules, Droplets and tags. `create`
 *   is never repeated blindly by the API client, so a create whose answer was lost leaves one load balancer, found
 *   by its Service tag on the next sync.
 * - **Changing it**: `lb/desired.ts` says what the Service wants, `lb/plan.ts` what differs; one `PUT` when anything
 *   does, none when converged. A rename is such a change: same ID, same IP.
 * - **Recording it**: the ID goes on the Service as `kubernetes.digitalocean.com/load-balancer-id` and the type as
 *   `do-loadbalancer-type`, as DO CCM writes them, so later syncs cost one read and a swap back to DO CCM finds the
 *   same load balancer.
 * - **Deleting it**: only one that is this Service's; a refused one is left alone.
 * - **Disowned** (`service.kubernetes.io/do-loadbalancer-disown`): nothing is read, written or deleted.
 *
 * Annotations are read before any call: an invalid one stops the sync with one `InvalidAnnotationsError` naming
 * each key and value (the service controller's Warning event), and nothing is written.
 */
import type { ConsolaInstance } from "consola";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { type CallContext, defaultLoadBalancerName, type LoadBalancer, type LoadBalancerPlan } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import {
  DigitalOceanAnnotations,
  type DigitalOceanAnnotationValues,
  DigitalOceanIDAnnotations,
  LOAD_BALANCER_ID_ANNOTATION,
} from "./annotations.ts";

const CERTIFICATE_ID_ANNOTATION = DigitalOceanAnnotations.declared.certificateID.key;
const TYPE_ANNOTATION = DigitalOceanAnnotations.declared.type.key;

import type { CertificatesApi } from "./api/certificates.ts";
import type { DropletsApi } from "./api/droplets.ts";
import type { CloudLoadBalancer, LoadBalancersApi } from "./api/load-balancers.ts";
import type { DigitalOceanConfig } from "./config.ts";
import { type DesiredLoadBalancer, desiredLoadBalancer } from "./lb/desired.ts";
import { LoadBalancerSpecError } from "./lb/errors.ts";
import { clusterTag, decideOwnership, type Ownership, ownershipByID, serviceTag } from "./lb/ownership.ts";
import { dropletsDiffer, planUpdate } from "./lb/plan.ts";
import { previewLoadBalancer } from "./lb/preview.ts";
import { requireReady, statusOf } from "./lb/status.ts";
import { tryParseProviderID } from "./provider-id.ts";

export interface DigitalOceanLoadBalancerDeps {
  readonly lbs: LoadBalancersApi;
  readonly certificates: CertificatesApi;
  /** For Nodes without a provider ID (looked up by name, one listing per sync at most). */
  readonly droplets: Pick<DropletsApi, "listDroplets" | "getDroplet">;
  readonly config: Pick<DigitalOceanConfig, "region" | "vpcID" | "clusterID" | "defaultLoadBalancerType">;
  readonly logger?: ConsolaInstance | undefined;
  /** A Warning event about the Service that does not stop its sync (`ServiceWarnings.warn` fits). */
  readonly warn?: ((service: Service, reason: string, message: string) => void) | undefined;
  /**
   * Writes annotations on the Service (a merge patch): the load balancer's ID, and a renewed Let's Encrypt
   * certificate's ID, as DO CCM records them. Absent before the manager hands over a client.
   */
  readonly annotate?:
    | ((ctx: CallContext, service: Service, annotations: Readonly<Record<string, string>>) => Promise<void>)
    | undefined;
}

const OP = "digitalocean/load-balancers";

export function createDigitalOceanLoadBalancer(deps: DigitalOceanLoadBalancerDeps) {
  const { lbs, config, logger } = deps;

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

  function tagsFor(service: Service, clusterName: string) {
    return { clusterTag: clusterTag(config.clusterID ?? clusterName), serviceTag: serviceTag(uidOf(service)) };
  }

  /** The ID annotation, read strictly: a malformed one is an invalid annotation like any other. */
  function idOf(service: Service): string | undefined {
    return DigitalOceanIDAnnotations.parse(service).loadBalancerID;
  }

  async function find(ctx: CallContext, service: Service, clusterName: string, name: string): Promise<Ownership> {
    const tags = tagsFor(service, clusterName);
    const id = idOf(service);
    if (id !== undefined) {
      const byID = await lbs.get(ctx, id);
      if (byID) return ownershipByID(byID, tags);
      logger?.info(`${serviceName(service)}: load balancer ${id} of ${LOAD_BALANCER_ID_ANNOTATION} is gone`);
    }
    const names = [...new Set([name, defaultLoadBalancerName(service)])];
    return decideOwnership({ all: await lbs.list(ctx), names, ...tags });
  }

  /** The found load balancer, or undefined when none; a refusal is a Warning event and an error. */
  function accepted(service: Service, found: Ownership): Exclude<Ownership, { kind: "refuse" }> {
    if (found.kind !== "refuse") return found;
    warn(service, "LoadBalancerNotOwned", found.reason);
    throw new LoadBalancerSpecError(found.reason);
  }

  /**
   * The certificate the rules end TLS with, and whether it is a renewal to record. DigitalOcean renews a Let's
   * Encrypt certificate as a new one (new ID, same name) and moves the load balancer onto it; the annotation still
   * names the old one. As DO CCM's `recordUpdatedLetsEncryptCert`: when the load balancer's certificate is a Let's
   * Encrypt one and the annotation's is gone or has its name, the load balancer's is kept and recorded.
   */
  async function certificateID(
    ctx: CallContext,
    values: DigitalOceanAnnotationValues,
    current: CloudLoadBalancer | undefined,
  ): Promise<{ id: string | undefined; renewed?: string }> {
    if (values.certificateID !== undefined) {
      const onLB = current?.forwarding_rules?.find((r) => r.certificate_id)?.certificate_id ?? undefined;
      if (!onLB || onLB === values.certificateID) return { id: values.certificateID };
      const lbCert = await deps.certificates.get(ctx, onLB);
      if (lbCert?.type !== "lets_encrypt") return { id: values.certificateID };
      const named = await deps.certificates.get(ctx, values.certificateID);
      if (named && named.name !== lbCert.name) return { id: values.certificateID };
      return { id: onLB, renewed: onLB };
    }
    if (values.certificateName === undefined) return { id: undefined };
    const id = await deps.certificates.idByName(ctx, values.certificateName);
    if (id === undefined) {
      throw new LoadBalancerSpecError(
        `no certificate is named ${values.certificateName} (service.beta.kubernetes.io/do-loadbalancer-certificate-name)`,
      );
    }
    return { id };
  }

  /** Each Node's Droplet: by provider ID, else by name from one listing (DO CCM's `nodesToDropletIDs`). */
  async function backends(ctx: CallContext, nodes: readonly Node[]) {
    const ids = nodes.map((node) => ({ node, dropletID: tryParseProviderID(node.spec?.providerID ?? "") }));
    if (ids.every((b) => b.dropletID !== undefined)) return ids;
    const byName = new Map((await deps.droplets.listDroplets(ctx)).map((d) => [d.name, d.id]));
    return ids.map((b) => ({ ...b, dropletID: b.dropletID ?? byName.get(b.node.metadata?.name ?? "") }));
  }

  /** Without REGION: the region of the first Node's Droplet (one read, at creation only). */
  async function regionOfNodes(ctx: CallContext, withIDs: readonly { dropletID: number | undefined }[]) {
    const first = withIDs.find((b) => b.dropletID !== undefined)?.dropletID;
    const region = first === undefined ? undefined : (await deps.droplets.getDroplet(ctx, first))?.region;
    if (!region) {
      throw new LoadBalancerSpecError(
        "the region is not known and no Node has a Droplet to take it from: set REGION, e.g. REGION=nyc3",
      );
    }
    return region;
  }

  async function desiredFor(
    ctx: CallContext,
    service: Service,
    clusterName: string,
    values: DigitalOceanAnnotationValues,
    nodes: readonly Node[],
    current: CloudLoadBalancer | undefined,
  ): Promise<DesiredLoadBalancer & { renewedCertificate?: string }> {
    const withIDs = await backends(ctx, nodes);
    const cert = await certificateID(ctx, values, current);
    const region = current?.region?.slug ?? config.region ?? (await regionOfNodes(ctx, withIDs));
    const t = tagsFor(service, clusterName);
    const desired = desiredLoadBalancer({
      service,
      values,
      nodes: withIDs,
      config: { region, vpcID: config.vpcID, defaultLoadBalancerType: config.defaultLoadBalancerType },
      certificateID: cert.id,
      tags: [t.clusterTag, t.serviceTag],
      current,
    });
    return cert.renewed === undefined ? desired : { ...desired, renewedCertificate: cert.renewed };
  }

  /** Failed recordings already said, so a missing RBAC rule is one log line per Service, not one per sync. */
  const unrecorded = new Set<string>();

  async function record(ctx: CallContext, service: Service, wanted: Readonly<Record<string, string>>) {
    const have = service.metadata?.annotations ?? {};
    const changed = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => have[k] !== v));
    if (!deps.annotate || Object.keys(changed).length === 0) return;
    try {
      await deps.annotate(ctx, service, changed);
    } catch (err) {
      // The Service tag finds it without the annotation; the next sync tries again.
      const key = `${service.metadata?.uid}/${JSON.stringify(changed)}`;
      if (unrecorded.has(key)) return;
      if (unrecorded.size > 4096) unrecorded.clear();
      unrecorded.add(key);
      logger?.warn(
        `${serviceName(service)}: could not record ${Object.entries(changed)
          .map(([k, v]) => `${k}=${v}`)
          .join(", ")} (the manager needs patch on services): ${(err as Error).message}`,
      );
    }
  }

  async function ensure(
    ctx: CallContext,
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
    onlyDroplets: boolean,
  ) {
    const values = DigitalOceanAnnotations.parse(service);
    if (values.disown) return undefined;
    const name = values.name ?? defaultLoadBalancerName(service);
    const found = accepted(service, await find(ctx, service, clusterName, name));
    const current = found.kind === "none" ? undefined : found.lb;
    const desired = await desiredFor(ctx, service, clusterName, values, nodes, current);
    for (const w of desired.warnings) warn(service, "LoadBalancerConfiguration", w);
    let lb: CloudLoadBalancer;
    if (found.kind === "none") {
      if (onlyDroplets) return undefined;
      lb = await lbs.create(ctx, desired.body);
      logger?.info(`${serviceName(service)}: created load balancer ${lb.id} (${lb.name})`);
    } else {
      lb = found.lb;
      if (found.kind === "adopt") {
        logger?.info(`${serviceName(service)}: adopting load balancer ${lb.id} (${lb.name}) found by ${found.how}`);
      }
      const plan = planUpdate(lb, desired);
      if (plan.changes.length > 0 && (!onlyDroplets || dropletsDiffer(lb, desired) || found.kind === "adopt")) {
        logger?.info(`${serviceName(service)}: load balancer ${lb.id}: ${plan.changes.join("; ")}`);
        lb = await lbs.update(ctx, lb.id, plan.body);
      }
    }
    // What DO CCM records (`retrieveAndAnnotateLoadBalancer`): the ID, and the type, which pins it.
    await record(ctx, service, {
      [LOAD_BALANCER_ID_ANNOTATION]: lb.id,
      ...(lb.type ? { [TYPE_ANNOTATION]: lb.type } : {}),
      ...(desired.renewedCertificate === undefined ? {} : { [CERTIFICATE_ID_ANNOTATION]: desired.renewedCertificate }),
    });
    return { lb, desired };
  }

  return {
    getLoadBalancerName(_ctx, _clusterName, service) {
      return DigitalOceanAnnotations.read(service).values.name ?? defaultLoadBalancerName(service);
    },

    async getLoadBalancer(ctx, clusterName, service): Promise<LoadBalancerStatus | undefined> {
      return step("get", service, async () => {
        const { values } = DigitalOceanAnnotations.read(service);
        if (values.disown) return service.status?.loadBalancer;
        const found = await find(ctx, service, clusterName, values.name ?? defaultLoadBalancerName(service));
        if (found.kind !== "own" && found.kind !== "adopt") return undefined;
        return statusOf(found.lb, { hostname: values.hostname?.toLowerCase(), proxyProtocol: values.proxyProtocol });
      });
    },

    async ensureLoadBalancer(ctx, clusterName, service, nodes) {
      return step("ensure", service, async () => {
        const done = await ensure(ctx, clusterName, service, nodes, false);
        if (!done) return service.status?.loadBalancer ?? { ingress: [] };
        requireReady(done.lb);
        return statusOf(done.lb, done.desired);
      });
    },

    async updateLoadBalancer(ctx, clusterName, service, nodes) {
      await step("update", service, async () => {
        await ensure(ctx, clusterName, service, nodes, true);
      });
    },

    async planLoadBalancer(ctx, clusterName, service, nodes): Promise<LoadBalancerPlan> {
      return step("plan", service, async () => {
        const values = DigitalOceanAnnotations.parse(service);
        const name = values.name ?? defaultLoadBalancerName(service);
        // Disowned: ensureLoadBalancer reads and writes nothing.
        if (values.disown) return { action: "none", name, changes: [] };
        const found = await find(ctx, service, clusterName, name);
        if (found.kind === "refuse") throw new LoadBalancerSpecError(found.reason);
        const current = found.kind === "none" ? undefined : found.lb;
        const desired = await desiredFor(ctx, service, clusterName, values, nodes, current);
        const id = service.metadata?.annotations?.[LOAD_BALANCER_ID_ANNOTATION];
        const first = [
          ...(current && id !== current.id ? [`record ${LOAD_BALANCER_ID_ANNOTATION}=${current.id}`] : []),
          ...(current?.type && service.metadata?.annotations?.[TYPE_ANNOTATION] !== current.type
            ? [`record ${TYPE_ANNOTATION}=${current.type}`]
            : []),
          ...(desired.renewedCertificate === undefined
            ? []
            : [`record ${CERTIFICATE_ID_ANNOTATION}=${desired.renewedCertificate} (Let's Encrypt renewal)`]),
        ];
        return previewLoadBalancer(found, desired, first);
      });
    },

    async ensureLoadBalancerDeleted(ctx, clusterName, service) {
      await step("delete", service, async () => {
        const values = DigitalOceanAnnotations.read(service).values;
        if (values.disown) return;
        const found = await find(ctx, service, clusterName, values.name ?? defaultLoadBalancerName(service));
        if (found.kind === "refuse") {
          warn(service, "LoadBalancerNotOwned", `${found.reason}; it is not deleted`);
          return;
        }
        if (found.kind === "none") return;
        const gone = await lbs.delete(ctx, found.lb.id);
        if (gone) logger?.info(`${serviceName(service)}: deleted load balancer ${found.lb.id} (${found.lb.name})`);
      });
    },
  } satisfies LoadBalancer;
}

function uidOf(service: Service): string {
  const uid = service.metadata?.uid;
  if (!uid) throw new LoadBalancerSpecError("the Service has no UID to own its load balancer by");
  return uid;
}

function serviceName(service: Service): string {
  return `Service ${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
}
