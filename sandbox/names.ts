/**
 * The sandbox's names and sizes the command line checks before anything starts: kept apart from the emulators, which
 * `cmd/sandbox.ts` loads only when the `sandbox` command runs, so the manager's process never evaluates them.
 */

export const sandboxClouds = ["sandbox", "hcloud", "digitalocean", "scaleway", "openstack"] as const;
export type SandboxCloud = (typeof sandboxClouds)[number];

/** hcloud's servers get one private IP each from the project's subnet; the emulator is not meant for more. */
export const HCLOUD_MAX_NODES = 1000;

/** The sandbox's cluster CIDRs, IPv4 and IPv6: room for 32768 nodes of one /24 (and one /64) each. */
export const SANDBOX_CLUSTER_CIDR = "10.128.0.0/9,fd00:10:128::/48";
