/**
 * One row per `load-balancer.hetzner.cloud/*` annotation (all 39 hccm knows): the annotations a Service gets and
 * the check on the emulated load balancer and the Service's status once converged. Shared by the in-process test
 * (`load-balancers.annotations.test.ts`, through the real client) and the end-to-end test on the compiled executable
 * (`test/hcloud-annotations.e2e.test.ts`), so both prove the same table. Test support: nothing in production imports
 * this file.
 *
 * The world a row assumes: a network `k8s` (10.0.0.0/16, subnets 10.0.1.0/24 and 10.0.2.0/24, both eu-central),
 * three cloud servers as Nodes of which exactly one is labelled `role=edge`, an uploaded certificate `web-cert`,
 * and `HCLOUD_LOAD_BALANCERS_LOCATION=fsn1`. Rows marked `network` need `HCLOUD_NETWORK=k8s`; the others pass with
 * or without it (the expected ingress lists the private IPs the load balancer has, if any), the `network-zone` row
 * then with a subnet in `us-east` for its load balancer to attach to.
 */
import { expect } from "bun:test";
import type { LoadBalancerStatus } from "../../../../kube/objects.ts";
import type { Certificate, LoadBalancer as EmulatedLB } from "../../../../sandbox/hcloud/state/types.ts";
import { SERVICE_UID_LABEL } from "../../api/load-balancers.ts";
import { A } from "../testing.ts";

/** What a row's annotations and check need to know of the world it runs in. */
export interface RowWorld {
  /** The ID of the uploaded certificate `web-cert`. */
  readonly certID: number;
  /** The server behind the one Node labelled `role=edge`. */
  readonly edgeServerID: number;
  /** The ID of the network `k8s`. */
  readonly net: number;
  /** How many cloud servers are Nodes. */
  readonly serverCount: number;
  /** The Service's UID and its (only) port's node port. */
  readonly uid: string;
  readonly nodePort: number;
  /** The project's certificates now. */
  certificates(): readonly Certificate[];
}

export interface AnnotationRow {
  /** The annotation's key after `load-balancer.hetzner.cloud/`. */
  readonly key: string;
  readonly annotations: (w: RowWorld) => Record<string, string>;
  /** Only read at creation: the Service has it from the start, there is no "without, then with". */
  readonly atCreation?: boolean;
  /** Needs `HCLOUD_NETWORK=k8s`. */
  readonly network?: boolean;
  /** Throws (an `expect` failure) unless the load balancer and the Service's status show the annotation. */
  readonly check: (lb: EmulatedLB, status: LoadBalancerStatus, w: RowWorld) => void;
}

const http = { [`${A}protocol`]: "http" };
const svc0 = (lb: EmulatedLB) => {
  const [s] = lb.services;
  if (!s) throw new Error("the load balancer has no service");
  return s;
};
const serverTargets = (lb: EmulatedLB) => lb.targets.flatMap((t) => (t.type === "server" ? [t] : []));
const privateIngress = (lb: EmulatedLB) => lb.private_net.map((n) => ({ ip: n.ip }));
/** The status of a load balancer with public IPv4 (and IPv6 unless `ipv6` is false) and its private IPs. */
const ingressOf = (lb: EmulatedLB, { ipv6 = true } = {}): LoadBalancerStatus => ({
  ingress: [{ ip: lb.public_net.ipv4.ip }, ...(ipv6 ? [{ ip: lb.public_net.ipv6.ip }] : []), ...privateIngress(lb)],
});

export const annotationRows: readonly AnnotationRow[] = [
  {
    key: "name",
    annotations: () => ({ [`${A}name`]: "web-lb" }),
    check: (lb) => expect(lb.name).toBe("web-lb"),
  },
  {
    key: "type",
    annotations: () => ({ [`${A}type`]: "lb21" }),
    check: (lb) => expect(lb.load_balancer_type.name).toBe("lb21"),
  },
  {
    key: "location",
    atCreation: true,
    annotations: () => ({ [`${A}location`]: "nbg1" }),
    check: (lb) => expect(lb.location.name).toBe("nbg1"),
  },
  {
    key: "network-zone",
    atCreation: true,
    annotations: () => ({ [`${A}location`]: "", [`${A}network-zone`]: "us-east" }),
    check: (lb) => expect(lb.location.network_zone).toBe("us-east"),
  },
  {
    key: "algorithm-type",
    annotations: () => ({ [`${A}algorithm-type`]: "least_connections" }),
    check: (lb) => expect(lb.algorithm.type).toBe("least_connections"),
  },
  {
    key: "protocol",
    annotations: () => http,
    check: (lb) => expect(svc0(lb).protocol).toBe("http"),
  },
  {
    key: "uses-proxyprotocol",
    annotations: () => ({ [`${A}uses-proxyprotocol`]: "true" }),
    check: (lb, status) => {
      expect(svc0(lb).proxyprotocol).toBe(true);
      expect(status.ingress?.map((i) => i.ipMode)).toEqual(ingressOf(lb).ingress?.map(() => "Proxy"));
    },
  },
  {
    key: "http-sticky-sessions",
    annotations: () => ({ ...http, [`${A}http-sticky-sessions`]: "true" }),
    check: (lb) => expect(svc0(lb).http?.sticky_sessions).toBe(true),
  },
  {
    key: "http-cookie-name",
    annotations: () => ({ ...http, [`${A}http-cookie-name`]: "SESSION" }),
    check: (lb) => expect(svc0(lb).http?.cookie_name).toBe("SESSION"),
  },
  {
    key: "http-cookie-lifetime",
    annotations: () => ({ ...http, [`${A}http-cookie-lifetime`]: "10m" }),
    check: (lb) => expect(svc0(lb).http?.cookie_lifetime).toBe(600),
  },
  {
    key: "http-timeout-idle",
    annotations: () => ({ ...http, [`${A}http-timeout-idle`]: "90s" }),
    check: (lb) => expect(svc0(lb).http?.timeout_idle).toBe(90),
  },
  {
    key: "http-redirect-http",
    // The API redirects only into an https listener.
    annotations: (w) => ({
      [`${A}protocol`]: "https",
      [`${A}http-certificates`]: String(w.certID),
      [`${A}http-redirect-http`]: "true",
    }),
    check: (lb) => expect(svc0(lb).http?.redirect_http).toBe(true),
  },
  {
    key: "http-certificates",
    annotations: () => ({ [`${A}protocol`]: "https", [`${A}http-certificates`]: "web-cert" }),
    check: (lb, _s, w) => expect(svc0(lb)).toMatchObject({ protocol: "https", http: { certificates: [w.certID] } }),
  },
  {
    key: "certificate-type",
    annotations: (w) => ({
      [`${A}protocol`]: "https",
      [`${A}certificate-type`]: "uploaded",
      [`${A}http-certificates`]: String(w.certID),
    }),
    check: (lb, _s, w) => expect(svc0(lb).http?.certificates).toEqual([w.certID]),
  },
  ...managedCertificateRows(),
  ...healthCheckRows(),
  {
    key: "ipv6-disabled",
    annotations: () => ({ [`${A}ipv6-disabled`]: "true" }),
    check: (lb, status) => expect(status).toEqual(ingressOf(lb, { ipv6: false })),
  },
  {
    key: "ipv4-rdns",
    annotations: () => ({ [`${A}ipv4-rdns`]: "lb.example.com" }),
    check: (lb) => expect(lb.public_net.ipv4.dns_ptr).toBe("lb.example.com"),
  },
  {
    key: "ipv6-rdns",
    annotations: () => ({ [`${A}ipv6-rdns`]: "lb6.example.com" }),
    check: (lb) => expect(lb.public_net.ipv6.dns_ptr).toBe("lb6.example.com"),
  },
  {
    key: "disable-public-network",
    network: true,
    annotations: () => ({ [`${A}disable-public-network`]: "true", [`${A}use-private-ip`]: "true" }),
    check: (lb, status) => {
      expect(lb.public_net.enabled).toBe(false);
      expect(status).toEqual({ ingress: privateIngress(lb) });
    },
  },
  {
    key: "disable-private-ingress",
    network: true,
    annotations: () => ({ [`${A}disable-private-ingress`]: "true" }),
    check: (lb, status) => {
      expect(lb.private_net).toHaveLength(1);
      expect(status.ingress?.map((i) => i.ip)).toEqual([lb.public_net.ipv4.ip, lb.public_net.ipv6.ip]);
    },
  },
  {
    key: "use-private-ip",
    network: true,
    annotations: () => ({ [`${A}use-private-ip`]: "true" }),
    check: (lb, _s, w) => {
      expect(serverTargets(lb)).toHaveLength(w.serverCount);
      expect(serverTargets(lb).every((t) => t.use_private_ip)).toBe(true);
    },
  },
  {
    key: "private-ipv4",
    network: true,
    annotations: () => ({ [`${A}private-ipv4`]: "10.0.1.50" }),
    check: (lb, status, w) => {
      expect(lb.private_net).toEqual([{ network: w.net, ip: "10.0.1.50" }]);
      expect(status.ingress?.at(-1)).toEqual({ ip: "10.0.1.50" });
    },
  },
  {
    key: "private-subnet-ip-range",
    network: true,
    // Attached already by the first sync (without it), so it only counts when attaching: shown at creation.
    atCreation: true,
    annotations: () => ({ [`${A}private-subnet-ip-range`]: "10.0.2.0/24" }),
    check: (lb) => expect(lb.private_net[0]?.ip).toStartWith("10.0.2."),
  },
  {
    key: "node-selector",
    annotations: () => ({ [`${A}node-selector`]: "role=edge" }),
    check: (lb, _s, w) => expect(serverTargets(lb).map((t) => t.server.id)).toEqual([w.edgeServerID]),
  },
  {
    key: "hostname",
    annotations: () => ({ [`${A}hostname`]: "lb.example.com" }),
    check: (_lb, status) => expect(status).toEqual({ ingress: [{ hostname: "lb.example.com" }] }),
  },
  ...["ipv4", "ipv6", "id"].map(
    (key): AnnotationRow => ({
      key,
      annotations: () => ({ [`${A}${key}`]: "not read at all" }),
      check: (lb, status) => expect(status).toEqual(ingressOf(lb)),
    }),
  ),
];

function managedCertificateRows(): AnnotationRow[] {
  const managed = { [`${A}protocol`]: "https", [`${A}certificate-type`]: "managed" };
  // The Service's own: other Services' managed certificates may share the project.
  const cert = (w: RowWorld) =>
    w.certificates().find((c) => c.type === "managed" && c.labels[SERVICE_UID_LABEL] === w.uid);
  return [
    {
      key: "http-managed-certificate-domains",
      annotations: () => ({ ...managed, [`${A}http-managed-certificate-domains`]: "example.com,*.example.com" }),
      check: (lb, _s, w) => {
        const c = cert(w);
        expect(c).toMatchObject({
          name: `ccm-managed-certificate-${w.uid}`,
          domain_names: ["example.com", "*.example.com"],
          labels: { [SERVICE_UID_LABEL]: w.uid },
        });
        expect(svc0(lb).http?.certificates).toEqual([c?.id as number]);
      },
    },
    {
      key: "http-managed-certificate-name",
      annotations: () => ({
        ...managed,
        [`${A}http-managed-certificate-domains`]: "example.com",
        [`${A}http-managed-certificate-name`]: "example-com",
      }),
      check: (_lb, _s, w) => expect(cert(w)?.name).toBe("example-com"),
    },
    {
      key: "http-managed-certificate-acme-staging",
      annotations: () => ({
        ...managed,
        [`${A}http-managed-certificate-domains`]: "example.com",
        [`${A}http-managed-certificate-acme-staging`]: "true",
      }),
      check: (_lb, _s, w) => expect(cert(w)?.labels["HC-Use-Staging-CA"]).toBe("true"),
    },
  ];
}

function healthCheckRows(): AnnotationRow[] {
  const httpCheck = { [`${A}health-check-protocol`]: "http" };
  const hc = (lb: EmulatedLB) => svc0(lb).health_check;
  return [
    {
      key: "health-check-protocol",
      annotations: () => httpCheck,
      check: (lb, _s, w) => expect(hc(lb)).toMatchObject({ protocol: "http", port: w.nodePort }),
    },
    {
      key: "health-check-port",
      annotations: () => ({ [`${A}health-check-port`]: "10256" }),
      check: (lb) => expect(hc(lb)).toMatchObject({ protocol: "tcp", port: 10256 }),
    },
    {
      key: "health-check-interval",
      annotations: () => ({ [`${A}health-check-interval`]: "5s" }),
      check: (lb) => expect(hc(lb).interval).toBe(5),
    },
    {
      key: "health-check-timeout",
      annotations: () => ({ [`${A}health-check-timeout`]: "3s" }),
      check: (lb) => expect(hc(lb).timeout).toBe(3),
    },
    {
      key: "health-check-retries",
      annotations: () => ({ [`${A}health-check-retries`]: "1" }),
      check: (lb) => expect(hc(lb).retries).toBe(1),
    },
    {
      key: "health-check-http-domain",
      annotations: () => ({ ...httpCheck, [`${A}health-check-http-domain`]: "example.com" }),
      check: (lb) => expect(hc(lb).http?.domain).toBe("example.com"),
    },
    {
      key: "health-check-http-path",
      annotations: () => ({ ...httpCheck, [`${A}health-check-http-path`]: "/healthz" }),
      check: (lb) => expect(hc(lb).http?.path).toBe("/healthz"),
    },
    {
      key: "health-check-http-validate-certificate",
      annotations: () => ({ ...httpCheck, [`${A}health-check-http-validate-certificate`]: "true" }),
      check: (lb) => expect(hc(lb).http?.tls).toBe(true),
    },
    {
      key: "http-status-codes",
      annotations: () => ({ ...httpCheck, [`${A}http-status-codes`]: "2??,301" }),
      check: (lb) => expect(hc(lb).http?.status_codes).toEqual(["2??", "301"]),
    },
  ];
}
