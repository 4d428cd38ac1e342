/** Upstream `GetInstanceProviderID` (cloud.go), shared by the cloud-node and lifecycle controllers. */
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { InstanceNotFoundError, isError, NotImplementedError, wrapError } from "../../providers/errors.ts";

/** Thrown when the legacy path is needed and the provider has no `instances`. */
export const NO_INSTANCES_MESSAGE = "failed to get instances from cloud provider";

/**
 * `<providerName>://<instanceID>` for a node name, asking the legacy `instances.instanceID`.
 * `InstanceNotFoundError` and `NotImplementedError` (thrown as such, not wrapped) pass through unchanged; any
 * other error becomes `failed to get instance ID from cloud provider: <err>`. An empty ID still yields
 * `<providerName>://`.
 */
export async function getInstanceProviderID(cloud: CloudProvider, ctx: CallContext, nodeName: string): Promise<string> {
  const instances = cloud.instances;
  if (!instances) throw new Error(NO_INSTANCES_MESSAGE);
  let id: string;
  try {
    id = await instances.instanceID(ctx, nodeName);
  } catch (err) {
    if (isError(err, NotImplementedError) || isError(err, InstanceNotFoundError)) throw err;
    throw wrapError("failed to get instance ID from cloud provider", err);
  }
  return `${cloud.providerName}://${id}`;
}
