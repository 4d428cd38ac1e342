/**
 * The forwarding rules and the health check a Service asks for, as DO CCM's `buildForwardingRules`,
 * `buildRegionalNetworkForwardingRule` and `buildHealthCheck` build them. Pure; a refusal names the setting.
 */
import type { Service } from "../../../kube/objects.ts";
import type { DigitalOceanAnnotationValues } from "../annotations.ts";
import type { ForwardingRule, HealthCheck } from "../api/load-balancers.ts";
import { LoadBalancerSpecError } from "./errors.ts";

const KUBE_PROXY_HEALTH_PORT = 10256;

function servicePorts(service: Service) {
  const ports = service.spec?.ports ?? [];
  for (const p of ports) {
    if ((p.protocol ?? "TCP") !== "TCP" && p.protocol !== "UDP") {
      throw new LoadBalancerSpecError(`port ${p.port} is ${p.protocol}: only TCP and UDP ports can be load balanced`);
    }
  }
  return ports;
}

export function networkRules(service: Service): ForwardingRule[] {
  return servicePorts(service).map((p) => {
    const protocol = p.protocol === "UDP" ? "udp" : "tcp";
    return { entry_protocol: protocol, entry_port: p.port, target_protocol: protocol, target_port: p.port };
  });
}

export function regionalRules(
  service: Service,
  values: DigitalOceanAnnotationValues,
  certificateID: string | undefined,
): ForwardingRule[] {
  const http = values.httpPorts ?? [];
  const https = [...(values.tlsPorts ?? [])];
  const http2 = values.http2Ports ?? [];
  const all = [...http, ...https, ...http2];
  const shared = [...new Set(all.filter((p, i) => all.indexOf(p) !== i))].sort((a, b) => a - b);
  if (shared.length > 0) {
    throw new LoadBalancerSpecError(
      `port(s) ${shared.join(", ")} are in more than one of do-loadbalancer-http-ports, -tls-ports and -http2-ports`,
    );
  }
  const passthrough = values.tlsPassthrough;
  if (certificateID !== undefined && passthrough) {
    throw new LoadBalancerSpecError(
      "set either a certificate (do-loadbalancer-certificate-id or -name) or do-loadbalancer-tls-passthrough, not both",
    );
  }
  if ((certificateID !== undefined || passthrough) && https.length === 0 && !http2.includes(443)) https.push(443);
  const rules: ForwardingRule[] = [];
  for (const p of servicePorts(service)) {
    let protocol: string = values.protocol;
    if (http.includes(p.port)) protocol = "http";
    if (https.includes(p.port)) protocol = "https";
    if (http2.includes(p.port)) protocol = "http2";
    if (p.protocol === "UDP") protocol = "udp";
    const nodePort = p.nodePort;
    if (nodePort === undefined) {
      throw new LoadBalancerSpecError(`port ${p.port} has no node port yet (a REGIONAL load balancer forwards to it)`);
    }
    if (protocol === "https" || protocol === "http2") {
      if (certificateID === undefined && !passthrough) {
        throw new LoadBalancerSpecError(
          `port ${p.port} is ${protocol}: set do-loadbalancer-certificate-id (or -name) or do-loadbalancer-tls-passthrough`,
        );
      }
      rules.push(
        passthrough
          ? {
              entry_protocol: protocol,
              entry_port: p.port,
              target_protocol: protocol,
              target_port: nodePort,
              tls_passthrough: true,
            }
          : {
              entry_protocol: protocol,
              entry_port: p.port,
              target_protocol: "http",
              target_port: nodePort,
              certificate_id: certificateID as string,
            },
      );
    } else {
      rules.push({ entry_protocol: protocol, entry_port: p.port, target_protocol: protocol, target_port: nodePort });
    }
  }
  if (values.http3Port !== undefined) {
    if (passthrough) throw new LoadBalancerSpecError("do-loadbalancer-http3-port does not work with TLS passthrough");
    if (certificateID === undefined) {
      throw new LoadBalancerSpecError(
        "do-loadbalancer-http3-port needs a certificate (do-loadbalancer-certificate-id or -name)",
      );
    }
    const p = (service.spec?.ports ?? []).find((sp) => sp.port === values.http3Port);
    if (p) {
      rules.push({
        entry_protocol: "http3",
        entry_port: p.port,
        target_protocol: "http",
        target_port: p.nodePort ?? 0,
        certificate_id: certificateID,
      });
    }
  }
  return rules;
}

export function healthCheck(service: Service, values: DigitalOceanAnnotationValues): HealthCheck {
  const timing = {
    check_interval_seconds: values.healthCheckInterval,
    response_timeout_seconds: values.healthCheckTimeout,
    unhealthy_threshold: values.unhealthyThreshold,
    healthy_threshold: values.healthyThreshold,
  };
  if (values.overrideHealthCheck) {
    const path = values.healthCheckPath ?? "";
    const protocol = values.healthCheckProtocol ?? (path !== "" ? "http" : "tcp");
    return { protocol, port: healthCheckNodePort(service, values.healthCheckPort), path, ...timing };
  }
  const local = service.spec?.externalTrafficPolicy === "Local" && service.spec.healthCheckNodePort;
  return local
    ? {
        protocol: "http",
        port: service.spec?.healthCheckNodePort as number,
        path: "/healthz",
        proxy_protocol: false,
        ...timing,
      }
    : { protocol: "http", port: KUBE_PROXY_HEALTH_PORT, path: "/healthz", proxy_protocol: false, ...timing };
}

function healthCheckNodePort(service: Service, port: number | undefined): number {
  const ports = service.spec?.ports ?? [];
  const chosen =
    port === undefined ? ports.find((p) => (p.protocol ?? "TCP") === "TCP") : ports.find((p) => p.port === port);
  if (!chosen) throw new LoadBalancerSpecError("the Service has no TCP port for the health check");
  if (chosen.nodePort === undefined) {
    throw new LoadBalancerSpecError(`port ${chosen.port} has no node port yet for the health check to probe`);
  }
  return chosen.nodePort;
}
