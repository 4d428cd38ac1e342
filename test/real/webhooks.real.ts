/**
 * The provider's admission webhook on a real kube-apiserver (1.20.2): the compiled
 * `hcloud-cloud-controller-manager` (against the hcloud emulator) serves `service-annotations`, and the
 * ValidatingWebhookConfiguration deploy/kubernetes/webhooks ships is applied with its Service reference replaced by
 * the manager's loopback URL and the serving certificate as caBundle (no pods run here to stand behind a Service).
 * Then `kubectl apply` of a LoadBalancer Service with an invalid hcloud annotation fails at once, naming the
 * annotation and its value; a valid one is stored; and once the manager is gone, `failurePolicy: Ignore` lets
 * Services through.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateSelfSignedCert } from "../../platform/self-signed.ts";
import type { RealApiServer } from "../../scripts/real-apiserver/server.ts";
import { type HcloudWorld, hcloudManagerCommand, startHcloudWorld } from "../support/hcloud.ts";
import { freePort, poll, type RunningProcess, spawnCollecting } from "../support/processes.ts";
import { START_TIMEOUT_MS, startRealServer } from "./cluster.ts";

const CONFIGURATION = resolve(
  import.meta.dir,
  "..",
  "..",
  "deploy",
  "kubernetes",
  "webhooks",
  "validatingwebhookconfiguration.yaml",
);
const HEALTH_CHECK_PORT = "load-balancer.hetzner.cloud/health-check-port";

let server: RealApiServer;
let world: HcloudWorld;
let manager: RunningProcess;
let dir = "";

const kubectl = (...args: string[]) => {
  const r = Bun.spawnSync(["kubectl", `--kubeconfig=${server.kubeconfig}`, ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

/** `kubectl apply -f` of a LoadBalancer Service `name` with `annotations`, written to a file of this test's. */
async function applyService(name: string, annotations: Record<string, string>) {
  const file = join(dir, `${name}.json`);
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "default", annotations },
      spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    }),
  );
  return kubectl("apply", "-f", file);
}

beforeAll(async () => {
  server = await startRealServer();
  dir = await mkdtemp(join(tmpdir(), "ccm-real-webhooks-"));
  world = startHcloudWorld();
  const cert = await generateSelfSignedCert({ now: Date.now });
  const files = { cert: join(dir, "webhook.crt"), key: join(dir, "webhook.key") };
  await writeFile(files.cert, cert.cert);
  await writeFile(files.key, cert.key, { mode: 0o600 });
  const port = freePort();
  manager = spawnCollecting(
    await hcloudManagerCommand(server.kubeconfig, [
      "--feature-gates=CloudControllerManagerWebhook=true",
      "--webhooks=*",
      `--webhook-secure-port=${port}`,
      "--webhook-bind-address=127.0.0.1",
      `--webhook-tls-cert-file=${files.cert}`,
      `--webhook-tls-private-key-file=${files.key}`,
      "--controllers=service",
    ]),
    world.env(),
  );
  await poll(() => manager.output().includes("serving webhooks on"), {
    timeoutMs: 60_000,
    message: "the manager to serve its webhooks",
  });

  // The shipped configuration, pointed at the manager by URL.
  const shipped = Bun.YAML.parse(await readFile(CONFIGURATION, "utf8")) as {
    webhooks: { clientConfig: Record<string, unknown> }[];
  };
  for (const webhook of shipped.webhooks) {
    const { path } = webhook.clientConfig.service as { path: string };
    webhook.clientConfig = {
      url: `https://127.0.0.1:${port}${path}`,
      caBundle: Buffer.from(cert.cert).toString("base64"),
    };
  }
  const file = join(dir, "configuration.json");
  await writeFile(file, JSON.stringify(shipped));
  const applied = kubectl("apply", "-f", file);
  if (applied.code !== 0) throw new Error(`kubectl apply of the configuration: ${applied.stderr}`);
}, START_TIMEOUT_MS);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await world?.stop();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the service-annotations webhook behind a real API server", () => {
  test("kubectl apply of a Service with an invalid hcloud annotation is refused, naming the annotation", async () => {
    // The API server may take a moment to use a configuration just written: until the refusal comes, remove
    // whatever it stored meanwhile and try again.
    let last = { code: 0, stdout: "", stderr: "" };
    await poll(
      async () => {
        last = await applyService("refused", { [HEALTH_CHECK_PORT]: "eighty" });
        if (last.code === 0) kubectl("delete", "service", "refused", "--namespace=default", "--wait=false");
        return last.code !== 0;
      },
      { message: `the refusal; manager said:\n${manager.output()}` },
    );
    expect(last.stderr).toContain(
      'admission webhook "service-annotations.cloud-controller-manager.k8s.io" denied the request:',
    );
    expect(last.stderr).toContain(`${HEALTH_CHECK_PORT}="eighty": expected an integer from 1 to 65535`);
    expect(kubectl("get", "service", "refused", "--namespace=default").code).not.toBe(0);
  });

  test("a Service whose hcloud annotations are valid is stored", async () => {
    const r = await applyService("accepted", { [HEALTH_CHECK_PORT]: "8080" });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  });

  test("with the manager gone, failurePolicy: Ignore lets a Service through", async () => {
    manager.proc.kill("SIGKILL");
    await manager.exited;
    const r = await applyService("unchecked", { [HEALTH_CHECK_PORT]: "eighty" });
    expect(r.code).toBe(0);
  });
});
