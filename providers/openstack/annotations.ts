/**
 * Every Service annotation openstack-cloud-controller-manager reads for a load balancer (the
 * `ServiceAnnotation*` constants of its `pkg/openstack/loadbalancer.go`: 31 keys, 30 under
 * `loadbalancer.openstack.org/` and the legacy `service.beta.kubernetes.io/openstack-internal-load-balancer`), with
 * OCCM's meanings so its Services work unchanged. The reference in docs/providers/openstack.md is generated from
 * these declarations.
 *
 * Where OCCM falls back on a `[LoadBalancer]` key of `cloud.conf`, the declaration's default is that key: build the
 * set from the configuration with `openStackAnnotations(config.loadBalancer)`. OCCM reads a bad integer or boolean
 * as its default, silently; here it is an invalid annotation, named in one Warning event, and nothing is written.
 */
import * as v from "valibot";
import { type Annotation, type AnnotationDoc, annotation, defineAnnotations } from "../kit/annotations/declare.ts";
import { bool, int, oneOf, type Reader, text } from "../kit/annotations/readers.ts";
import { type CloudConf, cloudConfSchema } from "./config.ts";
import { subnetNameMatcher } from "./lb/subnet-match.ts";

export const annotationPrefix = "loadbalancer.openstack.org/";
const key = (name: string) => `${annotationPrefix}${name}`;
/** OCCM's legacy key for an internal load balancer. */
export const INTERNAL_ANNOTATION = "service.beta.kubernetes.io/openstack-internal-load-balancer";

type Defaults = CloudConf["LoadBalancer"];

const invalid = (reason?: string) => (reason === undefined ? { ok: false as const } : { ok: false as const, reason });
const valid = <T>(value: T) => ({ ok: true as const, value });

/** An OpenStack resource ID: a UUID, with or without dashes, as Neutron and Octavia write them. */
function resourceID(what: string): Reader<string> {
  return {
    type: "ID",
    accepts: `${what} (a UUID)`,
    parse: (t) => (/^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$/.test(t) ? valid(t) : invalid()),
    format: (x) => x,
  };
}

/** A floating network's ID, or empty: OCCM reads an empty value as "no floating IP at all". */
function floatingNetwork(): Reader<string> {
  const id = resourceID("a Neutron network ID");
  return {
    type: "ID or empty",
    accepts: `${id.accepts}, or empty for no floating IP`,
    parse: (t, s) => (t === "" ? valid("") : id.parse(t, s)),
    format: (x) => x,
  };
}

/** Some non-blank text without spaces (a name, a zone, a pattern). */
function word(what: string): Reader<string> {
  return {
    type: "string",
    accepts: what,
    parse: (t) => (/^\S+$/.test(t) ? valid(t) : invalid()),
    format: (x) => x,
  };
}

export type ProxyProtocol = "PROXY" | "PROXYV2" | undefined;

/** OCCM's `getProxyProtocolFromServiceAnnotation`: `true` or `v1` is PROXY v1, `v2` v2, `false` none. */
function proxyProtocol(): Reader<ProxyProtocol> {
  const words: Record<string, ProxyProtocol> = { true: "PROXY", v1: "PROXY", v2: "PROXYV2", false: undefined };
  return {
    type: "enum",
    accepts: "one of true, v1, v2, false",
    parse: (t) => (t in words ? valid(words[t]) : invalid()),
    format: (x) => (x === "PROXYV2" ? "v2" : x === "PROXY" ? "v1" : "false"),
  };
}

/** `key=value` pairs separated by commas (OCCM's `StringToMap`); a key alone matches any value. */
function labelPairs(): Reader<Readonly<Record<string, string>>> {
  const label = /^([a-zA-Z0-9.-]+\/)?[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;
  return {
    type: "label pairs",
    accepts: "comma-separated node labels, key=value or key alone, such as node-role.kubernetes.io/lb=",
    parse(t) {
      const out: Record<string, string> = {};
      for (const part of t
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "")) {
        const [k = "", value = ""] = part.split("=", 2).map((x) => x.trim());
        if (!label.test(k)) return invalid(`"${k}" is not a label key`);
        out[k] = value;
      }
      return valid(out);
    },
    format: (m) =>
      Object.entries(m)
        .map(([k, x]) => `${k}=${x}`)
        .join(","),
  };
}

/** OCCM's subnet name pattern: a glob, or a regular expression after `~`, either negated by a leading `!`. */
function subnetPattern(): Reader<string> {
  return {
    type: "pattern",
    accepts: "a subnet name glob such as public-*, or a regular expression after ~, optionally negated by !",
    parse(t) {
      if (!/^\S+$/.test(t)) return invalid();
      const m = subnetNameMatcher(t);
      return typeof m === "function" ? valid(t) : invalid(m.problem);
    },
    format: (x) => x,
  };
}

/** OCCM's subnet tags: comma-separated, any of them, all after `&`, negated by a leading `!`. */
function subnetTags(): Reader<string> {
  return {
    type: "tags",
    accepts: "comma-separated Neutron tags (any of them; all after &; none after !)",
    parse: (t) => (/^!?&?[^\s,]+(,[^\s,]+)*$/.test(t) ? valid(t) : invalid()),
    format: (x) => x,
  };
}

/** A Barbican container or secret URL. */
function tlsContainer(): Reader<string> {
  return {
    type: "URL",
    accepts: "a Barbican container or secret URL such as https://barbican.example:9311/v1/containers/<uuid>",
    parse: (t) => (/^https?:\/\/\S+\/(containers|secrets)\/[0-9a-fA-F-]{32,36}$/.test(t) ? valid(t) : invalid()),
    format: (x) => x,
  };
}

function dnsName(): Reader<string> {
  return {
    type: "DNS name",
    accepts: "a DNS name such as lb.example.com",
    parse: (t) =>
      t.length <= 253 && /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(t)
        ? valid(t)
        : invalid(),
    format: (x) => x,
  };
}

function withDefault<T>(name: string, reader: Reader<T>, doc: AnnotationDoc<T>, setting: T | undefined) {
  return setting === undefined
    ? annotation(name, reader, doc)
    : (annotation(name, reader, { ...doc, default: setting }) as Annotation<T, T | undefined>);
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** The annotations with the defaults `[LoadBalancer]` gives. */
export function openStackAnnotations(d: Defaults) {
  return defineAnnotations({
    internal: annotation(INTERNAL_ANNOTATION, bool(), {
      description:
        "Makes the load balancer internal: no floating IP, the VIP on the tenant subnet. `[LoadBalancer] internal-lb = true` makes every one internal whatever this says.",
      example: "true",
      default: d["internal-lb"],
      defaultText: "`[LoadBalancer] internal-lb`",
    }),
    nodeSelector: annotation(key("node-selector"), labelPairs(), {
      description: "Only Nodes with these labels become members.",
      example: "node-role.kubernetes.io/lb=",
      default: labelPairs().parse(d["node-selector"].trim(), {}).ok
        ? (labelPairs().parse(d["node-selector"].trim(), {}) as { value: Record<string, string> }).value
        : {},
      defaultText: "`[LoadBalancer] node-selector`, else every Node",
    }),
    connectionLimit: annotation(key("connection-limit"), int({ min: -1 }), {
      description: "Each listener's `connection_limit`; -1 is unlimited.",
      example: "10000",
      default: -1,
    }),
    floatingNetworkID: withDefault(
      key("floating-network-id"),
      floatingNetwork(),
      {
        description:
          "The external network the floating IP comes from. Empty: no floating IP, the VIP alone. Unset and no `[LoadBalancer] floating-network-id`: no floating IP either.",
        example: "8c1fcf6b-3e8e-4b36-9a1b-2f1b5c8f0a7e",
        defaultText: "`[LoadBalancer] floating-network-id`",
      },
      d["floating-network-id"],
    ),
    floatingSubnet: withDefault(
      key("floating-subnet"),
      subnetPattern(),
      {
        description:
          "The floating network's subnet by name: a glob, or a regular expression after `~`, negated by a leading `!`; each matching subnet is tried in turn.",
        example: "public-*",
        defaultText: "`[LoadBalancer] floating-subnet`",
      },
      d["floating-subnet"],
    ),
    floatingSubnetID: withDefault(
      key("floating-subnet-id"),
      resourceID("a Neutron subnet ID"),
      {
        description: "The floating network's subnet the floating IP comes from; wins over a pattern or tags.",
        example: "1c5d6f3a-8a5e-4e27-9a1f-5d3c1a2b4c6d",
        defaultText: "`[LoadBalancer] floating-subnet-id`",
      },
      d["floating-subnet-id"],
    ),
    floatingSubnetTags: withDefault(
      key("floating-subnet-tags"),
      subnetTags(),
      {
        description:
          "The floating network's subnet by its Neutron tags: any of them, all of them after `&`, none after `!`.",
        example: "&public,ipv4",
        defaultText: "`[LoadBalancer] floating-subnet-tags`",
      },
      d["floating-subnet-tags"],
    ),
    class: annotation(key("class"), word("the name of a [LoadBalancerClass] section"), {
      description: 'A `[LoadBalancerClass "<name>"]` section of `cloud.conf` whose networks and subnets to use.',
      example: "public",
    }),
    keepFloatingIP: annotation(key("keep-floatingip"), bool(), {
      description: "Keeps the floating IP in the project when the Service is deleted (or becomes internal).",
      example: "true",
      default: false,
    }),
    portID: annotation(key("port-id"), resourceID("a Neutron port ID"), {
      description: "An existing Neutron port to use as the VIP port.",
      example: "5e4a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c",
    }),
    lbMethod: annotation(
      key("lb-method"),
      oneOf(["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"] as const),
      {
        description: "The pools' algorithm; the `ovn` provider takes only SOURCE_IP_PORT.",
        example: "LEAST_CONNECTIONS",
        default: d["lb-method"],
        defaultText: "`[LoadBalancer] lb-method`",
      },
    ),
    proxyProtocol: annotation(key("proxy-protocol"), proxyProtocol(), {
      description:
        "Pools speak the PROXY protocol to the Nodes (v1, or v2); the status then says `ipMode: Proxy` so in-cluster traffic goes through the load balancer too.",
      example: "v2",
    }),
    subnetID: annotation(key("subnet-id"), resourceID("a Neutron subnet ID"), {
      description: "The subnet of the VIP.",
      example: "1c5d6f3a-8a5e-4e27-9a1f-5d3c1a2b4c6d",
      ...(d["subnet-id"] === undefined ? {} : { default: d["subnet-id"] }),
      defaultText: "`[LoadBalancer] subnet-id`",
    }),
    networkID: annotation(key("network-id"), resourceID("a Neutron network ID"), {
      description: "The network of the VIP (its subnet chosen by Octavia).",
      example: "9b3a1c2d-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
      ...(d["network-id"] === undefined ? {} : { default: d["network-id"] }),
      defaultText: "`[LoadBalancer] network-id`, else the network of the first Node's port",
    }),
    memberSubnetID: annotation(key("member-subnet-id"), resourceID("a Neutron subnet ID"), {
      description: "The subnet the members are on, when not the VIP's.",
      example: "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
      ...(d["member-subnet-id"] === undefined ? {} : { default: d["member-subnet-id"] }),
      defaultText: "`[LoadBalancer] member-subnet-id`",
    }),
    timeoutClientData: annotation(key("timeout-client-data"), int({ min: 0 }), {
      description: "Listener idle timeout on the client side, in milliseconds.",
      example: "300000",
      default: 50000,
    }),
    timeoutMemberConnect: annotation(key("timeout-member-connect"), int({ min: 0 }), {
      description: "Listener timeout for connecting to a member, in milliseconds.",
      example: "10000",
      default: 5000,
    }),
    timeoutMemberData: annotation(key("timeout-member-data"), int({ min: 0 }), {
      description: "Listener idle timeout on the member side, in milliseconds.",
      example: "300000",
      default: 50000,
    }),
    timeoutTCPInspect: annotation(key("timeout-tcp-inspect"), int({ min: 0 }), {
      description: "How long a listener waits for content to inspect, in milliseconds.",
      example: "0",
      default: 0,
    }),
    xForwardedFor: annotation(key("x-forwarded-for"), bool(), {
      description: "Listeners become HTTP and add `X-Forwarded-For`; not together with proxy-protocol.",
      example: "true",
      default: false,
    }),
    flavorID: withDefault(
      key("flavor-id"),
      resourceID("an Octavia flavor ID"),
      {
        description: "The Octavia flavor of a new load balancer.",
        example: "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d",
        defaultText: "`[LoadBalancer] flavor-id`",
      },
      d["flavor-id"],
    ),
    availabilityZone: withDefault(
      key("availability-zone"),
      word("an Octavia availability zone name"),
      {
        description: "The Octavia availability zone of a new load balancer.",
        example: "az1",
        defaultText: "`[LoadBalancer] availability-zone`",
      },
      d["availability-zone"],
    ),
    enableHealthMonitor: annotation(key("enable-health-monitor"), bool(), {
      description: "A health monitor on each pool.",
      example: "true",
      default: d["create-monitor"],
      defaultText: "`[LoadBalancer] create-monitor`",
    }),
    healthMonitorDelay: annotation(key("health-monitor-delay"), int({ min: 1 }), {
      description: "Seconds between health checks.",
      example: "10",
      default: seconds(d["monitor-delay"]),
      defaultText: "`[LoadBalancer] monitor-delay`",
    }),
    healthMonitorTimeout: annotation(key("health-monitor-timeout"), int({ min: 1 }), {
      description: "Seconds a health check may take.",
      example: "5",
      default: seconds(d["monitor-timeout"]),
      defaultText: "`[LoadBalancer] monitor-timeout`",
    }),
    healthMonitorMaxRetries: annotation(key("health-monitor-max-retries"), int({ min: 1, max: 10 }), {
      description: "Successful checks before a member is up.",
      example: "2",
      default: d["monitor-max-retries"],
      defaultText: "`[LoadBalancer] monitor-max-retries`",
    }),
    healthMonitorMaxRetriesDown: annotation(key("health-monitor-max-retries-down"), int({ min: 1, max: 10 }), {
      description: "Failed checks before a member is down.",
      example: "3",
      default: d["monitor-max-retries-down"],
      defaultText: "`[LoadBalancer] monitor-max-retries-down`",
    }),
    hostname: annotation(key("hostname"), dnsName(), {
      description:
        "The status carries this hostname instead of the address (for PROXY protocol from inside the cluster).",
      example: "lb.example.com",
    }),
    loadBalancerAddress: annotation(key("load-balancer-address"), text(), {
      description:
        "The load balancer's address, written by OCCM for a Service whose status shows a hostname. Read by nothing.",
      example: "203.0.113.10",
      writtenBy: "provider",
    }),
    defaultTLSContainerRef: withDefault(
      key("default-tls-container-ref"),
      tlsContainer(),
      {
        description: "A Barbican container for TERMINATED_HTTPS listeners.",
        example: "https://barbican.example:9311/v1/containers/3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d",
        defaultText: "`[LoadBalancer] default-tls-container-ref`",
      },
      d["default-tls-container-ref"],
    ),
    loadBalancerID: annotation(key("load-balancer-id"), resourceID("an Octavia load balancer ID"), {
      description:
        "The Octavia load balancer of this Service; OCCM writes it after creating one. Set, it is looked up by ID instead of by name.",
      example: "4b5c6d7e-8f9a-4b1c-8d2e-3f4a5b6c7d8e",
    }),
  });
}

export type OpenStackAnnotationSet = ReturnType<typeof openStackAnnotations>;
export type OpenStackAnnotationValues = ReturnType<OpenStackAnnotationSet["parse"]>;

/** With `cloud.conf`'s defaults: what the admission webhook checks (validity does not depend on the defaults). */
export const OpenStackAnnotations = openStackAnnotations(
  v.parse(cloudConfSchema, {
    Global: {},
    LoadBalancer: {},
    LoadBalancerClass: {},
    Networking: {},
    Metadata: {},
    Route: {},
  }).LoadBalancer,
);
