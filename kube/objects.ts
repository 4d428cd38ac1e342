/**
 * The Kubernetes objects this project reads and writes, typed as they travel on the wire.
 *
 * The shapes come from `@kubernetes/client-node`'s generated models (so every field is known), mapped through
 * `Wire<T>`: those models declare timestamps as `Date`, but our HTTP layer hands out parsed JSON, where a
 * timestamp is an RFC 3339 string. Typing them as strings keeps the compiler honest about that.
 */
import type {
  CoreV1Event,
  V1ConfigMap,
  V1Lease,
  V1LoadBalancerIngress,
  V1LoadBalancerStatus,
  V1Namespace,
  V1Node,
  V1NodeAddress,
  V1NodeCondition,
  V1ObjectMeta,
  V1ObjectReference,
  V1Secret,
  V1Service,
  V1ServicePort,
  V1Status,
  V1Taint,
} from "@kubernetes/client-node";

/** `T` with every `Date` replaced by the string it is on the wire. */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer E)[]
    ? Wire<E>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type Node = Wire<V1Node>;
export type Service = Wire<V1Service>;
export type ServicePort = Wire<V1ServicePort>;
export type NodeAddress = Wire<V1NodeAddress>;
export type NodeCondition = Wire<V1NodeCondition>;
export type Taint = Wire<V1Taint>;
export type LoadBalancerStatus = Wire<V1LoadBalancerStatus>;
export type LoadBalancerIngress = Wire<V1LoadBalancerIngress>;
export type ObjectMeta = Wire<V1ObjectMeta>;
export type ObjectReference = Wire<V1ObjectReference>;
export type Event = Wire<CoreV1Event>;
export type Lease = Wire<V1Lease>;
export type ConfigMap = Wire<V1ConfigMap>;
export type Secret = Wire<V1Secret>;
export type Namespace = Wire<V1Namespace>;
export type Status = Wire<V1Status>;

/** Any object with metadata, as informers and the client handle them. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Node address types, exactly as the API spells them. */
export const NodeAddressType = {
  Hostname: "Hostname",
  InternalIP: "InternalIP",
  ExternalIP: "ExternalIP",
  InternalDNS: "InternalDNS",
  ExternalDNS: "ExternalDNS",
} as const;
