/**
 * Every provider of the tree, by name. The all-in-one executable and development runs (`bun cmd/main.ts`) use this
 * list; a test keeps it equal to the folders under providers/. Each provider's module is loaded, and registers
 * itself, only when that provider is built (`registerLazily`): the manager's process never evaluates the others.
 */
import { globalRegistry } from "./registry.ts";

const lazily = (name: string, load: () => Promise<unknown>) => globalRegistry.registerLazily(name, load);

lazily("composite", () => import("./composite/index.ts"));
lazily("digitalocean", () => import("./digitalocean/index.ts"));
lazily("fake", () => import("./fake/index.ts"));
lazily("hcloud", () => import("./hcloud/index.ts"));
lazily("metal", () => import("./metal/index.ts"));
lazily("openstack", () => import("./openstack/index.ts"));
lazily("proxmox", () => import("./proxmox/index.ts"));
lazily("sandbox", () => import("./sandbox/index.ts"));
lazily("scaleway", () => import("./scaleway/index.ts"));
