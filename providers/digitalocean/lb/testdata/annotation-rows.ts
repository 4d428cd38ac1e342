/**
 * One row per annotation DO CCM reads: what a Service sets and how the emulated load balancer (or the Service's
 * status) must then look. Rows marked `atCreation` set what the API reads only when it creates a load balancer.
 */

import { expect } from "bun:test";
import type { LoadBalancerStatus } from "../../../../kube/objects.ts";
import type { LoadBalancer } from "../../../../sandbox/digitalocean/state/load-balancers.ts";
import { annotationPrefix as A, DISOWN_ANNOTATION } from "../../annotations.ts";

export interface RowWorld {
  readonly certID: string;
}

export interface AnnotationRow {
  /** The annotation under test (its whole key). */
  readonly key: string;
  readonly annotations: (w: RowWorld) => Record<string, string>;
  readonly atCreation?: boolean;
  readonly check: (lb: LoadBalancer, status: LoadBalancerStatus, w: RowWorld) => void;
}

const rules = (lb: LoadBalancer) =>
  lb.spec.forwarding_rules.map(
    (r) =>
      `${r.entry_protocol}:${r.entry_port}→${r.target_protocol}:${r.target_port}${r.certificate_id ? "+cert" : ""}${r.tls_passthrough ? "+passthrough" : ""}`,
  );

const cert = (w: RowWorld) => ({ [`${A}certificate-id`]: w.certID });
const override = { [`${A}override-health-check`]: "" };
const cookies = {
  [`${A}sticky-sessions-type`]: "cookies",
  [`${A}sticky-sessions-cookie-name`]: "DO-LB",
  [`${A}sticky-sessions-cookie-ttl`]: "300",
};

export const annotationRows: readonly AnnotationRow[] = [
  {
    key: `${A}name`,
    annotations: () => ({ [`${A}name`]: "web-lb" }),
    check: (lb) => expect(lb.spec.name).toBe("web-lb"),
  },
  {
    key: `${A}protocol`,
    annotations: () => ({ [`${A}protocol`]: "http" }),
    check: (lb) => expect(rules(lb)).toEqual(["http:80→http:30080", "http:443→http:30443"]),
  },
  {
    key: `${A}healthcheck-path`,
    annotations: () => ({ ...override, [`${A}healthcheck-path`]: "/ready" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ protocol: "http", path: "/ready", port: 30080 }),
  },
  {
    key: `${A}healthcheck-port`,
    annotations: () => ({ ...override, [`${A}healthcheck-port`]: "443" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ protocol: "tcp", port: 30443 }),
  },
  {
    key: `${A}healthcheck-protocol`,
    annotations: () => ({ ...override, [`${A}healthcheck-protocol`]: "https" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ protocol: "https", port: 30080 }),
  },
  {
    key: `${A}override-health-check`,
    annotations: () => override,
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ protocol: "tcp", port: 30080, path: "" }),
  },
  {
    key: `${A}healthcheck-check-interval-seconds`,
    annotations: () => ({ [`${A}healthcheck-check-interval-seconds`]: "10" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ check_interval_seconds: 10 }),
  },
  {
    key: `${A}healthcheck-response-timeout-seconds`,
    annotations: () => ({ [`${A}healthcheck-response-timeout-seconds`]: "10" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ response_timeout_seconds: 10 }),
  },
  {
    key: `${A}healthcheck-unhealthy-threshold`,
    annotations: () => ({ [`${A}healthcheck-unhealthy-threshold`]: "7" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ unhealthy_threshold: 7 }),
  },
  {
    key: `${A}healthcheck-healthy-threshold`,
    annotations: () => ({ [`${A}healthcheck-healthy-threshold`]: "2" }),
    check: (lb) => expect(lb.spec.health_check).toMatchObject({ healthy_threshold: 2 }),
  },
  {
    key: `${A}http-ports`,
    annotations: () => ({ [`${A}http-ports`]: "80" }),
    check: (lb) => expect(rules(lb)).toEqual(["http:80→http:30080", "tcp:443→tcp:30443"]),
  },
  {
    key: `${A}tls-ports`,
    annotations: (w) => ({ ...cert(w), [`${A}tls-ports`]: "443" }),
    check: (lb) => expect(rules(lb)).toEqual(["tcp:80→tcp:30080", "https:443→http:30443+cert"]),
  },
  {
    key: `${A}http2-ports`,
    annotations: (w) => ({ ...cert(w), [`${A}http2-ports`]: "443" }),
    check: (lb) => expect(rules(lb)).toEqual(["tcp:80→tcp:30080", "http2:443→http:30443+cert"]),
  },
  {
    key: `${A}http3-port`,
    annotations: (w) => ({ ...cert(w), [`${A}http3-port`]: "443" }),
    check: (lb) =>
      expect(rules(lb)).toEqual(["tcp:80→tcp:30080", "https:443→http:30443+cert", "http3:443→http:30443+cert"]),
  },
  {
    key: `${A}tls-passthrough`,
    annotations: () => ({ [`${A}tls-passthrough`]: "true" }),
    check: (lb) => expect(rules(lb)).toEqual(["tcp:80→tcp:30080", "https:443→https:30443+passthrough"]),
  },
  {
    key: `${A}certificate-id`,
    annotations: cert,
    check: (lb, _s, w) => {
      expect(rules(lb)).toEqual(["tcp:80→tcp:30080", "https:443→http:30443+cert"]);
      expect(lb.spec.forwarding_rules[1]?.certificate_id).toBe(w.certID);
    },
  },
  {
    key: `${A}certificate-name`,
    annotations: () => ({ [`${A}certificate-name`]: "web-cert" }),
    check: (lb, _s, w) => expect(lb.spec.forwarding_rules[1]?.certificate_id).toBe(w.certID),
  },
  {
    key: `${A}hostname`,
    annotations: () => ({ [`${A}hostname`]: "LB.Example.com" }),
    check: (_lb, status) => expect(status).toEqual({ ingress: [{ hostname: "lb.example.com" }] }),
  },
  {
    key: `${A}algorithm`,
    annotations: () => ({ [`${A}algorithm`]: "least_connections" }),
    atCreation: true,
    check: (lb) => expect(lb.spec.algorithm).toBe("least_connections"),
  },
  {
    key: `${A}size-slug`,
    annotations: () => ({ [`${A}size-slug`]: "lb-medium" }),
    check: (lb) => expect(lb.spec.size).toBe("lb-medium"),
  },
  {
    key: `${A}size-unit`,
    annotations: () => ({ [`${A}size-unit`]: "3" }),
    check: (lb) => expect(lb.spec.size_unit).toBe(3),
  },
  {
    key: `${A}sticky-sessions-type`,
    annotations: () => cookies,
    check: (lb) =>
      expect(lb.spec.sticky_sessions).toEqual({ type: "cookies", cookie_name: "DO-LB", cookie_ttl_seconds: 300 }),
  },
  {
    key: `${A}sticky-sessions-cookie-name`,
    annotations: () => ({ ...cookies, [`${A}sticky-sessions-cookie-name`]: "SRV" }),
    check: (lb) => expect(lb.spec.sticky_sessions).toMatchObject({ cookie_name: "SRV" }),
  },
  {
    key: `${A}sticky-sessions-cookie-ttl`,
    annotations: () => ({ ...cookies, [`${A}sticky-sessions-cookie-ttl`]: "60" }),
    check: (lb) => expect(lb.spec.sticky_sessions).toMatchObject({ cookie_ttl_seconds: 60 }),
  },
  {
    key: `${A}redirect-http-to-https`,
    annotations: () => ({ [`${A}redirect-http-to-https`]: "true" }),
    check: (lb) => expect(lb.spec.redirect_http_to_https).toBe(true),
  },
  {
    key: `${A}disable-lets-encrypt-dns-records`,
    annotations: () => ({ [`${A}disable-lets-encrypt-dns-records`]: "true" }),
    check: (lb) => expect(lb.spec.disable_lets_encrypt_dns_records).toBe(true),
  },
  {
    key: `${A}enable-proxy-protocol`,
    annotations: () => ({ [`${A}enable-proxy-protocol`]: "true" }),
    check: (lb, status) => {
      expect(lb.spec.enable_proxy_protocol).toBe(true);
      expect(status).toEqual({ ingress: [{ ip: lb.ip, ipMode: "Proxy" }] });
    },
  },
  {
    key: `${A}enable-backend-keepalive`,
    annotations: () => ({ [`${A}enable-backend-keepalive`]: "true" }),
    check: (lb) => expect(lb.spec.enable_backend_keepalive).toBe(true),
  },
  {
    key: DISOWN_ANNOTATION,
    annotations: () => ({ [DISOWN_ANNOTATION]: "true", [`${A}name`]: "renamed", [`${A}size-unit`]: "5" }),
    check: (lb) => {
      expect(lb.spec.name).not.toBe("renamed");
      expect(lb.spec.size_unit).not.toBe(5);
    },
  },
  {
    key: `${A}http-idle-timeout-seconds`,
    annotations: () => ({ [`${A}http-idle-timeout-seconds`]: "120" }),
    check: (lb) => expect(lb.spec.http_idle_timeout_seconds).toBe(120),
  },
  {
    key: `${A}deny-rules`,
    annotations: () => ({ [`${A}deny-rules`]: "cidr:10.0.0.0/8, ip:198.51.100.7" }),
    check: (lb) => expect(lb.spec.firewall).toEqual({ allow: [], deny: ["cidr:10.0.0.0/8", "ip:198.51.100.7"] }),
  },
  {
    key: `${A}allow-rules`,
    annotations: () => ({ [`${A}allow-rules`]: "cidr:192.0.2.0/24" }),
    check: (lb) => expect(lb.spec.firewall).toEqual({ allow: ["cidr:192.0.2.0/24"], deny: [] }),
  },
  {
    key: `${A}type`,
    annotations: () => ({ [`${A}type`]: "REGIONAL_NETWORK" }),
    atCreation: true,
    check: (lb) => {
      expect(lb.spec.type).toBe("REGIONAL_NETWORK");
      expect(rules(lb)).toEqual(["tcp:80→tcp:80", "tcp:443→tcp:443"]);
    },
  },
  {
    key: `${A}network`,
    annotations: () => ({ [`${A}network`]: "INTERNAL" }),
    atCreation: true,
    check: (lb) => {
      expect(lb.spec.network).toBe("INTERNAL");
      expect(lb.spec.network_stack).toBe("IPV4");
    },
  },
  {
    key: `${A}network-stack`,
    annotations: () => ({ [`${A}network-stack`]: "IPV4" }),
    atCreation: true,
    check: (lb) => expect(lb.spec.network_stack).toBe("IPV4"),
  },
  {
    key: `${A}ip`,
    annotations: () => ({ [`${A}ip`]: "198.51.100.200" }),
    atCreation: true,
    check: (lb, status) => {
      expect(lb.ip).toBe("198.51.100.200");
      expect(status).toEqual({ ingress: [{ ip: "198.51.100.200" }] });
    },
  },
  {
    key: `${A}subnet-uuid`,
    annotations: () => ({ [`${A}subnet-uuid`]: "3f0e0a40-1b2c-4d3e-8f4a-5b6c7d8e9f00" }),
    atCreation: true,
    check: (lb) => expect(lb.spec.vpc_subnet_uuid).toBe("3f0e0a40-1b2c-4d3e-8f4a-5b6c7d8e9f00"),
  },
];
