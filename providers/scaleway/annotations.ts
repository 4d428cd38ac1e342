/**
 * Every `service.beta.kubernetes.io/scw-loadbalancer-*` Service annotation scaleway-cloud-controller-manager reads
 * (scaleway/loadbalancers_annotations.go at its 2026-08 head: 49 keys), with scw CCM's meanings and defaults, so an
 * scw CCM Service works unchanged. The reference in docs/providers/scaleway.md is generated from these declarations.
 *
 * scw CCM reads each annotation when it needs it and fails the sync at the first bad one (or passes it to the API);
 * here the whole set is read first, every bad value is named in one `InvalidAnnotationsError` (one Warning event),
 * and nothing is written. The admission webhook refuses the same values before they are stored.
 */
import { type Annotation, annotation, defineAnnotations } from "../kit/annotations/declare.ts";
import { bool, duration, int, list, oneOf } from "../kit/annotations/readers.ts";
import {
  certificateIDs,
  flexibleIPTypes,
  healthCheckURI,
  loadBalancerRef,
  nodeLabels,
  perPortValue,
  portSelector,
  token,
  uuid,
  zone,
} from "./annotation-readers.ts";

/** The prefix of every annotation scw CCM reads on a Service. */
export const annotationPrefix = "service.beta.kubernetes.io/scw-loadbalancer-";
/** The whole key of the annotation `name`: `service.beta.kubernetes.io/scw-loadbalancer-type`. */
export const annotationKey = (name: string): string => `${annotationPrefix}${name}`;
const key = annotationKey;

const HEALTH_CHECK_TYPES = ["tcp", "http", "https", "mysql", "pgsql", "redis", "ldap"] as const;
export type HealthCheckType = (typeof HEALTH_CHECK_TYPES)[number];
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"] as const;
export const SSL_LEVELS = [
  "ssl_compatibility_level_unknown",
  "ssl_compatibility_level_intermediate",
  "ssl_compatibility_level_modern",
  "ssl_compatibility_level_old",
] as const;
const MAX_INT32 = 2_147_483_647;
const HOUR = 3_600_000;

const ports = (what: string) =>
  `${what}: \`true\` or \`*\` for every port, \`false\`, or Service ports such as \`80,443\`.`;

function healthCheck() {
  const hcType = perPortValue(oneOf(HEALTH_CHECK_TYPES));
  return {
    healthCheckType: annotation(key("health-check-type"), hcType, {
      description: `The health check's kind, for every port or per port (\`80:http;443,8443:https\`). \`http\` and \`https\` read the http-uri, -method and -code annotations, \`mysql\` and \`pgsql\` their user.`,
      example: "80:http;443:https",
      defaultText: "`tcp`",
    }),
    healthCheckDelay: annotation(key("health-check-delay"), duration({ min: 1, max: HOUR }), {
      description: "The time between two health checks.",
      example: "10s",
      default: 5000,
    }),
    healthCheckTimeout: annotation(key("health-check-timeout"), duration({ min: 1, max: HOUR }), {
      description: "How long a check may take once the connection is made.",
      example: "3s",
      default: 5000,
    }),
    healthCheckMaxRetries: annotation(key("health-check-max-retries"), int({ min: 0, max: MAX_INT32 }), {
      description: "Failed checks in a row after which a node is marked down.",
      example: "3",
      default: 5,
    }),
    healthCheckSendProxy: annotation(key("health-check-send-proxy"), bool(), {
      description: "Send the PROXY protocol header with health checks too.",
      example: "true",
      default: false,
    }),
    healthTransientCheckDelay: annotation(key("health-transient-check-delay"), duration({ min: 1, max: HOUR }), {
      description: "The time between two checks while a node goes up or down.",
      example: "1s",
      defaultText: "the API's (0.5s)",
    }),
    healthCheckHttpUri: annotation(key("health-check-http-uri"), perPortValue(healthCheckURI()), {
      description:
        "The URI of `http`/`https` checks, for every port or per port (`80:/;443:example.com/healthz`); a host before the path is sent as the Host header.",
      example: "/healthz",
      defaultText: "`/`",
    }),
    healthCheckHttpMethod: annotation(key("health-check-http-method"), perPortValue(oneOf(HTTP_METHODS)), {
      description: "The method of `http`/`https` checks, for every port or per port (`80:GET;443:HEAD`).",
      example: "HEAD",
      defaultText: "`GET`",
    }),
    healthCheckHttpCode: annotation(key("health-check-http-code"), perPortValue(int({ min: 100, max: 599 })), {
      description: "The status `http`/`https` checks expect, for every port or per port (`80:200;443:204`).",
      example: "204",
      defaultText: "`200`",
    }),
    healthCheckMysqlUser: annotation(key("health-check-mysql-user"), perPortValue(token("a MySQL user name")), {
      description: "The user of `mysql` checks, for every port or per port (`3306:root`).",
      example: "healthcheck",
    }),
    healthCheckPgsqlUser: annotation(key("health-check-pgsql-user"), perPortValue(token("a PostgreSQL user name")), {
      description: "The user of `pgsql` checks, for every port or per port (`5432:postgres`).",
      example: "postgres",
    }),
    healthCheckFromService: annotation(key("health-check-from-service"), portSelector(), {
      description: ports(
        "Check the Service's `healthCheckNodePort` (`GET /healthz`, as kube-proxy serves it with `externalTrafficPolicy: Local`) instead of the node port, on these ports",
      ),
      example: "*",
      defaultText: "`false`",
    }),
  };
}

function backend() {
  return {
    forwardPortAlgorithm: annotation(key("forward-port-algorithm"), oneOf(["roundrobin", "leastconn", "first"]), {
      description: "How connections are spread over the nodes.",
      example: "leastconn",
      default: "roundrobin",
    }),
    stickySessions: annotation(key("sticky-sessions"), oneOf(["none", "cookie", "table"]), {
      description: "Session persistence; `cookie` needs the cookie name.",
      example: "cookie",
      default: "none",
    }),
    stickySessionsCookieName: annotation(
      key("sticky-sessions-cookie-name"),
      token("a cookie name", /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/),
      { description: "The cookie of `cookie` sticky sessions.", example: "lb" },
    ),
    sendProxyV2: annotation(key("send-proxy-v2"), portSelector(), {
      description: ports("Deprecated (use proxy-protocol-v2): send the PROXY protocol v2 header on these ports"),
      example: "true",
      defaultText: "`false`",
    }),
    proxyProtocolV1: annotation(key("proxy-protocol-v1"), portSelector(), {
      description: ports("Send the PROXY protocol v1 header on these ports"),
      example: "80,443",
      defaultText: "`false`",
    }),
    proxyProtocolV2: annotation(key("proxy-protocol-v2"), portSelector(), {
      description: ports(
        "Send the PROXY protocol v2 header on these ports; on every port the ingress reports `ipMode: Proxy`",
      ),
      example: "*",
      defaultText: "`false`",
    }),
    timeoutServer: annotation(key("timeout-server"), duration({ min: 1 }), {
      description: "The longest a node connection may stay idle.",
      example: "30s",
      default: 10_000,
    }),
    timeoutConnect: annotation(key("timeout-connect"), duration({ min: 1 }), {
      description: "The longest a connection to a node may take to open.",
      example: "5s",
      default: 600_000,
    }),
    timeoutTunnel: annotation(key("timeout-tunnel"), duration({ min: 1 }), {
      description: "The longest a tunnel (WebSocket, upgraded) connection may stay idle.",
      example: "1h",
      default: 600_000,
    }),
    timeoutQueue: annotation(key("timeout-queue"), duration({ min: 1 }), {
      description: "The longest a request may wait in the queue when max-connections is reached.",
      example: "10s",
    }),
    onMarkedDownAction: annotation(
      key("on-marked-down-action"),
      oneOf(["on_marked_down_action_none", "shutdown_sessions"]),
      {
        description: "What happens to a node's sessions when it is marked down.",
        example: "shutdown_sessions",
        default: "on_marked_down_action_none",
      },
    ),
    redispatchAttemptCount: annotation(key("redispatch-attempt-count"), int({ min: 0, max: MAX_INT32 }), {
      description: "Retries on another node after a failed connection; 0 turns redispatch off.",
      example: "1",
    }),
    maxConnections: annotation(key("max-connections"), int({ min: 0, max: MAX_INT32 }), {
      description: "The most connections to one node.",
      example: "1000",
    }),
    maxRetries: annotation(key("max-retries"), int({ min: 0, max: MAX_INT32 }), {
      description: "Retries of a failed connection to a node.",
      example: "3",
    }),
    failoverHost: annotation(key("failover-host"), token("a host name", /^[A-Za-z0-9][A-Za-z0-9.-]*$/), {
      description:
        "An Object Storage website served when every node is down, e.g. failover-website.s3-website.fr-par.scw.cloud.",
      example: "failover-website.s3-website.fr-par.scw.cloud",
    }),
    forceInternalIp: annotation(key("force-internal-ip"), bool(), {
      description:
        "Send traffic to the nodes' InternalIP instead of their ExternalIP (the default with a private network).",
      example: "true",
      default: false,
    }),
    protocolHttp: annotation(key("protocol-http"), portSelector(), {
      description: ports("Speak HTTP (layer 7) instead of TCP on these ports"),
      example: "80",
      defaultText: "`false`",
    }),
    httpBackendTls: annotation(key("http-backend-tls"), portSelector(), {
      description: ports("Speak TLS to the nodes on these HTTP ports"),
      example: "443",
      defaultText: "`false`",
    }),
    httpBackendTlsSkipVerify: annotation(key("http-backend-tls-skip-verify"), portSelector(), {
      description: ports("Do not verify the nodes' TLS certificates on these ports"),
      example: "443",
      defaultText: "`false`",
    }),
    targetNodeLabels: annotation(key("target-node-labels"), nodeLabels(), {
      description:
        "Only nodes with every one of these labels are targets (`key=value`; a bare `key` needs the empty value).",
      example: "node-role.kubernetes.io/worker=",
    }),
  };
}

function frontend() {
  return {
    timeoutClient: annotation(key("timeout-client"), duration({ min: 1 }), {
      description: "The longest a client connection may stay idle.",
      example: "30s",
      default: 600_000,
    }),
    connectionRateLimit: annotation(key("connection-rate-limit"), int({ min: 0, max: 4_294_967_295 }), {
      description: "New connections a second per frontend; 0 means no limit.",
      example: "100",
    }),
    enableAccessLogs: annotation(key("enable-access-logs"), bool(), {
      description: "Log every connection in Scaleway Cockpit.",
      example: "true",
      default: false,
    }),
    enableHttp3: annotation(key("enable-http3"), bool(), {
      description: "Offer HTTP/3 on the frontends.",
      example: "true",
      default: false,
    }),
    certificateIds: annotation(key("certificate-ids"), certificateIDs(), {
      description:
        "Load balancer certificates for TLS on the frontends: `id,id` for every port, or per port `443:id;8443,9443:id,id`. An ID may carry its zone (`fr-par-1/id`). The certificates stay until the annotation changes, whatever the nodes do.",
      example: "11111111-2222-3333-4444-555555555555",
    }),
  };
}

function loadBalancer() {
  return {
    id: annotation(key("id"), loadBalancerRef(), {
      description:
        "The load balancer this Service uses, `zone/id`. Written by the manager once it made or found it; set it yourself to take over an existing one (with externally-managed).",
      example: "fr-par-1/11111111-2222-3333-4444-555555555555",
    }),
    type: annotation(key("type"), token("a load balancer offer such as lb-s", /^[A-Za-z0-9][A-Za-z0-9-]*$/), {
      description: "The offer; a change migrates the load balancer in place (same ID and IP).",
      example: "lb-gp-m",
      defaultText: "`LB_DEFAULT_TYPE`, else `lb-s`",
    }),
    zone: annotation(key("zone"), zone(), {
      description: "The zone to create the load balancer in. Only read at creation.",
      example: "nl-ams-1",
      defaultText: "`SCW_DEFAULT_ZONE`",
    }),
    sslCompatibilityLevel: annotation(key("ssl-compatibility-level"), oneOf(SSL_LEVELS), {
      description: "The oldest TLS clients the frontends accept.",
      example: "ssl_compatibility_level_modern",
      default: "ssl_compatibility_level_intermediate",
    }),
    useHostname: annotation(key("use-hostname"), bool(), {
      description:
        "Report the load balancer's host name instead of its IPs, so in-cluster traffic goes through it too.",
      example: "true",
      default: false,
    }),
    private: annotation(key("private"), bool(), {
      description: "A load balancer without public IP, reached on the private network (`PN_ID` or pn-ids).",
      example: "true",
      default: false,
    }),
    externallyManaged: annotation(key("externally-managed"), bool(), {
      description:
        "Use the load balancer named by the id annotation without creating, migrating or deleting it: only this Service's frontends and backends (named by its UID) are made and removed.",
      example: "true",
      default: false,
    }),
    ipIds: annotation(key("ip-ids"), list(uuid("a load balancer flexible IP ID")), {
      description:
        "The flexible IPs to use (at most one IPv4 and one IPv6; an IPv4 is required); they are kept when the load balancer is deleted. Wins over `spec.loadBalancerIP`. A change re-creates the load balancer.",
      example: "11111111-2222-3333-4444-555555555555",
    }),
    privateIpIds: annotation(key("private-ip-ids"), list(uuid("an IPAM IP ID")), {
      description: "IPAM IPs for the private network attachments (one per private network).",
      example: "11111111-2222-3333-4444-555555555555",
    }),
    ipMode: annotation(key("ip-mode"), oneOf(["Proxy", "VIP"]), {
      description:
        "The ingress `ipMode` to report, overriding the default (`Proxy` when every port sends the PROXY protocol, else `VIP`).",
      example: "Proxy",
    }),
    pnIds: annotation(key("pn-ids"), list(uuid("a private network ID")), {
      description: "The private networks to attach the load balancer to.",
      example: "11111111-2222-3333-4444-555555555555",
      defaultText: "`PN_ID`",
    }),
    flexibleIpTypes: annotation(key("flexible-ip-types"), flexibleIPTypes(), {
      description: "The flexible IPs to book at creation when no ip-ids are given: `ipv4`, or `ipv4,ipv6` (IPv6).",
      example: "ipv4,ipv6",
      default: { ipv4: true, ipv6: false },
    }),
  };
}

/** scw CCM's 49 annotations. */
export const ScalewayAnnotations = defineAnnotations({
  ...loadBalancer(),
  ...frontend(),
  ...backend(),
  ...healthCheck(),
});

export type ScalewayAnnotationValues = ReturnType<typeof ScalewayAnnotations.parse>;

/** Each declaration, for tests and the reference page. */
export const scalewayAnnotationList: readonly Annotation<unknown, unknown>[] = ScalewayAnnotations.list;
