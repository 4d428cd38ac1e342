/**
 * The openstack provider: a drop-in for openstack-cloud-controller-manager's nodes (Keystone v3, Nova, Neutron).
 * Importing this module registers it as `openstack`; that is its only side effect.
 */
import { registerCloudProvider } from "../registry.ts";
import { openstack } from "./provider.ts";

registerCloudProvider(openstack.name, openstack.factory);

export { type OpenStackConfig, readOpenStackConfig } from "./config.ts";
export { openStackProvider, openStackProviderName, openstack } from "./provider.ts";
export { formatProviderID, parseProviderID } from "./provider-id.ts";
