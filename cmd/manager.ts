/** The manager: starts informers, leader election and the enabled controllers (spec c.5). */
import type { RunManager } from "./command.ts";

export const runManager: RunManager = async ({ logger }) => {
  logger.error("the controller manager is not wired yet in this build");
  return 1;
};
