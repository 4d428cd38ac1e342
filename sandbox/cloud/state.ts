/**
 * The simulated cloud's state: machines, load balancers and routes. The HTTP API and in-process callers (tests,
 * the sandbox command) share one `CloudState`, so a change through either is visible to both at once.
 *
 * Every read returns a copy: callers cannot change the state except through these methods.
 */
import { AddressPool } from "./address-pool.ts";
import { optionProblems, withDefaults } from "./lb-options.ts";
import { type Random, randomHex } from "./random.ts";
import type {
  CloudSettings,
  LoadBalancer,
  LoadBalancerPatch,
  LoadBalancerSpec,
  Machine,
  MachinePage,
  MachinePatch,
  MachineSpec,
  Route,
} from "./types.ts";

/** A refused operation, with the HTTP status and error code the API answers with. */
export class CloudError extends Error {
  override readonly name = "CloudError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent as the `Retry-After` header (429 and injected faults). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface CloudChange {
  readonly kind: "machine" | "loadBalancer" | "route";
  readonly action: "created" | "updated" | "deleted";
  /** The machine's id, or the load balancer's or route's name. */
  readonly id: string;
  readonly summary: string;
}

export interface CloudStateDeps {
  readonly random: Random;
  /** Used for load balancers' createdAt and updatedAt. */
  readonly now: () => Date;
  /** Load-balancer addresses; default 203.0.113.0/24. */
  readonly loadBalancerPool?: string;
  /** Machines' default InternalIP; default 10.0.0.0/16. */
  readonly internalPool?: string;
  /** Machines' default ExternalIP (omitted once exhausted); default 198.51.100.0/24. */
  readonly externalPool?: string;
}

export const defaultMachine = { zone: "zone-a", region: "sandbox-1", instanceType: "sb-small" } as const;

export class CloudState {
  readonly #deps: CloudStateDeps;
  readonly #machines = new Map<string, Machine>();
  readonly #idByName = new Map<string, string>();
  readonly #loadBalancers = new Map<string, LoadBalancer>();
  readonly #routes = new Map<string, Route>();
  readonly #lbPool: AddressPool;
  readonly #internal: AddressPool;
  readonly #external: AddressPool;
  readonly #listeners = new Set<(change: CloudChange) => void>();
  #settings: CloudSettings = { routeNodeAddresses: false };

  constructor(deps: CloudStateDeps) {
    this.#deps = deps;
    this.#lbPool = new AddressPool(deps.loadBalancerPool ?? "203.0.113.0/24");
    this.#internal = new AddressPool(deps.internalPool ?? "10.0.0.0/16");
    this.#external = new AddressPool(deps.externalPool ?? "198.51.100.0/24");
  }

  /** Call `listener` after every change; returns the function that unsubscribes. */
  onChange(listener: (change: CloudChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- machines -------------------------------------------------------------------------------------------

  /** Machines in creation order, one page at a time (`page` from 1); `name` filters on the exact name. */
  listMachines(query: { page?: number; perPage?: number; name?: string } = {}): MachinePage {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? 50;
    const named = query.name === undefined ? undefined : this.#idByName.get(query.name);
    const all = query.name === undefined ? [...this.#machines.values()] : named ? [this.#machines.get(named)!] : [];
    const items = all.slice((page - 1) * perPage, page * perPage);
    const nextPage = page * perPage < all.length ? page + 1 : null;
    return { machines: items.map(copy), pagination: { page, perPage, total: all.length, nextPage } };
  }

  getMachine(id: string): Machine | undefined {
    const m = this.#machines.get(id);
    return m && copy(m);
  }

  findMachineByName(name: string): Machine | undefined {
    const id = this.#idByName.get(name);
    return id === undefined ? undefined : this.getMachine(id);
  }

  /** Create a machine; without `addresses` it gets an InternalIP, an ExternalIP and a Hostname. 409 on a taken name. */
  createMachine(spec: MachineSpec): Machine {
    if (this.#idByName.has(spec.name)) throw new CloudError(409, "Conflict", `machine name "${spec.name}" is taken`);
    let id = `m-${randomHex(this.#deps.random, 10)}`;
    while (this.#machines.has(id)) id = `m-${randomHex(this.#deps.random, 10)}`;
    const machine: Machine = {
      id,
      name: spec.name,
      providerID: `sandbox://${id}`,
      zone: spec.zone ?? defaultMachine.zone,
      region: spec.region ?? defaultMachine.region,
      instanceType: spec.instanceType ?? defaultMachine.instanceType,
      addresses: spec.addresses ? structuredClone(spec.addresses) : this.#defaultAddresses(spec.name),
      state: spec.state ?? "running",
      labels: { ...spec.labels },
      metadataPending: spec.metadataPending ?? false,
      providerIDHidden: spec.providerIDHidden ?? false,
      podCIDRs: [...(spec.podCIDRs ?? [])],
    };
    if (spec.addresses) this.#reserveAddresses(machine);
    this.#machines.set(id, machine);
    this.#idByName.set(machine.name, id);
    this.#emit({ kind: "machine", action: "created", id, summary: `machine ${machine.name} (${id}) created` });
    return copy(machine);
  }

  /** Change the given fields. 404 when there is no such machine, 409 when renaming onto a taken name. */
  updateMachine(id: string, patch: MachinePatch): Machine {
    const current = this.#machines.get(id);
    if (!current) throw notFound("machine", id);
    if (patch.name !== undefined && patch.name !== current.name && this.#idByName.has(patch.name)) {
      throw new CloudError(409, "Conflict", `machine name "${patch.name}" is taken`);
    }
    const next: Machine = { ...current, ...definedOnly(patch) };
    if (patch.addresses) {
      next.addresses = structuredClone(patch.addresses);
      this.#releaseAddresses(current);
      this.#reserveAddresses(next);
    }
    this.#idByName.delete(current.name);
    this.#idByName.set(next.name, id);
    this.#machines.set(id, next);
    const what = Object.keys(definedOnly(patch)).join(", ");
    this.#emit({ kind: "machine", action: "updated", id, summary: `machine ${next.name} (${id}): ${what} changed` });
    return copy(next);
  }

  deleteMachine(id: string): void {
    const current = this.#machines.get(id);
    if (!current) throw notFound("machine", id);
    this.#machines.delete(id);
    this.#idByName.delete(current.name);
    this.#releaseAddresses(current);
    this.#emit({ kind: "machine", action: "deleted", id, summary: `machine ${current.name} (${id}) deleted` });
  }

  // ---- load balancers -------------------------------------------------------------------------------------

  listLoadBalancers(query: { cluster?: string } = {}): LoadBalancer[] {
    return sortedByName(this.#loadBalancers).filter(
      (lb) => query.cluster === undefined || lb.cluster === query.cluster,
    );
  }

  getLoadBalancer(name: string): LoadBalancer | undefined {
    const lb = this.#loadBalancers.get(name);
    return lb && copy(lb);
  }

  /**
   * Create or update by name; idempotent (the same spec twice changes nothing, not even updatedAt). An existing
   * load balancer keeps its address; its options are replaced (defaults for what the spec leaves out). 400 when
   * the options ask what the ports cannot give; 409 when the name belongs to another service (UID); 503 when the
   * address pool is exhausted.
   */
  putLoadBalancer(name: string, spec: LoadBalancerSpec): { loadBalancer: LoadBalancer; created: boolean } {
    const current = this.#loadBalancers.get(name);
    const wanted = { ...structuredClone(spec), nodes: normaliseNodes(spec.nodes), options: withDefaults(spec.options) };
    const problems = optionProblems(wanted.ports, wanted.options);
    if (problems.length > 0) throw new CloudError(400, "InvalidRequest", problems.join("; "));
    if (current) {
      if (current.serviceUID !== spec.serviceUID) {
        throw new CloudError(409, "Conflict", `load balancer "${name}" belongs to service UID ${current.serviceUID}`);
      }
      const next = { ...current, ...wanted };
      if (Bun.deepEquals(next, current, true)) return { loadBalancer: copy(current), created: false };
      next.updatedAt = this.#deps.now().toISOString();
      this.#loadBalancers.set(name, next);
      this.#emit({ kind: "loadBalancer", action: "updated", id: name, summary: describeLB("updated", next) });
      return { loadBalancer: copy(next), created: false };
    }
    const address = this.#lbPool.allocate();
    if (address === undefined) {
      throw new CloudError(503, "AddressPoolExhausted", `no free address left in ${this.#lbPool.cidr}`);
    }
    const at = this.#deps.now().toISOString();
    const lb: LoadBalancer = { name, ...wanted, address, createdAt: at, updatedAt: at };
    this.#loadBalancers.set(name, lb);
    this.#emit({ kind: "loadBalancer", action: "created", id: name, summary: describeLB("created", lb) });
    return { loadBalancer: copy(lb), created: true };
  }

  /** Change only the given fields (nodes, ports). 404 when absent. */
  patchLoadBalancer(name: string, patch: LoadBalancerPatch): LoadBalancer {
    const current = this.#loadBalancers.get(name);
    if (!current) throw notFound("load balancer", name);
    const { serviceUID, cluster, serviceNamespace, serviceName, ports, nodes, options } = current;
    const spec = { serviceUID, cluster, serviceNamespace, serviceName, ports, nodes, options, ...definedOnly(patch) };
    return this.putLoadBalancer(name, spec).loadBalancer;
  }

  /** Delete and free the address. 404 when absent. */
  deleteLoadBalancer(name: string): void {
    const current = this.#loadBalancers.get(name);
    if (!current) throw notFound("load balancer", name);
    this.#loadBalancers.delete(name);
    this.#lbPool.release(current.address);
    this.#emit({ kind: "loadBalancer", action: "deleted", id: name, summary: `load balancer ${name} deleted` });
  }

  // ---- routes ---------------------------------------------------------------------------------------------

  listRoutes(query: { cluster?: string } = {}): Route[] {
    return sortedByName(this.#routes).filter((r) => query.cluster === undefined || r.cluster === query.cluster);
  }

  getRoute(name: string): Route | undefined {
    const r = this.#routes.get(name);
    return r && copy(r);
  }

  /**
   * Create; the same route twice is a no-op (`created: false`), a different route under a taken name is 409.
   * `targetNodeAddresses` are kept only while the `routeNodeAddresses` setting is on.
   */
  createRoute(spec: Route): { route: Route; created: boolean } {
    const { targetNodeAddresses, ...rest } = spec;
    const route: Route =
      this.#settings.routeNodeAddresses && targetNodeAddresses ? { ...rest, targetNodeAddresses } : rest;
    const current = this.#routes.get(route.name);
    if (current) {
      if (Bun.deepEquals(current, route, true)) return { route: copy(current), created: false };
      throw new CloudError(409, "Conflict", `route "${route.name}" exists with different fields`);
    }
    this.#routes.set(route.name, copy(route));
    const summary = `route ${route.name} created: ${route.destinationCIDR} via ${route.targetNode}`;
    this.#emit({ kind: "route", action: "created", id: route.name, summary });
    return { route: copy(route), created: true };
  }

  deleteRoute(name: string): void {
    if (!this.#routes.delete(name)) throw notFound("route", name);
    this.#emit({ kind: "route", action: "deleted", id: name, summary: `route ${name} deleted` });
  }

  // ---- settings ------------------------------------------------------------------------------------------

  settings(): CloudSettings {
    return copy(this.#settings);
  }

  /** Replace the settings; routes already created keep what they have. */
  setSettings(settings: CloudSettings): CloudSettings {
    this.#settings = copy(settings);
    return this.settings();
  }

  // ---- helpers --------------------------------------------------------------------------------------------

  #defaultAddresses(name: string): Machine["addresses"] {
    const internal = this.#internal.allocate();
    const external = this.#external.allocate();
    if (internal === undefined) throw new CloudError(503, "AddressPoolExhausted", "no free internal address left");
    return [
      { type: "InternalIP", address: internal },
      ...(external === undefined ? [] : [{ type: "ExternalIP" as const, address: external }]),
      { type: "Hostname", address: name },
    ];
  }

  #reserveAddresses(m: Machine): void {
    for (const a of m.addresses) {
      if (a.type === "InternalIP") this.#internal.reserve(a.address);
      if (a.type === "ExternalIP") this.#external.reserve(a.address);
    }
  }

  #releaseAddresses(m: Machine): void {
    for (const a of m.addresses) {
      if (a.type === "InternalIP") this.#internal.release(a.address);
      if (a.type === "ExternalIP") this.#external.release(a.address);
    }
  }

  #emit(change: CloudChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}

function notFound(kind: string, id: string): CloudError {
  return new CloudError(404, "NotFound", `${kind} "${id}" not found`);
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

function sortedByName<T extends { name: string }>(map: Map<string, T>): T[] {
  return [...map.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(copy);
}

function normaliseNodes(nodes: readonly string[]): string[] {
  return [...new Set(nodes)].sort();
}

/** The object without its `undefined` fields, so spreading it over another keeps what was not given. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function describeLB(action: string, lb: LoadBalancer): string {
  const ports = lb.ports.map((p) => `${p.port}/${p.protocol}`).join(",");
  const svc = `${lb.serviceNamespace}/${lb.serviceName}`;
  return `load balancer ${lb.name} ${action} for ${svc}: ${lb.address} ports ${ports} → ${lb.nodes.length} node(s)`;
}
