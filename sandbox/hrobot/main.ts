/**
 * Run the Robot webservice emulator on its own, for trying the Robot client or `curl` by hand:
 * `npx bun sandbox/hrobot/main.ts [servers] [port]` serves `servers` (default 3) ready servers named `robot-1` … on
 * 127.0.0.1:`port` (default a free one) for the user and password in `ROBOT_USER` and `ROBOT_PASSWORD` (default
 * `robot` / `robot-password`), prints the URL, and stops on SIGINT or SIGTERM.
 */
import { startRobotEmulator } from "./server.ts";

const [countText = "3", portText = "0"] = process.argv.slice(2);
const count = Number(countText);
const port = Number(portText);
if (!Number.isInteger(count) || count < 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: npx bun sandbox/hrobot/main.ts [servers (a whole number)] [port (0-65535)]");
  process.exit(2);
}
const user = process.env.ROBOT_USER || "robot";
const password = process.env.ROBOT_PASSWORD || "robot-password";
const robot = startRobotEmulator({ users: [{ user, password }], port });
for (let i = 1; i <= count; i++) robot.state.addServer({ name: `robot-${i}` });
console.log(`Robot webservice emulator at ${robot.url} (user ${user}), ${count} servers`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void robot.stop().then(() => process.exit(0));
  });
}
