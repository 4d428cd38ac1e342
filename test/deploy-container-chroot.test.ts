/**
 * The container image's premise, proven without a container engine: the root that deploy/container/Containerfile's
 * COPY lines make (test/deploy-containerfile.ts lays it out) is enough for the executable to start, talk to a
 * Kubernetes API over TLS with in-cluster credentials, initialise a node from a cloud whose TLS certificate only
 * the root's CA bundle vouches for, and serve /healthz — chrooted into that root as user 65532,
 * as PID 1 of its own PID namespace, with /proc mounted as a container runtime mounts it.
 *
 * What a pod adds at run time is added here the same way: the service-account folder, a cloud-config file, the
 * KUBERNETES_SERVICE_* variables, /proc. The API server (kube/testdata's) and the simulated cloud run outside the
 * root, on loopback, which the chroot shares.
 *
 * Needs root, chroot and unshare (util-linux); skips with the reason in its name otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeApiServer } from "../kube/testdata/fake-apiserver.ts";
import { createTestPki } from "../kube/testdata/pki.ts";
import { createMachines } from "../sandbox/cloud/fixtures.ts";
import { startSimulatedCloud } from "../sandbox/cloud/server.ts";
import { collectOutput, freePort, pollFor } from "../scripts/lib/processes.ts";
import {
  CONTAINERFILE,
  hostImageArch,
  imageEnv,
  imageFiles,
  layOut,
  parseContainerfile,
} from "./deploy-containerfile.ts";
import { executablesDir } from "./support/executables.ts";

const EXE = "/usr/local/bin/cloud-controller-manager";
const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
// biome-ignore lint/suspicious/noExplicitAny: stored objects are read field by field
type Doc = any;

/** A Node as a kubelet started with --cloud-provider=external registers it. */
const uninitializedNode = (name: string) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name },
  spec: { taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }] },
  status: { addresses: [{ type: "Hostname", address: name }] },
});

function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (chroot, mount namespaces)";
  for (const tool of ["chroot", "unshare", "mount"]) {
    if (!Bun.which(tool, { PATH })) return `${tool} is not installed (apt-get install -y coreutils util-linux mount)`;
  }
  const probe = Bun.spawnSync(["unshare", "--fork", "--pid", "--mount", "true"], { env: { PATH } });
  if (probe.exitCode !== 0) return `unshare cannot make PID and mount namespaces here: ${probe.stderr.toString()}`;
  return undefined;
}
const reason = whyNot();
const testHere = (name: string, fn: () => Promise<void>, timeout?: number) =>
  test.skipIf(reason !== undefined)(reason ? `${name} [skipped: ${reason}]` : name, fn, timeout);

let root = "";
let work = "";
/** The image's ENV settings, which a container engine would set. */
let env: Record<string, string> = {};

beforeAll(async () => {
  if (reason) return;
  const cf = parseContainerfile(await readFile(CONTAINERFILE, "utf8"));
  root = await mkdtemp(join(tmpdir(), "ccm-chroot-"));
  work = await mkdtemp(join(tmpdir(), "ccm-chroot-work-"));
  await layOut(root, imageFiles(cf, hostImageArch(), await executablesDir()));
  env = imageEnv(cf, hostImageArch());
  await mkdir(join(root, "proc"), { mode: 0o555 });
}, 300_000);

afterAll(async () => {
  for (const dir of [root, work]) if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Starts the executable in the root: a new PID and mount namespace (so the /proc mount goes away with it), /proc
 * mounted with `procOptions`, then chroot as 65532:65532. The returned `pid` is the executable's (PID 1 inside).
 */
function startInRoot(args: string[], extraEnv: Record<string, string>, procOptions = "nosuid,nodev,noexec") {
  const script = `mount -t proc -o ${procOptions} proc "$0/proc" && exec chroot --userspec=65532:65532 "$0" ${EXE} "$@"`;
  const proc = Bun.spawn(
    ["unshare", "--fork", "--pid", "--mount", "--kill-child=SIGKILL", "sh", "-c", script, root, ...args],
    {
      env: { PATH, ...env, ...extraEnv },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const output = collectOutput(proc);
  /** The forked child of unshare, which becomes the executable through exec. */
  const childPid = async (): Promise<number | undefined> => {
    const text = await readFile(`/proc/${proc.pid}/task/${proc.pid}/children`, "utf8").catch(() => "");
    return Number(text.trim().split(/\s+/)[0]) || undefined;
  };
  const exited = proc.exited.then(async (code) => {
    await output.drained;
    return code;
  });
  return { proc, output, childPid, exited };
}

describe("the image's root, chrooted", () => {
  testHere("runs --version and --help as user 65532 with nothing but the image's files", async () => {
    const version = startInRoot(["--version"], {});
    expect({ code: await version.exited, output: version.output.text() }).toEqual({
      code: 0,
      output: expect.stringMatching(/^cloud-controller-manager v\S+\n$/),
    });
    const help = startInRoot(["--help"], {});
    expect(await help.exited).toBe(0);
    expect(help.output.text()).toContain("--secure-port");
  });

  const servingCases = [
    { proc: "nosuid,nodev,noexec", as: "as a container runtime mounts it" },
    { proc: "subset=pid,hidepid=invisible", as: "limited to processes, as the systemd unit's ProcSubset=pid" },
  ];
  for (const c of servingCases) {
    testHere(
      `serves /healthz and reaches the API in-cluster with /proc ${c.as}`,
      async () => {
        const pki = createTestPki(await mkdtemp(join(work, "pki-")));
        const api = await FakeApiServer.start({
          tls: { cert: pki.serverCert, key: pki.serverKey },
          tokens: ["sa-token"],
        });
        const cloud = startSimulatedCloud({ token: "cloud-token" });
        createMachines(cloud.state, 1);
        api.store.create("/v1/nodes", uninitializedNode("node-1"));
        // The cloud behind TLS from the test CA, which only the root's CA bundle vouches for: the image's ENV
        // (NODE_USE_SYSTEM_CA) must make the executable trust that bundle. The bundle is what an operator would
        // mount over the image's own.
        const cloudTls = Bun.serve({
          hostname: "127.0.0.1",
          port: 0,
          tls: { cert: pki.serverCert, key: pki.serverKey },
          fetch: (req) => {
            const u = new URL(req.url);
            return fetch(`${cloud.url}${u.pathname}${u.search}`, {
              method: req.method,
              headers: req.headers,
              body: req.body,
            });
          },
        });
        const bundle = join(root, "etc", "ssl", "certs", "ca-certificates.crt");
        const imageBundle = await readFile(bundle, "utf8");
        await writeFile(bundle, `${imageBundle}\n${pki.caCert}`);
        // What the kubelet and a ConfigMap volume would put into the container.
        await mkdir(join(root, SA_DIR), { recursive: true, mode: 0o755 });
        await writeFile(join(root, SA_DIR, "token"), "sa-token", { mode: 0o644 });
        await writeFile(join(root, SA_DIR, "ca.crt"), pki.caCert, { mode: 0o644 });
        await writeFile(join(root, SA_DIR, "namespace"), "kube-system", { mode: 0o644 });
        await mkdir(join(root, "etc", "kubernetes"), { recursive: true, mode: 0o755 });
        await writeFile(
          join(root, "etc", "kubernetes", "cloud.yaml"),
          `url: https://127.0.0.1:${cloudTls.port}\ntoken: cloud-token\n`,
          {
            mode: 0o644,
          },
        );
        const port = freePort();
        const ccm = startInRoot(
          [
            "--cloud-provider=sandbox",
            "--cloud-config=/etc/kubernetes/cloud.yaml",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            `--secure-port=${port}`,
          ],
          { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: new URL(api.url).port },
          c.proc,
        );
        let running = true;
        void ccm.exited.then(() => {
          running = false;
        });
        try {
          const url = `https://127.0.0.1:${port}`;
          const insecure = { tls: { rejectUnauthorized: false } };
          const healthz = await pollFor(
            "/healthz",
            async () => {
              const r = await fetch(`${url}/healthz`, insecure);
              return r.status === 200 ? await r.text() : undefined;
            },
            { alive: () => running },
          );
          expect(healthz).toBe("ok");
          // The informers' first list, authenticated with the service-account token, over TLS checked against
          // the service-account CA: in-cluster configuration works from inside the root.
          await pollFor(
            "a list of nodes",
            async () =>
              api.requests.find((r) => r.path === "/api/v1/nodes" && r.headers.authorization === "Bearer sa-token"),
            { alive: () => running },
          );
          expect([401, 403]).toContain((await fetch(`${url}/metrics`, insecure)).status);
          // Initialised from the cloud's answer, fetched over TLS trusted through the root's CA bundle.
          const providerID = await pollFor(
            "node-1 to get a provider ID",
            async () => (api.store.get("/v1/nodes", undefined, "node-1") as Doc).spec?.providerID as string | undefined,
            { alive: () => running },
          );
          expect(providerID).toStartWith("sandbox://");

          const pid = await ccm.childPid();
          expect(pid).toBeDefined();
          process.kill(pid as number, "SIGTERM");
          expect({ code: await ccm.exited, output: ccm.output.text() }).toEqual({
            code: 0,
            output: expect.stringContaining("stopped"),
          });
        } catch (err) {
          throw new Error(`${(err as Error).message}\n--- output ---\n${ccm.output.text()}`, { cause: err });
        } finally {
          // Directly: unshare's --kill-child does not survive chroot's change of user.
          const left = await ccm.childPid();
          if (left) process.kill(left, "SIGKILL");
          ccm.proc.kill("SIGKILL");
          await ccm.exited;
          await api.close();
          await cloudTls.stop(true);
          await cloud.stop();
          await writeFile(bundle, imageBundle);
          await rm(join(root, "var"), { recursive: true, force: true });
          await rm(join(root, "etc", "kubernetes"), { recursive: true, force: true });
        }
      },
      180_000,
    );
  }
});
