import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { backendSchema, frontendSchema, healthCheckBody, loadBalancerSchema, wireDuration } from "./lb-schemas.ts";

describe("answers as the provider reads them", () => {
  test("unknown fields are ignored, null optionals read as unset, durations as milliseconds", () => {
    const backend = v.parse(backendSchema, {
      id: "b",
      name: "u_tcp_30080",
      forward_protocol: "tcp",
      forward_port: 30080,
      forward_port_algorithm: "roundrobin",
      sticky_sessions: "none",
      sticky_sessions_cookie_name: "",
      proxy_protocol: "proxy_protocol_none",
      on_marked_down_action: "on_marked_down_action_none",
      timeout_server: "0.500s",
      timeout_queue: null,
      max_connections: null,
      health_check: {
        port: 30080,
        check_max_retries: 5,
        check_delay: "5s",
        http_config: { uri: "/", method: "GET", code: 200 },
      },
      pool: null,
      brand_new_field: { anything: true },
    });
    expect(backend).toMatchObject({
      timeoutServerMs: 500,
      timeoutQueueMs: undefined,
      maxConnections: undefined,
      pool: [],
    });
    expect(backend.healthCheck).toMatchObject({
      kind: "http",
      delayMs: 5000,
      http: { uri: "/", code: 200, hostHeader: "" },
    });
  });

  test("a load balancer's type is lower-cased, its IPs read with their family", () => {
    const lb = v.parse(loadBalancerSchema, {
      id: "l",
      zone: "fr-par-1",
      name: "n",
      status: "ready",
      type: "LB-S",
      ip: [{ id: "i", ip_address: "2001:db8::1", lb_id: "l", reverse: "r" }],
    });
    expect(lb).toMatchObject({ type: "lb-s", ips: [{ ipv6: true, lbId: "l", reverse: "r" }], tags: [] });
  });

  test("a frontend's backend is read by its ID", () => {
    const f = v.parse(frontendSchema, { id: "f", name: "n", inbound_port: 80, backend: { id: "b", extra: 1 } });
    expect(f).toMatchObject({ backendId: "b", certificateIds: [], enableHttp3: false });
  });

  test("an answer missing what the provider needs is refused", () => {
    expect(() => v.parse(loadBalancerSchema, { id: "l", name: "n" })).toThrow();
  });
});

describe("what the provider sends", () => {
  test("durations in the API's seconds form; one health-check config", () => {
    expect(wireDuration(500)).toBe("0.5s");
    expect(
      healthCheckBody({ port: 1, maxRetries: 3, sendProxy: false, kind: "pgsql", user: "pg", delayMs: 2000 }),
    ).toEqual({
      port: 1,
      check_max_retries: 3,
      check_send_proxy: false,
      check_delay: "2s",
      pgsql_config: { user: "pg" },
    });
  });
});
