/**
 * Every Service annotation DO CCM reads for a load balancer (`cloud-controller-manager/do/lb_annotations.go`: 36
 * `service.beta.kubernetes.io/do-loadbalancer-*` keys and `service.kubernetes.io/do-loadbalancer-disown`), with its
 * meanings, so a DO CCM Service works unchanged; and the load balancer ID annotation DO CCM writes
 * (`kubernetes.digitalocean.com/load-balancer-id`), by which load balancers it made are adopted in place. The
 * reference in docs/providers/digitalocean.md is generated from these declarations.
 *
 * Like DO CCM, an empty value of a setting with a choice (`type: ""`) counts as not set. Stricter than DO CCM in
 * one way: a value DO CCM would pass to the API (where it fails) or quietly replace (an unknown algorithm or sticky
 * type) is refused here, naming the annotation, so the Service gets one Warning event instead of a half-made load
 * balancer.
 */
import type { Service } from "../../kube/objects.ts";
import { formatCIDR, tryParseCIDR } from "../../net/cidr.ts";
import { formatIP, parseIPStrict } from "../../net/ip.ts";
import { annotation, defineAnnotations } from "../kit/annotations/declare.ts";
import { bool, int, list, oneOf, type Parsed, type Reader, text } from "../kit/annotations/readers.ts";

/** The prefix of the keys DO CCM reads (all but `disown`). */
export const annotationPrefix = "service.beta.kubernetes.io/do-loadbalancer-";
const key = (name: string) => `${annotationPrefix}${name}`;
/** DO CCM's "do not touch this load balancer" switch, outside the prefix. */
export const DISOWN_ANNOTATION = "service.kubernetes.io/do-loadbalancer-disown";
/** Where DO CCM (and this provider) records the load balancer's ID on the Service. */
export const LOAD_BALANCER_ID_ANNOTATION = "kubernetes.digitalocean.com/load-balancer-id";

const valid = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = <T>(reason?: string): Parsed<T> => (reason === undefined ? { ok: false } : { ok: false, reason });

/** `reader`, except that an empty value reads as not set (`undefined`), as DO CCM reads these. */
function blankIsUnset<T>(reader: Reader<T>): Reader<T | undefined> {
  return {
    type: reader.type,
    accepts: `${reader.accepts}, or empty for the default`,
    parse: (t, service) => (t === "" ? valid(undefined) : reader.parse(t, service)),
    format: (v) => (v === undefined ? "" : reader.format(v)),
  };
}

function pattern(type: string, accepts: string, re: RegExp): Reader<string> {
  return { type, accepts, parse: (t) => (re.test(t) ? valid(t) : invalid()), format: (v) => v };
}

const port = () => int({ min: 1, max: 65535 });

/** One port of the Service, by number, speaking TCP: what a health check can reach (DO CCM's `healthCheckPort`). */
function tcpServicePort(): Reader<number> {
  return {
    type: "port",
    accepts: "one TCP port of the Service, by number",
    parse(t, service: Service) {
      if (!/^\d+$/.test(t)) return invalid();
      const p = (service.spec?.ports ?? []).find((sp) => sp.port === Number(t));
      if (!p) return invalid(`${t} is not a port of the Service`);
      if (p.protocol === "UDP") return invalid(`port ${t} is UDP; a health check needs TCP`);
      return valid(p.port);
    },
    format: String,
  };
}

/** DO's load balancer firewall rule: `ip:<address>` or `cidr:<network>`. */
function firewallRule(): Reader<string> {
  return {
    type: "rule",
    accepts: "ip:<address> or cidr:<network>, e.g. ip:1.2.3.4 or cidr:10.0.0.0/8",
    parse(t) {
      const [kind, source = ""] = t.split(/:(.*)/s, 2);
      if (kind === "ip") {
        const a = parseIPStrict(source);
        return a ? valid(`ip:${formatIP(a)}`) : invalid();
      }
      if (kind === "cidr") {
        const c = tryParseCIDR(source);
        return c ? valid(`cidr:${formatCIDR(c)}`) : invalid();
      }
      return invalid();
    },
    format: (v) => v,
  };
}

/** Any value turns it on: DO CCM only asks whether the key is there. */
function present(): Reader<true> {
  return {
    type: "presence",
    accepts: "any value (its presence is what counts)",
    parse: () => valid(true),
    format: () => "",
  };
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const LB_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,253}[A-Za-z0-9])?$/;
const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

const healthCheck = {
  healthCheckPath: annotation(key("healthcheck-path"), text(), {
    description:
      "The health check's HTTP path; read only with `override-health-check`. Without it the check is `tcp` (unless a protocol is given).",
    example: "/healthz",
  }),
  healthCheckPort: annotation(key("healthcheck-port"), tcpServicePort(), {
    description:
      "The Service port whose node port the health check probes; read only with `override-health-check`. Default: the first TCP port.",
    example: "80",
  }),
  healthCheckProtocol: annotation(key("healthcheck-protocol"), oneOf(["tcp", "http", "https"]), {
    description:
      "The health check's protocol; read only with `override-health-check`. Default `http` with a path, else `tcp`.",
    example: "http",
  }),
  overrideHealthCheck: annotation(key("override-health-check"), present(), {
    description:
      "Use the `healthcheck-path`, `-port` and `-protocol` annotations instead of DO CCM's check of kube-proxy (`http` on port 10256, `/healthz`, or the Service's `healthCheckNodePort` with `externalTrafficPolicy: Local`).",
    example: "true",
  }),
  healthCheckInterval: annotation(key("healthcheck-check-interval-seconds"), int({ min: 3, max: 300 }), {
    description: "Seconds between two health checks.",
    example: "10",
    default: 3,
  }),
  healthCheckTimeout: annotation(key("healthcheck-response-timeout-seconds"), int({ min: 3, max: 300 }), {
    description: "Seconds to wait for a health check's answer.",
    example: "10",
    default: 5,
  }),
  unhealthyThreshold: annotation(key("healthcheck-unhealthy-threshold"), int({ min: 2, max: 10 }), {
    description: "Failed checks in a row after which a Droplet is taken out.",
    example: "5",
    default: 3,
  }),
  healthyThreshold: annotation(key("healthcheck-healthy-threshold"), int({ min: 2, max: 10 }), {
    description: "Passed checks in a row after which a Droplet is put back.",
    example: "3",
    default: 5,
  }),
};

const protocols = {
  protocol: annotation(key("protocol"), oneOf(["tcp", "http", "https", "http2", "http3"]), {
    description:
      "The protocol of every port not named in `http-ports`, `tls-ports` or `http2-ports` (a UDP port is always `udp`).",
    example: "http",
    default: "tcp",
  }),
  httpPorts: annotation(key("http-ports"), list(port()), {
    description: "Ports served as `http`.",
    example: "80,8080",
  }),
  tlsPorts: annotation(key("tls-ports"), list(port()), {
    description:
      "Ports served as `https`. With a certificate or TLS passthrough and no `tls-ports` (nor 443 in `http2-ports`), port 443 is.",
    example: "443",
  }),
  http2Ports: annotation(key("http2-ports"), list(port()), {
    description: "Ports served as `http2` (a certificate or TLS passthrough is needed).",
    example: "443",
  }),
  http3Port: annotation(key("http3-port"), port(), {
    description: "The one port also served as `http3`, to the port's node port as `http`; needs a certificate.",
    example: "443",
  }),
  tlsPassthrough: annotation(key("tls-passthrough"), bool(), {
    description: "Pass TLS through to the Droplets instead of ending it at the load balancer.",
    example: "true",
    default: false,
  }),
  certificateID: annotation(key("certificate-id"), blankIsUnset(text()), {
    description:
      "The certificate the `https` and `http2` ports end TLS with; wins over `certificate-name`. When DigitalOcean renews a Let's Encrypt certificate (a new ID, the same name), the provider keeps the renewed one and rewrites this annotation, as DO CCM does.",
    example: "a5b2a3a4-6e0c-4b0d-8b7a-1a2b3c4d5e6f",
  }),
  certificateName: annotation(key("certificate-name"), blankIsUnset(text()), {
    description: "The certificate, by name (looked up with one call per sync), when `certificate-id` is not set.",
    example: "web-cert",
  }),
  redirectHttpToHttps: annotation(key("redirect-http-to-https"), bool(), {
    description: "Redirect `http` requests to `https`.",
    example: "true",
    default: false,
  }),
  disableLetsEncryptDNSRecords: annotation(key("disable-lets-encrypt-dns-records"), bool(), {
    description: "Do not create DNS records for a Let's Encrypt certificate on the load balancer.",
    example: "true",
    default: false,
  }),
};

export const DigitalOceanAnnotations = defineAnnotations({
  name: annotation(key("name"), pattern("string", "a load balancer name: letters, digits, '.' or '-'", LB_NAME), {
    description:
      "The load balancer's name. Changing it renames the load balancer in place (same ID and IP). Without it: Kubernetes' default, `a` + the Service UID without dashes.",
    example: "web-lb",
    defaultText: "`a` + the Service UID",
  }),
  ...protocols,
  ...healthCheck,
  hostname: annotation(
    key("hostname"),
    blankIsUnset(pattern("DNS name", "a DNS name such as lb.example.com", HOSTNAME)),
    {
      description:
        "Report this hostname (lower-cased) instead of the IP in the Service's status, so traffic from inside the cluster goes through the load balancer.",
      example: "lb.example.com",
    },
  ),
  algorithm: annotation(key("algorithm"), oneOf(["round_robin", "least_connections"]), {
    description:
      "Deprecated by DigitalOcean: the API ignores it. Sent with every create and update, as DO CCM does; a change of it alone writes nothing.",
    example: "least_connections",
    default: "round_robin",
  }),
  sizeSlug: annotation(key("size-slug"), blankIsUnset(oneOf(["lb-small", "lb-medium", "lb-large"])), {
    description: "The size by its old names; not with `size-unit`.",
    example: "lb-medium",
  }),
  sizeUnit: annotation(key("size-unit"), blankIsUnset(int({ min: 1, max: 100 })), {
    description: "The number of nodes of the load balancer; not with `size-slug`. Unset keeps the current size.",
    example: "2",
  }),
  stickyType: annotation(key("sticky-sessions-type"), blankIsUnset(oneOf(["none", "cookies"])), {
    description: "Sticky sessions: `cookies` needs `sticky-sessions-cookie-name` and `-ttl`.",
    example: "cookies",
    defaultText: "`none`",
  }),
  stickyCookieName: annotation(
    key("sticky-sessions-cookie-name"),
    pattern("string", "a cookie name", /^[!#-+\--:<-[\]-~]+$/),
    {
      description: "The sticky sessions' cookie name.",
      example: "DO-LB",
    },
  ),
  stickyCookieTTL: annotation(key("sticky-sessions-cookie-ttl"), int({ min: 1 }), {
    description: "The sticky sessions' cookie lifetime in seconds.",
    example: "300",
  }),
  proxyProtocol: annotation(key("enable-proxy-protocol"), bool(), {
    description:
      "Send the PROXY protocol header to the Droplets. The Service's ingress then says `ipMode: Proxy`, so in-cluster traffic to the IP also goes through the load balancer.",
    example: "true",
    default: false,
  }),
  backendKeepalive: annotation(key("enable-backend-keepalive"), bool(), {
    description: "Keep HTTP connections to the Droplets open.",
    example: "true",
    default: false,
  }),
  httpIdleTimeout: annotation(key("http-idle-timeout-seconds"), int({ min: 30, max: 600 }), {
    description: "Seconds an idle HTTP connection is kept; the API's default is 60.",
    example: "120",
  }),
  denyRules: annotation(key("deny-rules"), list(firewallRule()), {
    description: "Sources the load balancer's firewall refuses.",
    example: "cidr:10.0.0.0/8,ip:1.2.3.4",
  }),
  allowRules: annotation(key("allow-rules"), list(firewallRule()), {
    description:
      "Sources the load balancer's firewall lets in; `spec.loadBalancerSourceRanges`, when set, wins (as `cidr:` rules).",
    example: "cidr:192.0.2.0/24",
  }),
  type: annotation(key("type"), blankIsUnset(oneOf(["REGIONAL", "REGIONAL_NETWORK"])), {
    description:
      "`REGIONAL` (HTTP-aware, ports to node ports) or `REGIONAL_NETWORK` (layer 4, the Service's ports as they are). Read at creation: the API does not change a load balancer's type. Once the load balancer exists the provider writes its type here, as DO CCM does.",
    example: "REGIONAL",
    defaultText: "`DEFAULT_LB_TYPE`, else `REGIONAL_NETWORK`",
  }),
  network: annotation(key("network"), blankIsUnset(oneOf(["EXTERNAL", "INTERNAL"])), {
    description: "`INTERNAL` gives the load balancer a VPC address only. Read at creation.",
    example: "INTERNAL",
    defaultText: "`EXTERNAL`",
  }),
  networkStack: annotation(key("network-stack"), blankIsUnset(oneOf(["IPV4", "DUALSTACK"])), {
    description:
      "`DUALSTACK` adds an IPv6 address. Default: `DUALSTACK` for `REGIONAL`, `IPV4` for `INTERNAL` and for `REGIONAL_NETWORK` unless every Node has IPv6.",
    example: "IPV4",
  }),
  ip: annotation(key("ip"), blankIsUnset(pattern("IPv4", "an IPv4 address", /^(\d{1,3}\.){3}\d{1,3}$/)), {
    description:
      "A reserved (BYOIP) address of the account in the region to create the load balancer with. Create only.",
    example: "192.0.2.10",
  }),
  subnetUUID: annotation(key("subnet-uuid"), blankIsUnset(pattern("UUID", "a VPC subnet's UUID", UUID)), {
    description: "The VPC subnet to place the load balancer in (DigitalOcean private preview). Create only.",
    example: "3f0e0a40-1b2c-4d3e-8f4a-5b6c7d8e9f00",
  }),
  disown: annotation(DISOWN_ANNOTATION, bool(), {
    description:
      "Leave the load balancer alone: no change, and no delete when the Service goes; its status is kept as it is. For handing a load balancer to another Service or cluster.",
    example: "true",
    default: false,
  }),
});

/** The annotation the provider writes; a user sets it only to adopt a load balancer by ID. */
export const DigitalOceanIDAnnotations = defineAnnotations({
  loadBalancerID: annotation(LOAD_BALANCER_ID_ANNOTATION, pattern("UUID", "a load balancer's ID (a UUID)", UUID), {
    description:
      "The load balancer's ID, written by DO CCM and by this provider. A load balancer whose ID a Service names is adopted in place (same ID and IP), even without this cluster's tag.",
    example: "4de7ac8b-495b-4884-9a69-1050c6793cd6",
    writtenBy: "provider",
  }),
});

export type DigitalOceanAnnotationValues = ReturnType<typeof DigitalOceanAnnotations.parse>;
