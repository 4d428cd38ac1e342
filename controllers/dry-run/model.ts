/**
 * What `plan` found: every write the enabled controllers would make on their first pass, grouped by the object it
 * changes, each with the reason the controller gives; what they would not write and why (notes); and what could not
 * be planned (problems). Plain data: the renderer prints it for people and as JSON for machines.
 */
import type { ControllerName } from "../names.ts";

/** What a write changes: a Kubernetes object, or a cloud resource the provider manages. */
export interface PlanObject {
  readonly kind: "Node" | "Service" | "LoadBalancer" | "Route";
  /** Node name, `namespace/name`, the load balancer's cloud name, or the route's destination CIDR. */
  readonly name: string;
}

export interface PlannedWrite {
  readonly object: PlanObject;
  readonly controller: ControllerName;
  /**
   * `initialize`, `update-addresses`, `set-labels`, `add-taint`, `remove-taint`, `set-condition`, `delete` (Nodes);
   * `add-finalizer`, `remove-finalizer`, `update-status` (Services); `create`, `adopt`, `update`, `delete`,
   * `update-hosts` (load balancers, routes); `event` (an Event about the object).
   */
  readonly action: string;
  /** Why, in the words the controller logs. */
  readonly reason: string;
  /** What exactly changes, one short phrase each (`label topology.kubernetes.io/zone=fsn1`). */
  readonly changes: readonly string[];
}

/** Something the controllers would not write, or could not preview, worth telling. */
export interface PlanNote {
  readonly object: PlanObject;
  readonly controller: ControllerName;
  readonly message: string;
  /**
   * The provider cannot say what the cloud side would do (no `planLoadBalancer`): something may change that the plan
   * does not show, so the plan does not report "nothing to change".
   */
  readonly unknown?: boolean;
}

/** A read that failed, or an input the controller would refuse: the plan is incomplete. */
export interface PlanProblem {
  readonly object?: PlanObject | undefined;
  readonly controller?: ControllerName | undefined;
  readonly message: string;
}

export interface ControllerVerdict {
  readonly name: ControllerName;
  /** False when the controller would not start (a missing capability, a flag); `reason` says why. */
  readonly runs: boolean;
  readonly reason?: string | undefined;
}

export interface Plan {
  readonly controllers: readonly ControllerVerdict[];
  readonly writes: readonly PlannedWrite[];
  readonly notes: readonly PlanNote[];
  readonly problems: readonly PlanProblem[];
}

/** `terraform plan -detailed-exitcode`: 1 when the plan is incomplete, 2 when something would (or may) change. */
export function planExitCode(plan: Plan): 0 | 1 | 2 {
  if (plan.problems.length > 0) return 1;
  if (plan.writes.length > 0 || plan.notes.some((n) => n.unknown)) return 2;
  return 0;
}

/** A collector the per-controller planners add to. */
export class PlanBuilder {
  readonly writes: PlannedWrite[] = [];
  readonly notes: PlanNote[] = [];
  readonly problems: PlanProblem[] = [];
  constructor(readonly controller: ControllerName) {}

  write(object: PlanObject, action: string, reason: string, changes: readonly string[] = []): void {
    this.writes.push({ object, controller: this.controller, action, reason, changes });
  }
  note(object: PlanObject, message: string, unknown = false): void {
    this.notes.push({ object, controller: this.controller, message, ...(unknown ? { unknown } : {}) });
  }
  problem(object: PlanObject | undefined, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.problems.push({ object, controller: this.controller, message });
  }
}

export const nodeObject = (name: string): PlanObject => ({ kind: "Node", name });
