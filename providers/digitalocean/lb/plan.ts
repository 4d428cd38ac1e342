/**
 * What differs between a load balancer and what its Service wants, as one short phrase per difference. The API
 * changes a load balancer with one `PUT` of the whole body, so the plan is that body and the phrases; an empty list
 * means converged: no write. Pure.
 *
 * Fields the API owns or ignores are not compared: the algorithm (ignored by the API), the health check's
 * `proxy_protocol` (not in every answer), the size when the Service names none (the current one is sent back).
 */
import type { CloudLoadBalancer, ForwardingRule, LoadBalancerBody } from "../api/load-balancers.ts";
import type { DesiredLoadBalancer } from "./desired.ts";

export interface UpdatePlan {
  readonly body: LoadBalancerBody;
  /** One phrase per change (`name web → shop`); empty when the load balancer already is as wanted. */
  readonly changes: readonly string[];
}

const ruleKey = (r: ForwardingRule) =>
  `${r.entry_protocol}:${r.entry_port}→${r.target_protocol}:${r.target_port}${r.certificate_id ? ` cert ${r.certificate_id}` : ""}${r.tls_passthrough ? " passthrough" : ""}`;

const sameSet = <T>(a: readonly T[], b: readonly T[]) => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((e) => y.has(e));
};

export function planUpdate(current: CloudLoadBalancer, desired: DesiredLoadBalancer): UpdatePlan {
  const want = desired.body;
  const changes: string[] = [];
  const differs = (what: string, have: unknown, wanted: unknown) => {
    if (have !== wanted) changes.push(`${what} ${String(have)} → ${String(wanted)}`);
  };
  differs("name", current.name, want.name);
  if (want.size_unit !== undefined) differs("size_unit", current.size_unit ?? "none", want.size_unit);
  if (want.size !== undefined) differs("size", current.size ?? "none", want.size);

  const haveRules = (current.forwarding_rules ?? []).map((r) =>
    ruleKey({ ...r, certificate_id: r.certificate_id ?? "", tls_passthrough: r.tls_passthrough ?? false }),
  );
  const wantRules = want.forwarding_rules.map(ruleKey);
  if (!sameSet(haveRules, wantRules))
    changes.push(`forwarding rules ${haveRules.join(", ") || "none"} → ${wantRules.join(", ")}`);

  const hc = current.health_check;
  const whc = want.health_check;
  if (
    !hc ||
    hc.protocol !== whc.protocol ||
    hc.port !== whc.port ||
    (hc.path ?? "") !== whc.path ||
    hc.check_interval_seconds !== whc.check_interval_seconds ||
    hc.response_timeout_seconds !== whc.response_timeout_seconds ||
    hc.unhealthy_threshold !== whc.unhealthy_threshold ||
    hc.healthy_threshold !== whc.healthy_threshold
  ) {
    changes.push(`health check → ${whc.protocol}:${whc.port}${whc.path} every ${whc.check_interval_seconds}s`);
  }

  const ss = current.sticky_sessions;
  const wss = want.sticky_sessions;
  if (
    (ss?.type ?? "none") !== wss.type ||
    (wss.type === "cookies" &&
      (ss?.cookie_name !== wss.cookie_name || ss?.cookie_ttl_seconds !== wss.cookie_ttl_seconds))
  ) {
    changes.push(`sticky sessions → ${wss.type}`);
  }

  differs("redirect_http_to_https", current.redirect_http_to_https ?? false, want.redirect_http_to_https);
  differs("enable_proxy_protocol", current.enable_proxy_protocol ?? false, want.enable_proxy_protocol);
  differs("enable_backend_keepalive", current.enable_backend_keepalive ?? false, want.enable_backend_keepalive);
  differs(
    "disable_lets_encrypt_dns_records",
    current.disable_lets_encrypt_dns_records ?? false,
    want.disable_lets_encrypt_dns_records,
  );
  differs("http_idle_timeout_seconds", current.http_idle_timeout_seconds ?? 60, want.http_idle_timeout_seconds);

  const fw = current.firewall;
  if (!sameSet(fw?.allow ?? [], want.firewall.allow) || !sameSet(fw?.deny ?? [], want.firewall.deny)) {
    changes.push(
      `firewall → allow ${want.firewall.allow.join(",") || "all"}, deny ${want.firewall.deny.join(",") || "none"}`,
    );
  }
  const tags = current.tags ?? [];
  const added = want.tags.filter((t) => !tags.includes(t));
  if (added.length > 0) changes.push(`tag ${added.join(", ")}`);

  const droplets = current.droplet_ids ?? [];
  const add = want.droplet_ids.filter((id) => !droplets.includes(id));
  const remove = droplets.filter((id) => !want.droplet_ids.includes(id));
  if (add.length > 0) changes.push(`add Droplet(s) ${add.join(", ")}`);
  if (remove.length > 0) changes.push(`remove Droplet(s) ${remove.join(", ")}`);
  return { body: want, changes };
}

/** Whether only the Droplets differ (what `updateLoadBalancer`, called on Node changes, may change). */
export function dropletsDiffer(current: CloudLoadBalancer, desired: DesiredLoadBalancer): boolean {
  return !sameSet(current.droplet_ids ?? [], desired.body.droplet_ids);
}
