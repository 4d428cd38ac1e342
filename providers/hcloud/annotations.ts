/**
 * Every `load-balancer.hetzner.cloud/*` Service annotation hcloud-cloud-controller-manager knows (its
 * `internal/annotation` package: 39 keys), with hccm's meanings, so an hccm Service works unchanged. The reference in
 * docs/providers/hcloud.md is generated from these declarations.
 *
 * Where hccm falls back on an `HCLOUD_LOAD_BALANCERS_*` setting, the declaration's default is that setting: build the
 * set from the configuration with `hcloudAnnotations(config.loadBalancers)`. An annotation without a default reads
 * as `undefined` when not set, which means what it means in hccm: the API's default on create, the load balancer's
 * current value left alone on update.
 *
 * Stricter than hccm in one way: a value hccm would pass to the API (or ignore) although it cannot work is refused
 * here, naming the annotation, so the Service gets a Warning event instead of a half-made load balancer.
 */
import * as v from "valibot";
import { tryParseCIDR } from "../../net/cidr.ts";
import { type Annotation, type AnnotationDoc, annotation, defineAnnotations } from "../kit/annotations/declare.ts";
import { bool, int, list, type Reader } from "../kit/annotations/readers.ts";
import {
  address,
  certificateRef,
  dnsName,
  healthCheckReaders,
  ipv4,
  ipv4Cidr,
  nodeSelector,
  nonEmpty,
  place,
  seconds,
  statusCode,
  word,
} from "./annotation-readers.ts";
import { type HcloudConfig, hcloudConfigSchema } from "./config.ts";

export type LoadBalancerDefaults = HcloudConfig["loadBalancers"];

/** The prefix of every annotation hccm reads on a Service. */
export const annotationPrefix = "load-balancer.hetzner.cloud/";
/** The whole key of the annotation `name`, e.g. `load-balancer.hetzner.cloud/type`. */
export const annotationKey = (name: string): string => `${annotationPrefix}${name}`;
const key = annotationKey;
const PROTOCOLS = ["tcp", "http", "https"] as const;
const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/** A declaration whose default is a setting that may be unset: reading then gives `undefined`, as without one. */
function configured<T>(
  name: string,
  reader: Reader<T>,
  doc: AnnotationDoc<T>,
  setting: T | undefined,
): Annotation<T, T | undefined> {
  return setting === undefined
    ? annotation(key(name), reader, doc)
    : annotation(key(name), reader, { ...doc, default: setting });
}

const envText = (variable: string, otherwise: string) => `\`${variable}\`, else ${otherwise}`;

/** The annotations with the defaults `defaults` gives (the configuration's `loadBalancers`). */
export function hcloudAnnotations(defaults: LoadBalancerDefaults) {
  const subnet = defaults.privateSubnetIPRange === undefined ? undefined : tryParseCIDR(defaults.privateSubnetIPRange);
  const hc = defaults.healthCheck;
  return defineAnnotations({
    name: annotation(key("name"), nonEmpty("a load balancer name: letters, digits, '.', '-' or '_', up to 63", NAME), {
      description:
        "The load balancer's name in the Hetzner Cloud Console; an existing one is renamed. Without it the name is Kubernetes' default (`a` + the Service UID without dashes, 32 characters).",
      example: "web-lb",
      defaultText: "`a` + the Service UID",
    }),
    type: annotation(key("type"), nonEmpty("a load balancer type name such as lb11", /^[a-z0-9][a-z0-9-]*$/), {
      description: "The load balancer type; changing it changes the type in place.",
      example: "lb21",
      default: defaults.type ?? "lb11",
      defaultText: envText("HCLOUD_LOAD_BALANCERS_TYPE", "`lb11`"),
    }),
    location: configured(
      "location",
      place("a location name such as fsn1, nbg1 or ash"),
      {
        description:
          "The location to create the load balancer in; wins over the network zone. Only read at creation: moving a load balancer means deleting it and a new IP. Empty clears `HCLOUD_LOAD_BALANCERS_LOCATION` for this Service, to place it by `network-zone`.",
        example: "fsn1",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_LOCATION", "not set"),
      },
      defaults.location,
    ),
    networkZone: configured(
      "network-zone",
      place("a network zone such as eu-central or us-east"),
      {
        description:
          "The network zone to create the load balancer in, when no location is given. Only read at creation.",
        example: "eu-central",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_NETWORK_ZONE", "not set"),
      },
      defaults.networkZone,
    ),
    algorithm: configured(
      "algorithm-type",
      word(["round_robin", "least_connections"]),
      {
        description: "How the load balancer spreads connections over the targets.",
        example: "least_connections",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE", "`round_robin` at creation, unchanged after"),
      },
      defaults.algorithm,
    ),
    protocol: annotation(key("protocol"), word(PROTOCOLS), {
      description: "What every port of the Service speaks; `https` needs certificates.",
      example: "http",
      default: "tcp",
    }),
    proxyProtocol: annotation(key("uses-proxyprotocol"), bool(), {
      description:
        "Send the PROXY protocol header to the nodes. The Service's ingress then reports `ipMode: Proxy`, so in-cluster traffic to the address also goes through the load balancer.",
      example: "true",
      default: defaults.proxyProtocol ?? false,
      defaultText: envText("HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL", "`false`"),
    }),
    ...listenerAnnotations(),
    ...healthCheckAnnotations(hc),
    ipv6Disabled: annotation(key("ipv6-disabled"), bool(), {
      description: "Leave the public IPv6 address out of the Service's ingress (for external-dns, for example).",
      example: "true",
      default: !defaults.ipv6,
      defaultText: envText("HCLOUD_LOAD_BALANCERS_DISABLE_IPV6", "`false`"),
    }),
    ipv4RDNS: annotation(key("ipv4-rdns"), dnsName({ orEmpty: "reset it" }), {
      description: "The reverse DNS name of the public IPv4 address; set on the address when it differs.",
      example: "lb.example.com",
      defaultText: "unchanged",
    }),
    ipv6RDNS: annotation(key("ipv6-rdns"), dnsName({ orEmpty: "reset it" }), {
      description: "The reverse DNS name of the public IPv6 address; set on the address when it differs.",
      example: "lb.example.com",
      defaultText: "unchanged",
    }),
    disablePublicNetwork: configured(
      "disable-public-network",
      bool(),
      {
        description:
          "Turn the load balancer's public interface off (on with `false`): traffic only over the private network.",
        example: "true",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK", "unchanged (on at creation)"),
      },
      defaults.disablePublicNetwork,
    ),
    disablePrivateIngress: annotation(key("disable-private-ingress"), bool(), {
      description: "Leave the private network address out of the Service's ingress.",
      example: "true",
      default: !defaults.privateIngress,
      defaultText: envText("HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS", "`false`"),
    }),
    usePrivateIP: annotation(key("use-private-ip"), bool(), {
      description: "Send traffic to the nodes over the private network (`HCLOUD_NETWORK`) instead of their public IPs.",
      example: "true",
      default: defaults.usePrivateIP,
      defaultText: envText("HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP", "`false`"),
    }),
    privateIPv4: annotation(key("private-ipv4"), ipv4(), {
      description:
        "The load balancer's address in the private network; attached again with it when it has another one.",
      example: "10.0.0.5",
      defaultText: "chosen by the API",
    }),
    privateSubnet: configured(
      "private-subnet-ip-range",
      ipv4Cidr(),
      {
        description: "The existing subnet of `HCLOUD_NETWORK` to attach the load balancer in.",
        example: "10.0.1.0/24",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE", "chosen by the API"),
      },
      subnet,
    ),
    nodeSelector: annotation(key("node-selector"), nodeSelector(), {
      description: "Only Nodes with matching labels become targets.",
      example: "node-role.kubernetes.io/lb=true",
      defaultText: "every Node",
    }),
    hostname: annotation(key("hostname"), dnsName(), {
      description:
        "Report this name as the Service's ingress instead of the load balancer's IPs (the PROXY protocol or HTTPS to the load balancer from inside the cluster need it).",
      example: "lb.example.com",
      defaultText: "the IPs",
    }),
  });
}

/** The HTTP options and certificates of each port's listener: without one, the API's default (or left as it is). */
function listenerAnnotations() {
  return {
    stickySessions: annotation(key("http-sticky-sessions"), bool(), {
      description: "Send each client to the same node, by a cookie (http and https only).",
      example: "true",
      defaultText: "the API's (`false`)",
    }),
    cookieName: annotation(
      key("http-cookie-name"),
      nonEmpty("a cookie name: letters, digits and -_.", /^[A-Za-z0-9._-]+$/),
      {
        description: "The sticky-session cookie's name.",
        example: "HCLBSTICKY",
        defaultText: "the API's (`HCLBSTICKY`)",
      },
    ),
    cookieLifetime: annotation(key("http-cookie-lifetime"), seconds({ min: 1 }), {
      description: "How long the sticky-session cookie lasts.",
      example: "5m",
      defaultText: "the API's (`5m`)",
    }),
    timeoutIdle: annotation(key("http-timeout-idle"), seconds({ min: 30, max: 300 }), {
      description: "How long an idle HTTP connection is kept, client and server side.",
      example: "90s",
      defaultText: "the API's (`60s`)",
    }),
    redirectHTTP: annotation(key("http-redirect-http"), bool(), {
      description: "Redirect plain HTTP on port 80 to HTTPS.",
      example: "true",
      defaultText: "the API's (`false`)",
    }),
    certificateType: annotation(key("certificate-type"), word(["uploaded", "managed"]), {
      description:
        "`uploaded`: the certificates named in `http-certificates`; `managed`: one Let's Encrypt certificate the provider creates for `http-managed-certificate-domains`.",
      example: "managed",
      default: "uploaded",
    }),
    certificates: annotation(key("http-certificates"), list(certificateRef()), {
      description: "The uploaded certificates of the https ports, by ID or name.",
      example: "1234,wildcard-example-com",
    }),
    managedCertificateName: annotation(key("http-managed-certificate-name"), nonEmpty("a certificate name"), {
      description: "The managed certificate's name.",
      example: "example-com",
      defaultText: "`ccm-managed-certificate-` + the Service UID",
    }),
    managedCertificateDomains: annotation(key("http-managed-certificate-domains"), list(dnsName({ wildcard: true })), {
      description: "The domains of the managed certificate (one certificate for all); required with `managed`.",
      example: "example.com,*.example.com",
    }),
    managedCertificateACMEStaging: annotation(key("http-managed-certificate-acme-staging"), bool(), {
      description:
        "Hetzner's internal testing only (hccm's too): issue the managed certificate from Let's Encrypt staging.",
      example: "false",
      default: false,
    }),
  };
}

/** The health check: set only when one of these is (or a setting), else the API's default check of the port. */
function healthCheckAnnotations(hc: LoadBalancerDefaults["healthCheck"]) {
  const opt = <T>(name: string, reader: Reader<T>, doc: AnnotationDoc<T>, setting: T | undefined) =>
    configured(name, reader, doc, setting);
  return {
    healthCheckProtocol: annotation(key("health-check-protocol"), word(PROTOCOLS), {
      description: "How the health check talks to the nodes.",
      example: "http",
      defaultText: "the port's `protocol`",
    }),
    healthCheckPort: annotation(key("health-check-port"), int({ min: 1, max: 65535 }), {
      description: "The port the health check connects to.",
      example: "10256",
      defaultText: "the NodePort",
    }),
    healthCheckInterval: opt(
      "health-check-interval",
      healthCheckReaders.interval(),
      {
        description: "Time between two checks of a node.",
        example: "15s",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", "the API's (`15s`)"),
      },
      hc.intervalMs,
    ),
    healthCheckTimeout: opt(
      "health-check-timeout",
      healthCheckReaders.timeout(),
      {
        description: "How long one check may take.",
        example: "10s",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", "the API's (`10s`)"),
      },
      hc.timeoutMs,
    ),
    healthCheckRetries: opt(
      "health-check-retries",
      healthCheckReaders.retries(),
      {
        description: "Failed checks in a row before a node gets no more traffic.",
        example: "3",
        defaultText: envText("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "the API's (`3`)"),
      },
      hc.retries,
    ),
    healthCheckHTTPDomain: annotation(key("health-check-http-domain"), dnsName(), {
      description: "The Host of an http(s) health check's request.",
      example: "example.com",
      defaultText: "none",
    }),
    healthCheckHTTPPath: annotation(key("health-check-http-path"), nonEmpty("a path starting with /", /^\/\S*$/), {
      description: "The path an http(s) health check requests.",
      example: "/healthz",
      defaultText: "the API's (`/`)",
    }),
    healthCheckHTTPValidateCertificate: annotation(key("health-check-http-validate-certificate"), bool(), {
      description: "Whether an https health check checks the node's certificate.",
      example: "true",
      defaultText: "the API's (`false`)",
    }),
    healthCheckHTTPStatusCodes: annotation(key("http-status-codes"), list(statusCode()), {
      description: "The answers an http(s) health check counts as healthy.",
      example: "2??,301",
      defaultText: "the API's (`2??,3??`)",
    }),
  };
}

export type HcloudAnnotationSet = ReturnType<typeof hcloudAnnotations>;
export type HcloudAnnotationValues = ReturnType<HcloudAnnotationSet["parse"]>;

/**
 * The set with hccm's defaults (no `HCLOUD_LOAD_BALANCERS_*` set), for the reference page and tests. The token is a
 * placeholder: the schema requires one, and nothing here reads it.
 */
export const HcloudAnnotations = hcloudAnnotations(v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-" }).loadBalancers);

/**
 * What hccm declares read-only and then neither reads nor writes (`ipv4`, `ipv6`; `id` "reserved for future use").
 * Declared so the reference lists all 39 keys; never read for a load balancer, so no value of them stops a sync.
 */
export const HcloudReservedAnnotations = defineAnnotations({
  ipv4: annotation(key("ipv4"), address(4), {
    description: "Reserved (read-only in hccm, which no longer writes it): ignored.",
    example: "203.0.113.10",
  }),
  ipv6: annotation(key("ipv6"), address(6), {
    description: "Reserved (read-only in hccm, which no longer writes it): ignored.",
    example: "2001:db8::1",
  }),
  id: annotation(key("id"), int({ min: 1 }), {
    description:
      "Reserved (hccm: for future use): ignored; load balancers are found by the `hcloud-ccm/service-uid` label, then by name.",
    example: "12345",
  }),
});
