/**
 * Every provider of the tree, imported for their registration. The all-in-one executable and development runs
 * (`bun cmd/main.ts`) use this list; a test keeps it equal to the folders under providers/.
 */
import "./composite/index.ts";
import "./digitalocean/index.ts";
import "./fake/index.ts";
import "./hcloud/index.ts";
import "./metal/index.ts";
import "./openstack/index.ts";
import "./proxmox/index.ts";
import "./sandbox/index.ts";
import "./scaleway/index.ts";
