/**
 * The emulated project: its resources, the actions running on them, and the clock. The per-kind modules beside
 * this file hold the rules; this one holds what they share: IDs, addresses, and `act`, the one way a change is made
 * (refuse while the resource is locked, apply unless a fault makes the action fail, start the action).
 */
import type { Random } from "../../cloud/random.ts";
import { type Action, Actions, type ResourceRef } from "../actions.ts";
import { notFound } from "../errors.ts";
import type { Faults } from "../faults.ts";
import type { Deprecation, LoadBalancerType } from "./catalog.ts";
import type { Certificate, LoadBalancer, Network, Server } from "./types.ts";

export interface WorldOptions {
  /** Milliseconds since the epoch; drives actions, `created` times and the rate limit. */
  readonly now: () => number;
  readonly faults: Faults;
  readonly random: Random;
  /** How long an action runs before it ends (ms); 0 ⇒ done at once. */
  readonly actionDurationMs: number;
  /** Send the deprecated `datacenter` object on servers (the API dropped it in 2026). Default false. */
  readonly legacyDatacenter?: boolean;
}

export class World {
  readonly servers = new Map<number, Server>();
  readonly networks = new Map<number, Network>();
  readonly loadBalancers = new Map<number, LoadBalancer>();
  readonly certificates = new Map<number, Certificate>();
  readonly actions: Actions;
  readonly now: () => number;
  readonly faults: Faults;
  readonly random: Random;
  legacyDatacenter: boolean;
  /** Load balancer types being phased out in this project's view, by name (the control API's settings set them). */
  readonly loadBalancerTypeDeprecations = new Map<string, Deprecation>();
  #nextId = 1;
  #nextAddress = 1;

  constructor(options: WorldOptions) {
    this.now = options.now;
    this.faults = options.faults;
    this.random = options.random;
    this.actions = new Actions(options.now, options.actionDurationMs);
    this.legacyDatacenter = options.legacyDatacenter ?? false;
  }

  /** A load balancer type as the API sends it, alone or inside a load balancer: with its deprecation, if any. */
  loadBalancerTypeView(type: LoadBalancerType): LoadBalancerType {
    const deprecation = this.loadBalancerTypeDeprecations.get(type.name);
    return { ...type, deprecated: deprecation?.announced ?? null, deprecation: deprecation ?? null };
  }

  /** IDs are shared by every kind, as numbers never reused, so a test never confuses two resources. */
  nextId(): number {
    return this.#nextId++;
  }

  /** A public address pair: IPv4 from 203.0.113.0/24 (wrapping past 254) and a /64 or host of 2001:db8::/32. */
  nextPublicAddress(): { ipv4: string; ipv6Net: string; ipv6Host: string } {
    const n = this.#nextAddress++;
    const hex = n.toString(16);
    return {
      ipv4: `203.0.113.${((n - 1) % 254) + 1}`,
      ipv6Net: `2001:db8:${hex}::/64`,
      ipv6Host: `2001:db8:${hex}::1`,
    };
  }

  createdAt(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * Makes a change as an action: `locked` if an action still runs on one of `refs`; otherwise `apply` runs (unless
   * a fault makes this action fail, in which case nothing changes) and the action starts.
   */
  act(command: string, refs: ResourceRef[], apply: () => void): Action {
    this.actions.assertUnlocked(...refs);
    const error = this.faults.actionError(command);
    if (!error) apply();
    return this.actions.start(command, refs, error);
  }

  server(id: number): Server {
    const s = this.servers.get(id);
    if (!s) throw notFound("server", id);
    return s;
  }

  network(id: number): Network {
    const n = this.networks.get(id);
    if (!n) throw notFound("network", id);
    return n;
  }

  loadBalancer(id: number): LoadBalancer {
    const lb = this.loadBalancers.get(id);
    if (!lb) throw notFound("load_balancer", id);
    return lb;
  }

  certificate(id: number): Certificate {
    const c = this.certificates.get(id);
    if (!c) throw notFound("certificate", id);
    return c;
  }
}
