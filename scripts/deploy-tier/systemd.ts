/**
 * The systemd unit as docs/install.md installs it, on a booted systemd (Debian's, in a privileged container, as
 * close to a host as this machine allows): the executable, the unit and the environment file copied in, the
 * kubeconfig and cloud-config installed 0600 as credentials, `systemctl enable --now`, then a stop and a `kill -9`.
 *
 * One setting belongs to the container and not the unit: systemd hands credentials to a service through a mount
 * that must propagate, so `/` is made a shared mount first (on a host it is one already).
 */
import { resolve } from "node:path";
import { freePort, pollFor } from "../lib/processes.ts";
import { podman, podmanMaybe, SYSTEMD_TAG } from "./podman.ts";
import { type DeploySandbox, healthz } from "./sandbox.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const UNIT = "cloud-controller-manager";
const CONF = "/etc/cloud-controller-manager";

/** Boots the systemd image, installs and runs the unit against `sandbox`; returns what was seen, for the log. */
export async function runUnit(sandbox: DeploySandbox, executable: string): Promise<string> {
  const name = `ccm-deploy-tier-systemd-${process.pid}`;
  const port = freePort();
  const exec = (script: string) => podman(["exec", name, "bash", "-ec", script], script.split("\n")[0]);
  const show = async (props: string) => (await exec(`systemctl show ${UNIT} ${props}`)).trim();
  await podman([
    "run",
    "--detach",
    `--name=${name}`,
    "--privileged",
    "--systemd=always",
    "--network=host",
    SYSTEMD_TAG,
  ]);
  try {
    await pollFor("systemd to boot", async () => {
      const state = (await podmanMaybe(["exec", name, "systemctl", "is-system-running"])).stdout.trim();
      return state === "running" || state === "degraded" ? state : undefined;
    });
    await exec("mount --make-rshared /");
    await podman(["cp", executable, `${name}:/usr/local/bin/cloud-controller-manager`]);
    for (const [from, to] of [
      [`${ROOT}/deploy/systemd/${UNIT}.service`, `/tmp/${UNIT}.service`],
      [`${ROOT}/deploy/systemd/${UNIT}.env.example`, `/tmp/${UNIT}.env`],
      [`${sandbox.configDir}/kubeconfig`, "/tmp/kubeconfig"],
      [`${sandbox.configDir}/cloud-config`, "/tmp/cloud-config"],
    ] as const) {
      await podman(["cp", from, `${name}:${to}`]);
    }
    const args = `--cloud-provider=sandbox --cluster-cidr=10.128.0.0/9 --configure-cloud-routes=true --leader-elect=true --bind-address=127.0.0.1 --secure-port=${port}`;
    // The steps of docs/install.md, "Run it as a systemd service", with CCM_ARGS edited for the sandbox.
    await exec(`install -d -m 0700 ${CONF}
install -m 0600 /tmp/kubeconfig ${CONF}/kubeconfig
install -m 0600 /tmp/cloud-config ${CONF}/cloud-config
install -m 0644 /tmp/${UNIT}.env ${CONF}/${UNIT}.env
sed -i 's|^CCM_ARGS=.*|CCM_ARGS="${args}"|' ${CONF}/${UNIT}.env
install -m 0644 /tmp/${UNIT}.service /etc/systemd/system/
chmod 0755 /usr/local/bin/cloud-controller-manager
systemctl daemon-reload
systemctl enable --now ${UNIT}`);
    const ready = await sandbox.ready().catch(async (err: Error) => {
      throw new Error(`${err.message}\nthe unit's journal:\n${await exec(`journalctl -u ${UNIT} --no-pager -n 40`)}`);
    });
    const health = await healthz(port);
    if (health !== "200 ok") throw new Error(`/healthz answered ${health}`);
    const user = (await exec(`ps -o user= -p $(systemctl show -p MainPID --value ${UNIT}) || true`)).trim();

    await exec(`systemctl stop ${UNIT}`);
    const stopped = await show("-p Result -p ExecMainStatus");
    if (stopped !== "Result=success\nExecMainStatus=0") throw new Error(`after systemctl stop: ${stopped}`);
    const journal = await exec(`journalctl -u ${UNIT} --no-pager`);
    if (!journal.includes("successfully released lease")) throw new Error("the lease was not released on stop");

    await exec(`systemctl start ${UNIT}`);
    const healthy = async () => ((await healthz(port)) === "200 ok" ? true : undefined);
    const within30s = { timeoutMs: 30_000 };
    await pollFor("/healthz after start", healthy, within30s);
    await exec(`kill -9 $(systemctl show -p MainPID --value ${UNIT})`);
    await pollFor(
      "systemd to restart the killed manager",
      async () => {
        const s = await show("-p NRestarts -p ActiveState");
        return s === "NRestarts=1\nActiveState=active" ? s : undefined;
      },
      within30s,
    );
    await pollFor("/healthz after the restart", healthy, within30s);
    return `${ready}; /healthz ok${user ? `; runs as ${user}` : ""}; stop: status 0, lease released; kill -9: restarted`;
  } finally {
    await podmanMaybe(["rm", "--force", name]);
  }
}
