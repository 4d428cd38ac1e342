/** The `plan` command's dry-run engine: every write the enabled controllers would make, found with reads only. */
export { declineReason, gatherPlan, type PlanInput } from "./gather.ts";
export type { ControllerVerdict, Plan, PlanNote, PlannedWrite, PlanObject, PlanProblem } from "./model.ts";
export { planExitCode } from "./model.ts";
export { groupByObject, renderPlanJson, renderPlanText } from "./render.ts";
