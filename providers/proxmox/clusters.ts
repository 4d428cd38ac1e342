/**
 * The configured Proxmox clusters as the instances code sees them: one API client per region, each cluster's guest
 * listing (one call, shared by every lookup asking at the same time), and VM configs remembered per VM until the VM
 * leaves the listing, so a refresh of every node costs one listing per cluster once the configs are known.
 */
import type { CallContext } from "../cloud.ts";
import type { ProxmoxApi, ProxmoxVM, VMConfig } from "./api/client.ts";

export interface Cluster {
  readonly region: string;
  readonly api: ProxmoxApi;
}

/** A cluster's listing, or why there is none. */
export type Listing =
  | { readonly region: string; readonly vms: readonly ProxmoxVM[]; readonly error?: undefined }
  | { readonly region: string; readonly vms?: undefined; readonly error: Error };

export class Clusters {
  readonly #byRegion: Map<string, Cluster>;
  readonly #inFlight = new Map<string, Promise<Listing>>();
  readonly #configs = new Map<string, VMConfig>();

  constructor(clusters: readonly Cluster[]) {
    this.#byRegion = new Map(clusters.map((c) => [c.region, c]));
  }

  get regions(): string[] {
    return [...this.#byRegion.keys()];
  }

  get(region: string): Cluster | undefined {
    return this.#byRegion.get(region);
  }

  /** The listings of `regions` (default all), fetched concurrently; a failing cluster is an entry with its error. */
  listings(ctx: CallContext, regions: readonly string[] = this.regions): Promise<Listing[]> {
    return Promise.all(regions.map((r) => this.#listing(ctx, r)));
  }

  #listing(ctx: CallContext, region: string): Promise<Listing> {
    const running = this.#inFlight.get(region);
    if (running) return running;
    const api = this.#byRegion.get(region)?.api;
    if (!api) return Promise.resolve({ region, error: new Error(`no cluster has region "${region}"`) });
    const call = api.listVMs(ctx).then(
      (vms): Listing => {
        this.#forgetGone(region, vms);
        return { region, vms };
      },
      (error): Listing => ({ region, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.#inFlight.set(region, call);
    void call.finally(() => this.#inFlight.delete(region));
    return call;
  }

  /** The VM's config, remembered; `undefined` when the VM is gone. */
  async config(ctx: CallContext, region: string, vm: ProxmoxVM): Promise<VMConfig | undefined> {
    const key = `${region}/${vm.vmid}`;
    const known = this.#configs.get(key);
    if (known) return known;
    const api = this.#byRegion.get(region)?.api;
    if (!api) throw new Error(`no cluster has region "${region}"`);
    const config = await api.vmConfig(ctx, vm.node, vm.vmid);
    if (config) this.#configs.set(key, config);
    return config;
  }

  #forgetGone(region: string, vms: readonly ProxmoxVM[]): void {
    const present = new Set(vms.map((vm) => `${region}/${vm.vmid}`));
    for (const key of this.#configs.keys()) {
      if (key.startsWith(`${region}/`) && !present.has(key)) this.#configs.delete(key);
    }
  }
}
