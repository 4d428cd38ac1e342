/**
 * One row per scw CCM annotation (all 49 of providers/scaleway/annotations.ts) for the end-to-end test on the
 * compiled executable (test/scaleway-annotations.e2e.test.ts): the annotations a Service with one port (80) gets
 * and the check on the emulated load balancer (state as the Load Balancer API stored it) and the Service's status.
 * providers/scaleway/lb/desired.test.ts proves the same annotations on the planner's model; these prove them on
 * the wire.
 *
 * The world a row assumes: three Instances as Nodes, each with an InternalIP and an ExternalIP, exactly one
 * labelled `role=edge`; a free flexible IP; two load balancers made beforehand (one to be named by the id
 * annotation, one to be shared as externally managed); a private network ID and an IPAM IP ID.
 */
import { expect } from "bun:test";
import type { LoadBalancerStatus } from "../../kube/objects.ts";
import type {
  Backend,
  Frontend,
  LbIp,
  LoadBalancer,
  PrivateNetworkAttachment,
} from "../../sandbox/scaleway/state/lb.ts";

export const A = "service.beta.kubernetes.io/scw-loadbalancer-";

/** What a row's annotations and check need to know of the world it runs in. */
export interface RowWorld {
  /** The Service's UID, its port's node port and (with `externalTrafficPolicy: Local`) health check node port. */
  readonly uid: string;
  readonly nodePort: number;
  readonly healthCheckNodePort: number;
  /** The Nodes' addresses, and the ExternalIP of the one labelled `role=edge`. */
  readonly externalIPs: readonly string[];
  readonly internalIPs: readonly string[];
  readonly edgeIP: string;
  /** A free flexible IP (ID and address). */
  readonly ipID: string;
  readonly ipAddress: string;
  /** The load balancer the id row names, and the one the externally-managed row shares. */
  readonly namedLB: string;
  readonly sharedLB: string;
  readonly privateNetwork: string;
  readonly ipamID: string;
  /** A certificate of the row's own load balancer (made once it exists). */
  certID: string;
}

/** The load balancer a Service uses as the emulator holds it: its parts that are the Service's. */
export interface LbView {
  readonly lb: LoadBalancer;
  readonly backends: readonly Backend[];
  readonly frontends: readonly Frontend[];
  readonly ips: readonly LbIp[];
  readonly privateNetworks: readonly PrivateNetworkAttachment[];
}

export interface AnnotationRow {
  /** The annotation's key after `service.beta.kubernetes.io/scw-loadbalancer-`. */
  readonly key: string;
  readonly annotations: (w: RowWorld) => Record<string, string>;
  /** Read only at creation (or re-creating): the Service carries the annotations from the start. */
  readonly atCreation?: boolean;
  /** The Service has `externalTrafficPolicy: Local` (a health check node port). */
  readonly local?: boolean;
  /** Needs a certificate on its own load balancer before the annotations are set. */
  readonly certificate?: boolean;
  /** `expect`s that hold once the row converged. */
  readonly check: (v: LbView, status: LoadBalancerStatus, w: RowWorld) => void;
}

/** A Scaleway duration (`30s`, `1h`, `0.5s`, `500ms`) in milliseconds. */
export function ms(text: string | null | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text ?? "");
  if (!m) return undefined;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
}

const one = (key: string, value: string) => () => ({ [`${A}${key}`]: value });
const backend = (v: LbView) => {
  expect(v.backends).toHaveLength(1);
  return v.backends[0]!;
};
const frontend = (v: LbView) => {
  expect(v.frontends).toHaveLength(1);
  return v.frontends[0]!;
};
const field = <K extends keyof Backend["fields"]>(key: K, want: Backend["fields"][K]) => ({
  check: (v: LbView) => expect(backend(v).fields[key]).toEqual(want),
});
const hc = (v: LbView) => backend(v).healthCheck;
const sorted = (xs: readonly string[]) => [...xs].sort();

export const annotationRows: readonly AnnotationRow[] = [
  // The load balancer itself.
  {
    key: "id",
    atCreation: true,
    annotations: (w) => ({ [`${A}id`]: `fr-par-1/${w.namedLB}` }),
    check: (v, _s, w) => {
      expect(v.lb.id).toBe(w.namedLB);
      expect(backend(v).fields.forward_port).toBe(w.nodePort);
    },
  },
  { key: "type", annotations: one("type", "lb-gp-m"), check: (v) => expect(v.lb.type).toBe("lb-gp-m") },
  {
    key: "zone",
    atCreation: true,
    annotations: one("zone", "nl-ams-1"),
    check: (v) => expect(v.lb.zone).toBe("nl-ams-1"),
  },
  {
    key: "ssl-compatibility-level",
    annotations: one("ssl-compatibility-level", "ssl_compatibility_level_modern"),
    check: (v) => expect(v.lb.sslCompatibilityLevel).toBe("ssl_compatibility_level_modern"),
  },
  {
    key: "use-hostname",
    annotations: one("use-hostname", "true"),
    check: (v, s) => expect(s.ingress).toEqual([{ hostname: v.ips[0]!.reverse }]),
  },
  {
    key: "private",
    atCreation: true,
    annotations: (w) => ({ [`${A}private`]: "true", [`${A}pn-ids`]: w.privateNetwork }),
    check: (v, s, w) => {
      expect(v.ips).toEqual([]);
      expect(v.privateNetworks.map((p) => p.privateNetworkId)).toEqual([w.privateNetwork]);
      expect(s.ingress?.[0]?.ip).toMatch(/^172\.16\./);
    },
  },
  {
    key: "externally-managed",
    atCreation: true,
    annotations: (w) => ({ [`${A}id`]: `fr-par-1/${w.sharedLB}`, [`${A}externally-managed`]: "true" }),
    check: (v, _s, w) => {
      expect(v.lb.id).toBe(w.sharedLB);
      expect(backend(v).fields.name.startsWith(`${w.uid}_`)).toBe(true);
    },
  },
  {
    key: "ip-ids",
    atCreation: true,
    annotations: (w) => ({ [`${A}ip-ids`]: w.ipID }),
    check: (v, s, w) => {
      expect(v.ips.map((ip) => ip.id)).toEqual([w.ipID]);
      expect(s.ingress?.map((i) => i.ip)).toEqual([w.ipAddress]);
    },
  },
  {
    key: "private-ip-ids",
    atCreation: true,
    annotations: (w) => ({ [`${A}pn-ids`]: w.privateNetwork, [`${A}private-ip-ids`]: w.ipamID }),
    check: (v, _s, w) => expect(v.privateNetworks.map((p) => p.ipamIds)).toEqual([[w.ipamID]]),
  },
  {
    key: "ip-mode",
    annotations: one("ip-mode", "Proxy"),
    check: (_v, s) => expect(s.ingress?.map((i) => i.ipMode)).toEqual(["Proxy"]),
  },
  {
    key: "pn-ids",
    annotations: (w) => ({ [`${A}pn-ids`]: w.privateNetwork }),
    check: (v, _s, w) => {
      expect(v.privateNetworks.map((p) => p.privateNetworkId)).toEqual([w.privateNetwork]);
      expect(sorted(backend(v).pool)).toEqual(sorted(w.internalIPs));
    },
  },
  {
    key: "flexible-ip-types",
    atCreation: true,
    annotations: one("flexible-ip-types", "ipv4,ipv6"),
    check: (v, s) => {
      expect(v.ips.map((ip) => ip.ipv6).sort()).toEqual([false, true]);
      expect(s.ingress).toHaveLength(2);
    },
  },
  // Frontends.
  {
    key: "timeout-client",
    annotations: one("timeout-client", "30s"),
    check: (v) => expect(ms(frontend(v).timeoutClient)).toBe(30_000),
  },
  {
    key: "connection-rate-limit",
    annotations: one("connection-rate-limit", "100"),
    check: (v) => expect(frontend(v).connectionRateLimit).toBe(100),
  },
  {
    key: "enable-access-logs",
    annotations: one("enable-access-logs", "true"),
    check: (v) => expect(frontend(v).enableAccessLogs).toBe(true),
  },
  {
    key: "enable-http3",
    annotations: one("enable-http3", "true"),
    check: (v) => expect(frontend(v).enableHttp3).toBe(true),
  },
  {
    key: "certificate-ids",
    certificate: true,
    annotations: (w) => ({ [`${A}certificate-ids`]: w.certID }),
    check: (v, _s, w) => expect(frontend(v).certificateIds).toEqual([w.certID]),
  },
  // Backends.
  {
    key: "forward-port-algorithm",
    ...field("forward_port_algorithm", "leastconn"),
    annotations: one("forward-port-algorithm", "leastconn"),
  },
  { key: "sticky-sessions", ...field("sticky_sessions", "table"), annotations: one("sticky-sessions", "table") },
  {
    key: "sticky-sessions-cookie-name",
    annotations: () => ({ [`${A}sticky-sessions`]: "cookie", [`${A}sticky-sessions-cookie-name`]: "lb" }),
    check: (v) => {
      expect(backend(v).fields.sticky_sessions).toBe("cookie");
      expect(backend(v).fields.sticky_sessions_cookie_name).toBe("lb");
    },
  },
  { key: "send-proxy-v2", ...field("proxy_protocol", "proxy_protocol_v2"), annotations: one("send-proxy-v2", "true") },
  {
    key: "proxy-protocol-v1",
    annotations: one("proxy-protocol-v1", "*"),
    check: (v, s) => {
      expect(backend(v).fields.proxy_protocol).toBe("proxy_protocol_v1");
      expect(s.ingress?.map((i) => i.ipMode)).toEqual(["Proxy"]);
    },
  },
  {
    key: "proxy-protocol-v2",
    ...field("proxy_protocol", "proxy_protocol_v2"),
    annotations: one("proxy-protocol-v2", "80"),
  },
  {
    key: "timeout-server",
    annotations: one("timeout-server", "30s"),
    check: (v) => expect(ms(backend(v).fields.timeout_server)).toBe(30_000),
  },
  {
    key: "timeout-connect",
    annotations: one("timeout-connect", "5s"),
    check: (v) => expect(ms(backend(v).fields.timeout_connect)).toBe(5000),
  },
  {
    key: "timeout-tunnel",
    annotations: one("timeout-tunnel", "1h"),
    check: (v) => expect(ms(backend(v).fields.timeout_tunnel)).toBe(3_600_000),
  },
  {
    key: "timeout-queue",
    annotations: one("timeout-queue", "10s"),
    check: (v) => expect(ms(backend(v).fields.timeout_queue)).toBe(10_000),
  },
  {
    key: "on-marked-down-action",
    ...field("on_marked_down_action", "shutdown_sessions"),
    annotations: one("on-marked-down-action", "shutdown_sessions"),
  },
  {
    key: "redispatch-attempt-count",
    ...field("redispatch_attempt_count", 2),
    annotations: one("redispatch-attempt-count", "2"),
  },
  { key: "max-connections", ...field("max_connections", 100), annotations: one("max-connections", "100") },
  { key: "max-retries", ...field("max_retries", 4), annotations: one("max-retries", "4") },
  {
    key: "failover-host",
    ...field("failover_host", "f.s3-website.fr-par.scw.cloud"),
    annotations: one("failover-host", "f.s3-website.fr-par.scw.cloud"),
  },
  {
    key: "force-internal-ip",
    annotations: one("force-internal-ip", "true"),
    check: (v, _s, w) => expect(sorted(backend(v).pool)).toEqual(sorted(w.internalIPs)),
  },
  { key: "protocol-http", ...field("forward_protocol", "http"), annotations: one("protocol-http", "80") },
  {
    key: "http-backend-tls",
    annotations: () => ({ [`${A}protocol-http`]: "80", [`${A}http-backend-tls`]: "80" }),
    check: (v) => expect(backend(v).fields.ssl_bridging).toBe(true),
  },
  {
    key: "http-backend-tls-skip-verify",
    annotations: () => ({
      [`${A}protocol-http`]: "80",
      [`${A}http-backend-tls`]: "80",
      [`${A}http-backend-tls-skip-verify`]: "*",
    }),
    check: (v) => expect(backend(v).fields.ignore_ssl_server_verify).toBe(true),
  },
  {
    key: "target-node-labels",
    annotations: one("target-node-labels", "role=edge"),
    check: (v, _s, w) => expect(backend(v).pool).toEqual([w.edgeIP]),
  },
  // Health checks.
  {
    key: "health-check-type",
    annotations: one("health-check-type", "http"),
    check: (v) => expect(Object.keys(hc(v).config)).toEqual(["http_config"]),
  },
  {
    key: "health-check-delay",
    annotations: one("health-check-delay", "10s"),
    check: (v) => expect(ms(hc(v).check_delay)).toBe(10_000),
  },
  {
    key: "health-check-timeout",
    annotations: one("health-check-timeout", "3s"),
    check: (v) => expect(ms(hc(v).check_timeout)).toBe(3000),
  },
  {
    key: "health-check-max-retries",
    annotations: one("health-check-max-retries", "3"),
    check: (v) => expect(hc(v).check_max_retries).toBe(3),
  },
  {
    key: "health-check-send-proxy",
    annotations: one("health-check-send-proxy", "true"),
    check: (v) => expect(hc(v).check_send_proxy).toBe(true),
  },
  {
    key: "health-transient-check-delay",
    annotations: one("health-transient-check-delay", "1s"),
    check: (v) => expect(ms(hc(v).transient_check_delay)).toBe(1000),
  },
  {
    key: "health-check-http-uri",
    annotations: () => ({ [`${A}health-check-type`]: "http", [`${A}health-check-http-uri`]: "example.com/ok" }),
    check: (v) => expect(hc(v).config.http_config).toMatchObject({ uri: "/ok", host_header: "example.com" }),
  },
  {
    key: "health-check-http-method",
    annotations: () => ({ [`${A}health-check-type`]: "http", [`${A}health-check-http-method`]: "HEAD" }),
    check: (v) => expect(hc(v).config.http_config).toMatchObject({ method: "HEAD" }),
  },
  {
    key: "health-check-http-code",
    annotations: () => ({ [`${A}health-check-type`]: "https", [`${A}health-check-http-code`]: "204" }),
    check: (v) => expect(hc(v).config.https_config).toMatchObject({ code: 204 }),
  },
  {
    key: "health-check-mysql-user",
    annotations: () => ({ [`${A}health-check-type`]: "mysql", [`${A}health-check-mysql-user`]: "root" }),
    check: (v) => expect(hc(v).config.mysql_config).toEqual({ user: "root" }),
  },
  {
    key: "health-check-pgsql-user",
    annotations: () => ({ [`${A}health-check-type`]: "pgsql", [`${A}health-check-pgsql-user`]: "postgres" }),
    check: (v) => expect(hc(v).config.pgsql_config).toEqual({ user: "postgres" }),
  },
  {
    key: "health-check-from-service",
    local: true,
    annotations: one("health-check-from-service", "*"),
    check: (v, _s, w) => {
      expect(hc(v).port).toBe(w.healthCheckNodePort);
      expect(hc(v).config.http_config).toMatchObject({ uri: "/healthz" });
    },
  },
];
