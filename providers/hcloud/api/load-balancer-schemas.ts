/**
 * The Hetzner Cloud API's load balancer, written from the public API documentation: what the provider reads of it,
 * in its own shape. Unknown fields are ignored and optional ones tolerated (missing, or `null`), so a field the API
 * drops or adds breaks nothing that does not need it.
 */
import * as v from "valibot";

const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const protocol = v.picklist(["tcp", "http", "https"]);
/** A list or map the API may leave out or send as `null`: empty then. */
const orEmpty = <S extends v.GenericSchema>(schema: S, empty: v.InferOutput<S>) =>
  v.pipe(
    v.optional(v.nullable(schema), null),
    v.transform((x): v.InferOutput<S> => x ?? empty),
  );
const text = orEmpty(v.string(), "");

const healthCheck = v.object({
  protocol,
  port: v.number(),
  interval: v.number(),
  timeout: v.number(),
  retries: v.number(),
  http: v.optional(
    v.nullable(
      v.object({
        domain: v.optional(v.nullable(v.string()), null),
        path: v.optional(v.string(), "/"),
        response: text,
        status_codes: orEmpty(v.array(v.string()), []),
        tls: v.optional(v.boolean(), false),
      }),
    ),
    null,
  ),
});

const service = v.object({
  protocol,
  listen_port: v.number(),
  destination_port: v.number(),
  proxyprotocol: v.optional(v.boolean(), false),
  http: v.optional(
    v.nullable(
      v.object({
        cookie_name: text,
        cookie_lifetime: v.optional(v.number(), 0),
        certificates: orEmpty(v.array(v.number()), []),
        redirect_http: v.optional(v.boolean(), false),
        sticky_sessions: v.optional(v.boolean(), false),
        timeout_idle: v.optional(v.number(), 0),
      }),
    ),
    null,
  ),
  health_check: v.optional(v.nullable(healthCheck), null),
});

/** A target; a type this client does not know yet is kept as `other`, so the rest of the load balancer still reads. */
const target = v.variant("type", [
  v.object({
    type: v.literal("server"),
    server: v.object({ id }),
    use_private_ip: v.optional(v.boolean(), false),
  }),
  v.object({
    type: v.literal("label_selector"),
    label_selector: v.object({ selector: v.string() }),
    use_private_ip: v.optional(v.boolean(), false),
  }),
  v.object({ type: v.literal("ip"), ip: v.object({ ip: v.string() }) }),
]);

const address = v.optional(v.nullable(v.object({ ip: v.optional(v.nullable(v.string()), null), dns_ptr: text })), null);

export const loadBalancerSchema = v.object({
  id,
  name: v.string(),
  labels: orEmpty(v.record(v.string(), v.string()), {}),
  location: v.optional(
    v.nullable(v.object({ name: v.string(), network_zone: v.optional(v.nullable(v.string()), null) })),
    null,
  ),
  /**
   * `max_targets`: how many targets the type holds (read so the provider does not send one over the limit);
   * `deprecation`: set while the type is phased out (lb/type-warnings.ts).
   */
  load_balancer_type: v.object({
    name: v.string(),
    max_targets: v.optional(v.nullable(v.number()), null),
    deprecation: v.optional(v.nullable(v.object({ announced: v.string(), unavailable_after: v.string() })), null),
  }),
  algorithm: v.optional(v.nullable(v.object({ type: v.string() })), null),
  public_net: v.optional(
    v.nullable(v.object({ enabled: v.optional(v.boolean(), true), ipv4: address, ipv6: address })),
    null,
  ),
  private_net: orEmpty(v.array(v.object({ network: id, ip: v.string() })), []),
  services: orEmpty(v.array(service), []),
  targets: orEmpty(v.array(v.union([target, v.looseObject({ type: v.string() })])), []),
});

export type CloudLoadBalancer = v.InferOutput<typeof loadBalancerSchema>;
export type CloudLBService = v.InferOutput<typeof service>;
export type CloudLBTarget = NonNullable<CloudLoadBalancer["targets"]>[number];
