/**
 * Octavia's answers (Load Balancer API v2, "Load Balancers", "Listeners", "Pools", "Members", "Health Monitors"):
 * every field the reference lists, from the emulator's records. A child's `provisioning_status` follows its load
 * balancer's, which is what a client waits on.
 */

import type { HealthMonitor, Listener, LoadBalancer, Member, Pool } from "./octavia-state.ts";
import type { Call } from "./server.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "");

function common(call: Call, lb: LoadBalancer) {
  const project = call.emulator.project.id;
  return {
    project_id: project,
    tenant_id: project,
    admin_state_up: true,
    provisioning_status: lb.status,
    operating_status: lb.status === "ACTIVE" ? "ONLINE" : lb.status === "ERROR" ? "ERROR" : "OFFLINE",
    created_at: iso(lb.created),
    updated_at: iso(call.world.now()),
  };
}

export function loadBalancerBody(call: Call, lb: LoadBalancer) {
  return {
    ...common(call, lb),
    id: lb.id,
    name: lb.name,
    description: lb.description,
    provider: lb.provider,
    vip_address: lb.vipAddress,
    vip_port_id: lb.vipPortID,
    vip_subnet_id: lb.vipSubnetID,
    vip_network_id: lb.vipNetworkID,
    vip_qos_policy_id: null,
    flavor_id: lb.flavorID,
    availability_zone: lb.availabilityZone,
    listeners: lb.listeners.map((l) => ({ id: l.id })),
    pools: lb.pools.map((p) => ({ id: p.id })),
    tags: lb.tags,
  };
}

export function listenerBody(call: Call, lb: LoadBalancer, l: Listener) {
  return {
    ...common(call, lb),
    id: l.id,
    name: l.name,
    description: "",
    protocol: l.protocol,
    protocol_port: l.protocolPort,
    connection_limit: l.connectionLimit,
    default_pool_id: l.defaultPoolID,
    default_tls_container_ref: l.defaultTlsContainerRef,
    sni_container_refs: [],
    loadbalancers: [{ id: lb.id }],
    insert_headers: l.insertHeaders,
    timeout_client_data: l.timeouts.clientData,
    timeout_member_connect: l.timeouts.memberConnect,
    timeout_member_data: l.timeouts.memberData,
    timeout_tcp_inspect: l.timeouts.tcpInspect,
    allowed_cidrs: l.allowedCIDRs.length === 0 ? null : l.allowedCIDRs,
    l7policies: [],
    tags: l.tags,
  };
}

export function poolBody(call: Call, lb: LoadBalancer, p: Pool) {
  return {
    ...common(call, lb),
    id: p.id,
    name: p.name,
    description: "",
    protocol: p.protocol,
    lb_algorithm: p.lbAlgorithm,
    session_persistence: p.sessionPersistence,
    listeners: p.listenerID ? [{ id: p.listenerID }] : [],
    loadbalancers: [{ id: lb.id }],
    members: p.members.map((m) => ({ id: m.id })),
    healthmonitor_id: p.monitor?.id ?? null,
    tags: [],
  };
}

export function memberBody(call: Call, lb: LoadBalancer, m: Member) {
  return {
    ...common(call, lb),
    operating_status: "NO_MONITOR",
    id: m.id,
    name: m.name,
    address: m.address,
    protocol_port: m.protocolPort,
    subnet_id: m.subnetID,
    weight: m.weight,
    backup: false,
    monitor_address: null,
    monitor_port: m.monitorPort,
    tags: [],
  };
}

export function monitorBody(call: Call, lb: LoadBalancer, pool: Pool, m: HealthMonitor) {
  return {
    ...common(call, lb),
    id: m.id,
    name: m.name,
    type: m.type,
    delay: m.delay,
    timeout: m.timeout,
    max_retries: m.maxRetries,
    max_retries_down: m.maxRetriesDown,
    pools: [{ id: pool.id }],
    ...(m.type.startsWith("HTTP")
      ? { http_method: m.httpMethod ?? "GET", url_path: m.urlPath ?? "/", expected_codes: m.expectedCodes ?? "200" }
      : {}),
    tags: [],
  };
}
