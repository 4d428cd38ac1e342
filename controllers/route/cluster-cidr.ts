/**
 * The `--cluster-cidr` flag, with upstream's exact start-up errors (upstream: app/core.go `startRouteController`).
 * CIDRs are read as upstream reads them (`net/cidr.ts`).
 */
import { type Cidr, parseCIDR } from "../../net/cidr.ts";
import { goQuote } from "../../platform/go-format.ts";

/** `--cluster-cidr` cannot be used; the message is upstream's start error, word for word. */
export class ClusterCIDRError extends Error {
  override readonly name = "ClusterCIDRError";
}

/**
 * Parses `--cluster-cidr` as upstream's route controller start does: trim, split on `,` (pieces are not trimmed),
 * every piece a CIDR; more than one must be dual stack; at most two. Throws `ClusterCIDRError` with upstream's
 * exact messages (including the unclosed parenthesis). An empty value fails like any unparsable piece.
 */
export function parseClusterCIDRs(value: string): Cidr[] {
  const cidrs = value
    .trim()
    .split(",")
    .map((piece) => {
      try {
        return parseCIDR(piece);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        throw new ClusterCIDRError(`failed to parse cidr value:${goQuote(piece)} with error:${detail}`, {
          cause: err,
        });
      }
    });
  const dualStack = cidrs.some((c) => c.family === 4) && cidrs.some((c) => c.family === 6);
  if (cidrs.length > 1 && !dualStack) {
    throw new ClusterCIDRError(
      `len of ClusterCIDRs==${cidrs.length} and they are not configured as dual stack (at least one from each IPFamily`,
    );
  }
  if (cidrs.length > 2) {
    throw new ClusterCIDRError(`length of clusterCIDRs is:${cidrs.length} more than max allowed of 2`);
  }
  return cidrs;
}
