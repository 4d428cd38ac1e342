import { afterEach, expect, test } from "bun:test";
import { cachedRobot } from "./robot-cache.ts";
import { type Emulators, startEmulators } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

test("keeps Robot's list for the timeout, and asks Robot before calling a number gone", async () => {
  e = startEmulators();
  const { clock } = e.h;
  const first = e.robot.state.addServer({ name: "bm-1" });
  const robot = cachedRobot(e.robotApi, 300_000, clock.now);
  const paths = () => e!.robot.calls.map((c) => c.path);

  expect((await robot.listServers(ctx)).map((s) => s.name)).toEqual(["bm-1"]);
  expect((await robot.getServer(ctx, first.number))?.name).toBe("bm-1");
  expect(paths()).toEqual(["/server"]);

  const added = e.robot.state.addServer({ name: "bm-2" });
  expect((await robot.getServer(ctx, added.number))?.name).toBe("bm-2");
  expect(paths()).toEqual(["/server", `/server/${added.number}`]);

  clock.advance(300_000);
  expect((await robot.listServers(ctx)).length).toBe(2);
  expect(paths()).toEqual(["/server", `/server/${added.number}`, "/server"]);
});

test("a failed listing is not kept", async () => {
  e = startEmulators();
  e.robot.state.addServer({ name: "bm-1" });
  e.robot.faults.maintenance = true;
  const robot = cachedRobot(e.robotApi, 300_000, e.h.clock.now);
  await expect(robot.listServers(ctx)).rejects.toThrow();
  e.robot.faults.maintenance = false;
  expect((await robot.listServers(ctx)).length).toBe(1);
});
