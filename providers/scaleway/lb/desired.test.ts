/**
 * One row per scw CCM annotation: what setting it does to the load balancer the Service wants (lb/desired.ts),
 * on a Service with ports 80 (node port 30080) and 443 (30443).
 */
import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../../kube/objects.ts";
import { ScalewayAnnotations } from "../annotations.ts";
import { type DesiredLoadBalancer, desiredLoadBalancer, LoadBalancerSpecError } from "./desired.ts";

const A = "service.beta.kubernetes.io/scw-loadbalancer-";
const ID = "11111111-2222-4333-8444-555555555555";
const PN = "0e2b6d4c-1b2a-4c3d-8e5f-000000000001";
const config = {
  loadBalancer: { prefix: "", tags: [], defaultType: undefined },
  privateNetworkID: undefined,
  zone: "fr-par-1",
  region: "fr-par",
};

const service = (annotations: Record<string, string>): Service => ({
  metadata: { name: "web", namespace: "default", uid: "u-1", annotations },
  spec: {
    type: "LoadBalancer",
    healthCheckNodePort: 32000,
    ports: [
      { name: "http", port: 80, protocol: "TCP", nodePort: 30080 },
      { name: "https", port: 443, protocol: "TCP", nodePort: 30443 },
    ],
  },
});

const node = (name: string, role: string, n: number): Node => ({
  metadata: { name, labels: { role } },
  spec: { providerID: `scaleway://instance/fr-par-1/${n}` },
  status: {
    addresses: [
      { type: "InternalIP", address: `10.0.0.${n}` },
      { type: "ExternalIP", address: `51.15.0.${n}` },
    ],
  },
});
const nodes = [node("w1", "worker", 1), node("w2", "worker", 2), node("i1", "infra", 3)];

function desired(annotations: Record<string, string>): DesiredLoadBalancer {
  const svc = service(annotations);
  return desiredLoadBalancer({ service: svc, values: ScalewayAnnotations.parse(svc), nodes, config });
}

const b = (d: DesiredLoadBalancer) => d.ports.map((p) => p.backend);
const f = (d: DesiredLoadBalancer) => d.ports.map((p) => p.frontend);
const hc = (d: DesiredLoadBalancer) => b(d).map((x) => x.healthCheck);

/** [annotation, its value (and any it needs), what it changes, the expected value]. */
const ROWS: [string, Record<string, string>, (d: DesiredLoadBalancer) => unknown, unknown][] = [
  ["id", { [`${A}id`]: `fr-par-2/${ID}` }, (d) => [d.ref, d.zone], [{ zone: "fr-par-2", id: ID }, "fr-par-2"]],
  ["forward-port-algorithm", { [`${A}forward-port-algorithm`]: "leastconn" }, (d) => b(d)[0]?.algorithm, "leastconn"],
  ["sticky-sessions", { [`${A}sticky-sessions`]: "table" }, (d) => b(d)[0]?.stickySessions, "table"],
  [
    "sticky-sessions-cookie-name",
    { [`${A}sticky-sessions`]: "cookie", [`${A}sticky-sessions-cookie-name`]: "lb" },
    (d) => b(d)[0]?.cookieName,
    "lb",
  ],
  ["health-check-type", { [`${A}health-check-type`]: "443:https" }, (d) => hc(d).map((h) => h.kind), ["tcp", "https"]],
  ["health-check-delay", { [`${A}health-check-delay`]: "10s" }, (d) => hc(d)[0]?.delayMs, 10_000],
  ["health-check-send-proxy", { [`${A}health-check-send-proxy`]: "true" }, (d) => hc(d)[0]?.sendProxy, true],
  [
    "health-transient-check-delay",
    { [`${A}health-transient-check-delay`]: "1s" },
    (d) => hc(d)[0]?.transientDelayMs,
    1000,
  ],
  ["health-check-timeout", { [`${A}health-check-timeout`]: "3s" }, (d) => hc(d)[0]?.timeoutMs, 3000],
  ["health-check-max-retries", { [`${A}health-check-max-retries`]: "3" }, (d) => hc(d)[0]?.maxRetries, 3],
  [
    "health-check-http-uri",
    { [`${A}health-check-type`]: "http", [`${A}health-check-http-uri`]: "example.com/ok" },
    (d) => [hc(d)[0]?.http?.uri, hc(d)[0]?.http?.hostHeader],
    ["/ok", "example.com"],
  ],
  [
    "health-check-http-method",
    { [`${A}health-check-type`]: "http", [`${A}health-check-http-method`]: "80:HEAD" },
    (d) => hc(d).map((h) => h.http?.method),
    ["HEAD", "GET"],
  ],
  [
    "health-check-http-code",
    { [`${A}health-check-type`]: "https", [`${A}health-check-http-code`]: "204" },
    (d) => hc(d)[1]?.http?.code,
    204,
  ],
  [
    "health-check-mysql-user",
    { [`${A}health-check-type`]: "mysql", [`${A}health-check-mysql-user`]: "root" },
    (d) => hc(d)[0]?.user,
    "root",
  ],
  [
    "health-check-pgsql-user",
    { [`${A}health-check-type`]: "pgsql", [`${A}health-check-pgsql-user`]: "postgres" },
    (d) => hc(d)[0]?.user,
    "postgres",
  ],
  [
    "send-proxy-v2",
    { [`${A}send-proxy-v2`]: "443" },
    (d) => b(d).map((x) => x.proxyProtocol),
    ["proxy_protocol_none", "proxy_protocol_v2"],
  ],
  [
    "proxy-protocol-v1",
    { [`${A}proxy-protocol-v1`]: "*" },
    (d) => [...b(d).map((x) => x.proxyProtocol), d.ingress.ipMode],
    ["proxy_protocol_v1", "proxy_protocol_v1", "Proxy"],
  ],
  [
    "proxy-protocol-v2",
    { [`${A}proxy-protocol-v2`]: "80" },
    (d) => [...b(d).map((x) => x.proxyProtocol), d.ingress.ipMode],
    ["proxy_protocol_v2", "proxy_protocol_none", "VIP"],
  ],
  ["type", { [`${A}type`]: "LB-GP-M" }, (d) => [d.type, d.create.type], ["lb-gp-m", "lb-gp-m"]],
  ["zone", { [`${A}zone`]: "nl-ams-1" }, (d) => d.zone, "nl-ams-1"],
  ["connection-rate-limit", { [`${A}connection-rate-limit`]: "100" }, (d) => f(d)[0]?.connectionRateLimit, 100],
  ["enable-access-logs", { [`${A}enable-access-logs`]: "true" }, (d) => f(d)[0]?.enableAccessLogs, true],
  ["enable-http3", { [`${A}enable-http3`]: "true" }, (d) => f(d)[1]?.enableHttp3, true],
  [
    "ssl-compatibility-level",
    { [`${A}ssl-compatibility-level`]: "ssl_compatibility_level_modern" },
    (d) => d.sslCompatibilityLevel,
    "ssl_compatibility_level_modern",
  ],
  ["timeout-client", { [`${A}timeout-client`]: "30s" }, (d) => f(d)[0]?.timeoutClientMs, 30_000],
  ["timeout-server", { [`${A}timeout-server`]: "30s" }, (d) => b(d)[0]?.timeoutServerMs, 30_000],
  ["timeout-connect", { [`${A}timeout-connect`]: "5s" }, (d) => b(d)[0]?.timeoutConnectMs, 5000],
  ["timeout-tunnel", { [`${A}timeout-tunnel`]: "1h" }, (d) => b(d)[0]?.timeoutTunnelMs, 3_600_000],
  ["timeout-queue", { [`${A}timeout-queue`]: "10s" }, (d) => b(d)[0]?.timeoutQueueMs, 10_000],
  [
    "on-marked-down-action",
    { [`${A}on-marked-down-action`]: "shutdown_sessions" },
    (d) => b(d)[0]?.onMarkedDownAction,
    "shutdown_sessions",
  ],
  ["force-internal-ip", { [`${A}force-internal-ip`]: "true" }, (d) => d.pool, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]],
  ["use-hostname", { [`${A}use-hostname`]: "true" }, (d) => d.ingress.useHostname, true],
  ["protocol-http", { [`${A}protocol-http`]: "80" }, (d) => b(d).map((x) => x.forwardProtocol), ["http", "tcp"]],
  ["http-backend-tls", { [`${A}http-backend-tls`]: "443" }, (d) => b(d).map((x) => x.sslBridging), [false, true]],
  [
    "http-backend-tls-skip-verify",
    { [`${A}http-backend-tls-skip-verify`]: "*" },
    (d) => b(d).map((x) => x.ignoreSslServerVerify),
    [true, true],
  ],
  ["certificate-ids", { [`${A}certificate-ids`]: `443:${ID}` }, (d) => f(d).map((x) => x.certificateIds), [[], [ID]]],
  ["target-node-labels", { [`${A}target-node-labels`]: "role=worker" }, (d) => d.pool, ["51.15.0.1", "51.15.0.2"]],
  ["redispatch-attempt-count", { [`${A}redispatch-attempt-count`]: "2" }, (d) => b(d)[0]?.redispatchAttemptCount, 2],
  ["max-connections", { [`${A}max-connections`]: "100" }, (d) => b(d)[0]?.maxConnections, 100],
  ["max-retries", { [`${A}max-retries`]: "4" }, (d) => b(d)[0]?.maxRetries, 4],
  [
    "failover-host",
    { [`${A}failover-host`]: "f.s3-website.fr-par.scw.cloud" },
    (d) => b(d)[0]?.failoverHost,
    "f.s3-website.fr-par.scw.cloud",
  ],
  ["private", { [`${A}private`]: "true", [`${A}pn-ids`]: PN }, (d) => d.private, true],
  [
    "externally-managed",
    { [`${A}externally-managed`]: "true", [`${A}id`]: `fr-par-1/${ID}` },
    (d) => [d.externallyManaged, d.ownPrefix],
    [true, "u-1_"],
  ],
  ["ip-ids", { [`${A}ip-ids`]: ID }, (d) => d.ipIds, [ID]],
  ["private-ip-ids", { [`${A}private-ip-ids`]: ID, [`${A}pn-ids`]: PN }, (d) => d.privateIpIds, [ID]],
  ["ip-mode", { [`${A}ip-mode`]: "Proxy" }, (d) => d.ingress.ipMode, "Proxy"],
  ["pn-ids", { [`${A}pn-ids`]: PN }, (d) => [d.privateNetworks, d.pool?.[0]], [[PN], "10.0.0.1"]],
  ["flexible-ip-types", { [`${A}flexible-ip-types`]: "ipv4,ipv6" }, (d) => d.create.ipv6, true],
  [
    "health-check-from-service",
    { [`${A}health-check-from-service`]: "443" },
    (d) => hc(d).map((h) => [h.port, h.kind, h.http?.uri]),
    [
      [30080, "tcp", undefined],
      [32000, "http", "/healthz"],
    ],
  ],
];

describe("one row per annotation", () => {
  test("every annotation has its row", () => {
    expect(ROWS.map((r) => `${A}${r[0]}`).sort()).toEqual(ScalewayAnnotations.list.map((a) => a.key).sort());
  });

  test.each(ROWS)("%s", (_name, annotations, pick, want) => {
    const unset = pick(desired({}));
    expect(pick(desired(annotations))).toEqual(want as never);
    // Each row changes something: the value without the annotation differs.
    expect(unset).not.toEqual(want as never);
  });
});

describe("refusals name the annotation and the fix", () => {
  test.each([
    [{ [`${A}private`]: "true" }, /PN_ID/],
    [{ [`${A}private`]: "true", [`${A}pn-ids`]: PN, [`${A}ip-ids`]: ID }, /takes no public IP/],
    [{ [`${A}externally-managed`]: "true" }, /scw-loadbalancer-id/],
    [{ [`${A}sticky-sessions`]: "cookie" }, /cookie-name/],
    [{ [`${A}proxy-protocol-v1`]: "80", [`${A}proxy-protocol-v2`]: "*" }, /both/],
    [{ [`${A}health-check-type`]: "mysql" }, /mysql-user/],
    [{ [`${A}private-ip-ids`]: ID }, /exactly one private network/],
  ])("%o", (annotations, message) => {
    expect(() => desired(annotations)).toThrow(LoadBalancerSpecError);
    expect(() => desired(annotations)).toThrow(message);
  });
});
