/**
 * DO CCM's public-access firewall, planned: which inbound rules the Services ask for, whether the firewall in the
 * cloud drifted from them, and what to send. Pure: Services and the firewall last read in, an action out.
 *
 * The rules (upstream: cloud-controller-manager/do/firewall_controller.go createReconciledFirewallRequest):
 * - every port of a `NodePort` Service, TCP or UDP, on its node port, from anywhere (`0.0.0.0/0`, `::/0`), unless
 *   the Service says `kubernetes.digitalocean.com/firewall-managed: "false"`;
 * - for a `LoadBalancer` Service whose load balancer is `REGIONAL_NETWORK` and `EXTERNAL` (its traffic reaches the
 *   Droplets unproxied): its service ports from anywhere, and the health-check port (the Service's
 *   `healthCheckNodePort` under `externalTrafficPolicy: Local`, else kube-proxy's 10256) from the load balancer
 *   when the Service carries its ID, else from anywhere;
 * - outbound: everything (TCP, UDP, ICMP to anywhere); tags: `PUBLIC_ACCESS_FIREWALL_TAGS`.
 *
 * Compared as DO CCM compares: name, tags and rules as sets, a rule's addresses and load balancer UIDs only (other
 * sources are not ours), `all`, empty and `0` ports alike.
 */
import type { Service } from "../../../kube/objects.ts";
import type { Firewall, FirewallRule, FirewallSpec } from "../api/firewalls.ts";

export const FIREWALL_MANAGED_ANNOTATION = "kubernetes.digitalocean.com/firewall-managed";
/** DO CCM's annotations the firewall reads; the load-balancer code owns their full meaning. */
export const LOAD_BALANCER_ID_ANNOTATION = "kubernetes.digitalocean.com/load-balancer-id";
export const LOAD_BALANCER_TYPE_ANNOTATION = "service.beta.kubernetes.io/do-loadbalancer-type";
export const LOAD_BALANCER_NETWORK_ANNOTATION = "service.beta.kubernetes.io/do-loadbalancer-network";
/** kube-proxy's `--healthz-bind-address` port, which a load balancer checks when the Service has no health node port. */
export const KUBE_PROXY_HEALTH_PORT = 10256;

const ANYWHERE = ["0.0.0.0/0", "::/0"] as const;

export type LoadBalancerType = "REGIONAL" | "REGIONAL_NETWORK";

export interface FirewallSettings {
  /** `PUBLIC_ACCESS_FIREWALL_NAME`. */
  readonly name: string;
  /** `PUBLIC_ACCESS_FIREWALL_TAGS`: the Droplets the firewall applies to. */
  readonly tags: readonly string[];
  /** `DEFAULT_LB_TYPE`: a Service's load balancer type when it does not say. */
  readonly defaultLoadBalancerType: LoadBalancerType;
}

export interface DesiredFirewall {
  readonly spec: FirewallSpec;
  /** Why a Service or a port adds no rule, or was read with a default; for the log. */
  readonly notes: readonly string[];
}

export type FirewallAction =
  | { readonly kind: "none" }
  | { readonly kind: "create"; readonly spec: FirewallSpec }
  | { readonly kind: "update"; readonly id: string; readonly spec: FirewallSpec; readonly drift: readonly string[] };

const rule = (protocol: string, port: number, from: Partial<Pick<FirewallRule, "addresses" | "loadBalancerUIDs">>) => ({
  protocol,
  ports: String(port),
  addresses: from.addresses ?? [],
  loadBalancerUIDs: from.loadBalancerUIDs ?? [],
});

export const ALLOW_ALL_OUTBOUND: readonly FirewallRule[] = ["tcp", "udp", "icmp"].map((protocol) => ({
  protocol,
  ports: "0",
  addresses: [...ANYWHERE],
  loadBalancerUIDs: [],
}));

/** The firewall the Services ask for. */
export function desiredFirewall(services: readonly Service[], settings: FirewallSettings): DesiredFirewall {
  const notes: string[] = [];
  const inbound = new Map<string, FirewallRule>();
  const add = (r: FirewallRule) => inbound.set(ruleKey(r), r);
  for (const svc of [...services].sort((a, b) => keyOf(a).localeCompare(keyOf(b)))) {
    const key = keyOf(svc);
    if (svc.spec?.type === "NodePort") {
      if (!managed(svc, key, notes)) continue;
      for (const port of svc.spec.ports ?? []) {
        const protocol = protocolOf(port.protocol);
        if (!protocol) notes.push(`${key}: port ${port.name ?? port.port} is ${port.protocol}; only TCP and UDP open`);
        else if (!port.nodePort) notes.push(`${key}: port ${port.name ?? port.port} has no node port yet`);
        else add(rule(protocol, port.nodePort, { addresses: [...ANYWHERE] }));
      }
    } else if (svc.spec?.type === "LoadBalancer") {
      const kind = loadBalancerKind(svc, settings.defaultLoadBalancerType);
      if (typeof kind === "string") {
        notes.push(`${key}: ${kind}`);
        continue;
      }
      if (kind.type !== "REGIONAL_NETWORK" || kind.network !== "EXTERNAL") continue;
      const id = svc.metadata?.annotations?.[LOAD_BALANCER_ID_ANNOTATION];
      add(rule("tcp", healthCheckPort(svc), id ? { loadBalancerUIDs: [id] } : { addresses: [...ANYWHERE] }));
      for (const port of svc.spec.ports ?? []) {
        const protocol = protocolOf(port.protocol);
        if (!protocol) notes.push(`${key}: port ${port.name ?? port.port} is ${port.protocol}; only TCP and UDP open`);
        else add(rule(protocol, port.port, { addresses: [...ANYWHERE] }));
      }
    }
  }
  const rules = [...inbound.values()].sort((a, b) => ruleKey(a).localeCompare(ruleKey(b)));
  return {
    spec: { name: settings.name, inbound: rules, outbound: ALLOW_ALL_OUTBOUND, tags: [...settings.tags] },
    notes,
  };
}

/** What differs between the firewall in the cloud and the one wanted, one line each; empty when they agree. */
export function firewallDrift(current: FirewallSpec, desired: FirewallSpec): string[] {
  const drift: string[] = [];
  if (current.name !== desired.name) drift.push(`name ${current.name} → ${desired.name}`);
  const setDiff = (what: string, have: readonly string[], want: readonly string[]) => {
    const h = new Set(have);
    const w = new Set(want);
    for (const x of [...w].sort()) if (!h.has(x)) drift.push(`+ ${what} ${x}`);
    for (const x of [...h].sort()) if (!w.has(x)) drift.push(`- ${what} ${x}`);
  };
  setDiff("tag", current.tags, desired.tags);
  setDiff("inbound", current.inbound.map(ruleKey), desired.inbound.map(ruleKey));
  setDiff("outbound", current.outbound.map(ruleKey), desired.outbound.map(ruleKey));
  return drift;
}

/** Create the firewall when there is none, update it when it drifted, else nothing. */
export function planFirewall(current: Firewall | undefined, desired: FirewallSpec): FirewallAction {
  if (!current) return { kind: "create", spec: desired };
  const drift = firewallDrift(current, desired);
  return drift.length === 0 ? { kind: "none" } : { kind: "update", id: current.id, spec: desired, drift };
}

/** A rule in one line, the form compared and logged: `tcp 30080 from 0.0.0.0/0,::/0`. */
export function ruleKey(r: FirewallRule): string {
  const ports = r.ports === "" || r.ports === "all" ? "0" : r.ports;
  const from = [...[...r.addresses].sort(), ...[...r.loadBalancerUIDs].sort().map((id) => `lb:${id}`)];
  return `${r.protocol} ${ports === "0" ? "all" : ports} ${from.join(",")}`;
}

function keyOf(svc: Service): string {
  return `${svc.metadata?.namespace ?? ""}/${svc.metadata?.name ?? ""}`;
}

function protocolOf(protocol: string | undefined): "tcp" | "udp" | undefined {
  if (protocol === undefined || protocol === "TCP") return "tcp";
  return protocol === "UDP" ? "udp" : undefined;
}

/** strconv.ParseBool's spellings, as DO CCM reads the annotation; an invalid value keeps the Service managed. */
function managed(svc: Service, key: string, notes: string[]): boolean {
  const value = svc.metadata?.annotations?.[FIREWALL_MANAGED_ANNOTATION];
  if (value === undefined) return true;
  if (["1", "t", "T", "true", "TRUE", "True"].includes(value)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(value)) return false;
  notes.push(`${key}: ${FIREWALL_MANAGED_ANNOTATION}="${value}" is not true or false; its node ports stay open`);
  return true;
}

function loadBalancerKind(
  svc: Service,
  fallback: LoadBalancerType,
): { type: LoadBalancerType; network: "EXTERNAL" | "INTERNAL" } | string {
  const annotations = svc.metadata?.annotations ?? {};
  const type = annotations[LOAD_BALANCER_TYPE_ANNOTATION] || fallback;
  const network = annotations[LOAD_BALANCER_NETWORK_ANNOTATION] || "EXTERNAL";
  if (type !== "REGIONAL" && type !== "REGIONAL_NETWORK") {
    return `${LOAD_BALANCER_TYPE_ANNOTATION}="${type}" is not REGIONAL or REGIONAL_NETWORK; no rule for its ports`;
  }
  if (network !== "EXTERNAL" && network !== "INTERNAL") {
    return `${LOAD_BALANCER_NETWORK_ANNOTATION}="${network}" is not EXTERNAL or INTERNAL; no rule for its ports`;
  }
  return { type, network };
}

/** upstream: servicehelpers.GetServiceHealthCheckPathPort, else kube-proxy's health port. */
function healthCheckPort(svc: Service): number {
  const local = svc.spec?.externalTrafficPolicy === "Local";
  return local && svc.spec?.healthCheckNodePort ? svc.spec.healthCheckNodePort : KUBE_PROXY_HEALTH_PORT;
}
