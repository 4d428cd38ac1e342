/**
 * The compiled manager reloads a serving certificate given with --tls-cert-file when its files change, as
 * upstream does: new connections get the new certificate, without a restart.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSelfSignedCert } from "../platform/self-signed.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { executable } from "./support/executables.ts";
import { freePort, managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

let api: ApiServer;
let dir = "";
let manager: RunningProcess | undefined;
beforeAll(async () => {
  await executable();
  api = await startApiServer();
  dir = await mkdtemp(join(tmpdir(), "ccm-cert-reload-"));
}, 300_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("a new certificate written over the files is served without a restart", async () => {
  const [first, second] = [
    await generateSelfSignedCert({ now: Date.now }),
    await generateSelfSignedCert({ now: Date.now }),
  ];
  const files = { cert: join(dir, "tls.crt"), key: join(dir, "tls.key") };
  await writeFile(files.cert, first.cert);
  await writeFile(files.key, first.key);
  const kubeconfig = await api.writeKubeconfig(join(dir, "kubeconfig"));
  const cloudConfig = join(dir, "cloud.yaml");
  await writeFile(cloudConfig, "url: http://127.0.0.1:9\ntoken: unused\n", { mode: 0o600 });
  const port = freePort();
  const cmd = await managerCommand(
    { cloudConfig, kubeconfig },
    [`--secure-port=${port}`, `--tls-cert-file=${files.cert}`, `--tls-private-key-file=${files.key}`],
    { clusterCIDR: "" },
  );
  manager = spawnCollecting(cmd);
  const trusts = (ca: string) =>
    fetch(`https://localhost:${port}/healthz`, { tls: { ca }, keepalive: false }).then(
      (r) => r.ok,
      () => false,
    );
  await poll(() => trusts(first.cert), { message: "the first certificate to be served" });

  // As a rotation tool would: new files beside the old ones, then renamed over them.
  await writeFile(`${files.key}.new`, second.key);
  await writeFile(`${files.cert}.new`, second.cert);
  await rename(`${files.key}.new`, files.key);
  await rename(`${files.cert}.new`, files.cert);
  await poll(() => trusts(second.cert), { message: "the new certificate to be served" });
  expect(await trusts(first.cert)).toBeFalse();
  // The log line is read from the process's pipe a moment after the new certificate is served: wait for it.
  const loaded = `loaded a new serving certificate from ${files.cert}`;
  await poll(() => manager!.output().includes(loaded), { message: `the log line "${loaded}"` });
  expect(manager.output()).toContain(loaded);
  manager.proc.kill("SIGTERM");
  expect(await manager.exited).toBe(0);
});
