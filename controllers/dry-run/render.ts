/**
 * A plan for people (grouped by object, each write with its controller and reason, then notes and problems, then a
 * one-line summary) and for machines (`-o json`: the same, as one JSON document).
 */
import { type Plan, type PlannedWrite, type PlanObject, planExitCode } from "./model.ts";

const KIND_ORDER: readonly PlanObject["kind"][] = ["Node", "Service", "LoadBalancer", "Route"];
const KIND_WORDS: Record<PlanObject["kind"], [one: string, many: string]> = {
  Node: ["Node", "Nodes"],
  Service: ["Service", "Services"],
  LoadBalancer: ["load balancer", "load balancers"],
  Route: ["route", "routes"],
};

export interface PlannedObject extends PlanObject {
  readonly writes: readonly Omit<PlannedWrite, "object">[];
}

/** The writes grouped by object: Nodes, Services, load balancers, routes, each kind sorted by name. */
export function groupByObject(plan: Plan): PlannedObject[] {
  const groups = new Map<string, { object: PlanObject; writes: Omit<PlannedWrite, "object">[] }>();
  for (const { object, ...write } of plan.writes) {
    const key = `${object.kind}\u0000${object.name}`;
    const group = groups.get(key) ?? { object, writes: [] };
    group.writes.push(write);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort(
      (a, b) =>
        KIND_ORDER.indexOf(a.object.kind) - KIND_ORDER.indexOf(b.object.kind) ||
        a.object.name.localeCompare(b.object.name),
    )
    .map((g) => ({ ...g.object, writes: g.writes }));
}

const MARK: Record<string, string> = {
  create: "+",
  adopt: "+",
  "add-finalizer": "+",
  "add-taint": "+",
  event: "+",
  delete: "-",
  "remove-finalizer": "-",
  "remove-taint": "-",
};

export function renderPlanText(plan: Plan): string {
  const out: string[] = [];
  const idle = plan.controllers.filter((c) => !c.runs);
  const running = plan.controllers.filter((c) => c.runs).map((c) => c.name);
  out.push(`Controllers planned: ${running.length > 0 ? running.join(", ") : "none"}`);
  for (const c of idle) out.push(`  ${c.name} would not run: ${c.reason}`);
  out.push("");
  for (const group of groupByObject(plan)) {
    out.push(`${group.kind} ${group.name}`);
    for (const w of group.writes) {
      out.push(`  ${MARK[w.action] ?? "~"} ${w.action} (${w.controller}: ${w.reason})`);
      for (const c of w.changes) out.push(`      ${c}`);
    }
    out.push("");
  }
  if (plan.notes.length > 0) {
    out.push("Notes (nothing written for these):");
    for (const n of plan.notes) out.push(`  ${n.object.kind} ${n.object.name} (${n.controller}): ${n.message}`);
    out.push("");
  }
  if (plan.problems.length > 0) {
    out.push("Problems (the plan is incomplete):");
    for (const p of plan.problems) {
      const where = p.object ? `${p.object.kind} ${p.object.name} ` : "";
      out.push(`  ${where}(${p.controller ?? "plan"}): ${p.message}`);
    }
    out.push("");
  }
  out.push(summary(plan));
  return `${out.join("\n")}\n`;
}

function summary(plan: Plan): string {
  const groups = groupByObject(plan);
  const unknown = plan.notes.filter((n) => n.unknown).length;
  const parts: string[] = [];
  if (plan.writes.length === 0) {
    parts.push(
      unknown > 0
        ? `No changes found, but ${unknown} Service(s) could not be previewed in the cloud.`
        : "No changes: the controllers would write nothing.",
    );
  } else {
    const byKind = KIND_ORDER.map((kind) => {
      const n = groups.filter((g) => g.kind === kind).length;
      return n === 0 ? undefined : `${n} ${KIND_WORDS[kind][n === 1 ? 0 : 1]}`;
    }).filter((x) => x !== undefined);
    parts.push(`Plan: ${plan.writes.length} write(s) to ${byKind.join(", ")}.`);
    if (unknown > 0) parts.push(`${unknown} Service(s) could not be previewed in the cloud.`);
  }
  if (plan.problems.length > 0) parts.push(`${plan.problems.length} problem(s): the plan is incomplete.`);
  parts.push("Nothing was written.");
  return parts.join(" ");
}

/** The plan as one JSON document; `exitCode` is what the command exits with. */
export function renderPlanJson(plan: Plan): string {
  const doc = {
    exitCode: planExitCode(plan),
    changes: plan.writes.length,
    controllers: plan.controllers,
    objects: groupByObject(plan),
    notes: plan.notes,
    problems: plan.problems,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
