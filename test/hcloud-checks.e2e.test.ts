/**
 * End to end: what the compiled `hcloud-cloud-controller-manager` checks at start and in `doctor` before it touches
 * anything: Robot's credentials with one read (a wrong password must not trip Robot's lock-out of the address),
 * the load-balancer health-check defaults against the API's bounds, and the location, network zone and type
 * defaults against the Cloud API's catalogue. A refused setting stops the manager naming the variable, and no
 * load balancer is written.
 */
import { expect, test } from "bun:test";
import { executable, runExecutable } from "./support/executables.ts";
import { hcloudManagerCommand, robotPassword, robotUser, useHcloudE2e } from "./support/hcloud.ts";
import { spawnCollecting } from "./support/processes.ts";

const e2e = useHcloudE2e("ccm-hcloud-checks-");

/** Long enough for a manager that passed its checks to have started its controllers and called the clouds. */
const RUNNING_MS = 20_000;

/** The manager run with `env`: its exit code, or "running" when it still ran after `RUNNING_MS` (then killed). */
async function start(env: Record<string, string>): Promise<{ code: number | "running"; out: string }> {
  const manager = spawnCollecting(await hcloudManagerCommand(e2e.kubeconfig), env);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const code = await Promise.race([
    manager.exited,
    new Promise<"running">((resolve) => {
      timer = setTimeout(() => resolve("running"), RUNNING_MS);
    }),
  ]);
  clearTimeout(timer);
  if (code === "running") {
    manager.proc.kill("SIGKILL");
    await manager.exited;
  }
  return { code, out: manager.output() };
}

async function doctor(env: Record<string, string>) {
  const r = await runExecutable(
    await executable("hcloud"),
    ["doctor", "--cloud-provider=hcloud", "--allow-untagged-cloud", `--kubeconfig=${e2e.kubeconfig}`],
    { env },
  );
  return { code: r.code, out: r.stdout + r.stderr };
}

const robotEnv = (password: string) =>
  e2e.world.env({
    HCLOUD_NETWORK_ROUTES_ENABLED: "false",
    ROBOT_ENABLED: "true",
    ROBOT_USER: robotUser,
    ROBOT_PASSWORD: password,
    ROBOT_ENDPOINT: e2e.world.robot.url,
  });

const refusedLogins = () => e2e.world.robot.calls.filter((c) => c.status === 401).length;

test("a wrong ROBOT_PASSWORD stops the manager naming it, after one failed login: Robot does not lock the address", async () => {
  e2e.world.robot.state.addServer({ name: "robot-1" });
  e2e.world.robot.lockout.reset();
  const before = refusedLogins();
  const r = await start(robotEnv("not-the-password"));
  expect({ code: r.code, names: r.out.includes("ROBOT_PASSWORD") }).toEqual({ code: 1, names: true });
  expect(r.out).not.toContain("not-the-password");
  expect(refusedLogins() - before).toBe(1);
  expect(e2e.world.robot.lockout.blockedUntil("127.0.0.1")).toBeUndefined();
}, 60_000);

test.each([
  ["passes with the right Robot credentials", robotPassword, 0, "ok  "],
  ["names ROBOT_PASSWORD when Robot refuses it", "not-the-password", 1, "ROBOT_PASSWORD"],
] as const)(
  "doctor %s",
  async (_, password, code, words) => {
    e2e.world.robot.lockout.reset();
    const r = await doctor(robotEnv(password));
    expect({ code: r.code, has: r.out.includes(words) }).toEqual({ code, has: true });
    expect(r.out).not.toContain("not-the-password");
    if (code !== 0) expect(r.out).not.toContain("all checks passed");
  },
  120_000,
);

test.each([
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "99", "an integer from 1 to 5"],
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "0", "an integer from 1 to 5"],
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", "999999999h", "whole seconds from 1s to 3600s"],
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", "0s", "whole seconds from 1s to 3600s"],
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", "1500ms", "whole seconds"],
  ["HCLOUD_LOAD_BALANCERS_LOCATION", "mars1", "is not a location: fsn1, nbg1, hel1, ash, hil, sin"],
  ["HCLOUD_LOAD_BALANCERS_NETWORK_ZONE", "moon", "is not a network zone: eu-central, us-east, us-west, ap-southeast"],
  ["HCLOUD_LOAD_BALANCERS_TYPE", "lb999", "is not a load balancer type: lb11, lb21, lb31"],
])(
  "%s=%s stops the manager at start naming the variable and what it takes; nothing is written",
  async (variable, value, words) => {
    const writes = e2e.world.hcloud.calls.writes().length;
    const r = await start(e2e.world.env({ [variable]: value }));
    expect({ code: r.code, line: r.out.includes(variable) && r.out.includes(words) }).toEqual({
      code: 1,
      line: true,
    });
    expect(e2e.world.hcloud.calls.writes().length).toBe(writes);
  },
  60_000,
);

test.each([
  ["HCLOUD_LOAD_BALANCERS_TYPE", "lb999", "HCLOUD_LOAD_BALANCERS_TYPE=lb999 is not a load balancer type"],
  ["HCLOUD_LOAD_BALANCERS_LOCATION", "mars1", "HCLOUD_LOAD_BALANCERS_LOCATION=mars1 is not a location"],
  ["HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "99", "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES"],
])(
  "doctor fails on %s=%s",
  async (variable, value, words) => {
    const r = await doctor(e2e.world.env({ [variable]: value }));
    expect({ code: r.code, has: r.out.includes(words) }).toEqual({ code: 1, has: true });
  },
  120_000,
);

test("valid defaults from the catalogue pass doctor", async () => {
  const r = await doctor(
    e2e.world.env({
      HCLOUD_LOAD_BALANCERS_LOCATION: "nbg1",
      HCLOUD_LOAD_BALANCERS_TYPE: "lb21",
      HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL: "30s",
      HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES: "5",
    }),
  );
  expect({ code: r.code, out: r.code === 0 ? "" : r.out }).toEqual({ code: 0, out: "" });
}, 120_000);
