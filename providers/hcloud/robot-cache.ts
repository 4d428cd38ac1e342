/**
 * hccm's Robot cache (`ROBOT_CACHE_TIMEOUT`): Robot allows about 200 server listings an hour, so the list is kept
 * for the timeout and a server by number is answered from it. A number missing from the kept list is asked of
 * Robot itself before it counts as gone, so a stale list can never delete a Node. Power state is never cached.
 */
import type { CallContext } from "../cloud.ts";
import type { RobotApi, RobotServer } from "./api/robot.ts";

export function cachedRobot(api: RobotApi, ttlMs: number, now: () => number): RobotApi {
  let kept: { at: number; servers: Promise<RobotServer[]> } | undefined;
  const list = (ctx: CallContext): Promise<RobotServer[]> => {
    if (kept && now() - kept.at < ttlMs) return kept.servers;
    const servers = api.listServers(ctx);
    const entry = { at: now(), servers };
    kept = entry;
    // A failed listing is not kept: the next caller asks again.
    servers.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return servers;
  };
  return {
    listServers: list,
    async getServer(ctx, number) {
      const found = (await list(ctx)).find((s) => s.number === number);
      return found ?? (await api.getServer(ctx, number));
    },
    powerState: (ctx, number) => api.powerState(ctx, number),
  };
}
