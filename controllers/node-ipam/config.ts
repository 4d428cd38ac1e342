/**
 * The node IPAM flags, read as upstream's node IPAM start reads them (upstream: cmd/kube-controller-manager/app/core.go
 * `setNodeCIDRMaskSizes` and pkg/controller/nodeipam/node_ipam_controller.go `NewNodeIpamController`): one node mask
 * size per cluster CIDR, with upstream's defaults and its start errors, word for word.
 */
import { type Cidr, formatCIDR, parseCIDR } from "../../net/cidr.ts";
import { parseClusterCIDRs } from "../route/cluster-cidr.ts";
import { CidrSet, CidrSetError } from "./cidr-set.ts";

export const DEFAULT_NODE_MASK_IPV4 = 24;
export const DEFAULT_NODE_MASK_IPV6 = 64;

/** `--cidr-allocator-type` values: ours runs the range allocator; the cloud one is the provider's. */
export const CidrAllocatorTypes = { range: "RangeAllocator", cloud: "CloudAllocator" } as const;

export interface NodeIpamFlags {
  readonly clusterCIDR: string;
  readonly cidrAllocatorType: string;
  /** 0 means "not given", as upstream's int32 flags. */
  readonly nodeCIDRMaskSize: number;
  readonly nodeCIDRMaskSizeIPv4: number;
  readonly nodeCIDRMaskSizeIPv6: number;
  /** `--service-cluster-ip-range`: up to two CIDRs, comma-separated; empty for none. */
  readonly serviceClusterIPRange: string;
}

export interface NodeIpamConfig {
  readonly clusterCIDRs: readonly Cidr[];
  /** One per cluster CIDR, in the same order. */
  readonly nodeMaskSizes: readonly number[];
  readonly serviceCIDRs: readonly Cidr[];
}

export class NodeIpamConfigError extends Error {
  override readonly name = "NodeIpamConfigError";
}

/** Node mask sizes for the cluster CIDRs, with upstream's rules for which flag may be used when. */
export function nodeMaskSizes(flags: NodeIpamFlags, clusterCIDRs: readonly Cidr[]): number[] {
  const bySize = (v4: number, v6: number) => clusterCIDRs.map((c) => (c.family === 6 ? v6 : v4));
  const { nodeCIDRMaskSize: any, nodeCIDRMaskSizeIPv4: v4, nodeCIDRMaskSizeIPv6: v6 } = flags;
  if (clusterCIDRs.length > 1) {
    if (any !== 0)
      throw new NodeIpamConfigError("usage of --node-cidr-mask-size is not allowed with dual-stack clusters");
    return bySize(v4 || DEFAULT_NODE_MASK_IPV4, v6 || DEFAULT_NODE_MASK_IPV6);
  }
  if (any !== 0) {
    if (v4 !== 0 || v6 !== 0) {
      throw new NodeIpamConfigError(
        "usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags",
      );
    }
    return bySize(any, any);
  }
  const singleStackIPv6 = clusterCIDRs[0]?.family === 6;
  if (v4 !== 0 && singleStackIPv6) {
    throw new NodeIpamConfigError("usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster");
  }
  if (v6 !== 0 && !singleStackIPv6) {
    throw new NodeIpamConfigError("usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster");
  }
  return bySize(v4 || DEFAULT_NODE_MASK_IPV4, v6 || DEFAULT_NODE_MASK_IPV6);
}

/** `--service-cluster-ip-range`: at most two CIDRs (upstream's option validation). */
export function parseServiceCIDRs(value: string): Cidr[] {
  if (value.trim() === "") return [];
  const pieces = value.split(",");
  if (pieces.length > 2) {
    throw new NodeIpamConfigError("--service-cluster-ip-range can not contain more than two entries");
  }
  return pieces.map((piece) => {
    try {
      return parseCIDR(piece.trim());
    } catch (err) {
      throw new NodeIpamConfigError(`--service-cluster-ip-range is invalid: ${(err as Error).message}`, { cause: err });
    }
  });
}

/**
 * Everything the range allocator needs, checked as a whole: throws `NodeIpamConfigError` (or the route controller's
 * `ClusterCIDRError` for an unparsable `--cluster-cidr`) with the first problem.
 */
export function nodeIpamConfig(flags: NodeIpamFlags): NodeIpamConfig {
  if (flags.cidrAllocatorType !== CidrAllocatorTypes.range && flags.cidrAllocatorType !== CidrAllocatorTypes.cloud) {
    throw new NodeIpamConfigError(`invalid CIDR allocator type: ${flags.cidrAllocatorType}`);
  }
  if (flags.clusterCIDR.trim() === "") {
    throw new NodeIpamConfigError("Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set");
  }
  const clusterCIDRs = parseClusterCIDRs(flags.clusterCIDR);
  const masks = nodeMaskSizes(flags, clusterCIDRs);
  clusterCIDRs.forEach((cidr, i) => {
    const mask = masks[i] ?? 0;
    if (cidr.prefix > mask) {
      throw new NodeIpamConfigError(
        "Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family",
      );
    }
    try {
      new CidrSet(cidr, mask);
    } catch (err) {
      if (!(err instanceof CidrSetError)) throw err;
      throw new NodeIpamConfigError(`cluster CIDR ${formatCIDR(cidr)}: ${err.message}`, { cause: err });
    }
  });
  return { clusterCIDRs, nodeMaskSizes: masks, serviceCIDRs: parseServiceCIDRs(flags.serviceClusterIPRange) };
}
