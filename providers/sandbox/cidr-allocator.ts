/**
 * The sandbox cloud's pod ranges (upstream's `CloudAllocator` node IPAM type): a machine's `podCIDRs`, which the
 * cloud routes to it, become its Node's `spec.podCIDRs` under `--cidr-allocator-type=CloudAllocator`.
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CidrAllocator } from "../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../errors.ts";
import type { SandboxApi } from "./api/client.ts";
import { parseProviderID } from "./provider-id.ts";

export function createCidrAllocator(api: SandboxApi) {
  return {
    async podCIDRs(ctx: CallContext, node: Node): Promise<readonly string[]> {
      const providerID = node.spec?.providerID ?? "";
      const op = `sandbox/cidr-allocator.podCIDRs ${providerID}`;
      let machine: Awaited<ReturnType<SandboxApi["getMachine"]>>;
      try {
        machine = await api.getMachine(ctx, parseProviderID(providerID));
      } catch (err) {
        throw wrapError(op, err);
      }
      if (!machine) throw new InstanceNotFoundError(`${op}: no such machine`);
      return machine.podCIDRs;
    },
  } satisfies CidrAllocator;
}
