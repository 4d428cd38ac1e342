/**
 * The real kubectl against the emulator, over HTTPS with a token, through a kubeconfig the server writes.
 *
 * Needs kubectl 1.32 on PATH; without it these tests are skipped and say why. To install it:
 * - Debian/Ubuntu: `apt-get install kubernetes-client` (check `kubectl version --client`: older releases ship old
 *   clients), or
 * - the static binary: `curl -LO https://dl.k8s.io/release/v1.32.4/bin/linux/amd64/kubectl && install kubectl
 *   /usr/local/bin/` (no npm package needed).
 *
 * The generators that send protobuf bodies (`kubectl create service|configmap|secret|namespace|deployment`), `run`,
 * `expose`, `scale`, `edit` and `describe node`'s Lease are covered against the compiled sandbox by
 * test/kubectl.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { type ApiServer, startApiServer } from "./server.ts";

const KUBECTL = Bun.which("kubectl");
const SKIP = KUBECTL ? "" : " [skipped: kubectl is not on PATH; see the top of kubectl.test.ts to install it]";
const T = 60_000;

let server: ApiServer;
let dir: string;
let kubeconfig: string;

const kubectl = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
  const proc = Bun.spawn([KUBECTL!, "--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache"), ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, out, err };
};

/** Like `kubectl`, but fails the test (showing stderr) unless it exits 0 without warnings. */
const ok = async (...args: string[]): Promise<string> => {
  const r = await kubectl(...args);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
  return r.out;
};

const columns = (line: string | undefined): string[] => (line ?? "").trim().split(/\s+/);

describe.skipIf(!KUBECTL)(`kubectl 1.32 against the emulator${SKIP}`, () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "apiserver-kubectl-"));
    server = await startApiServer({
      tls: "self-signed",
      tokens: { "t-admin": { user: "admin", groups: ["system:masters"] } },
      bookmarkIntervalMs: 0,
    });
    kubeconfig = await server.writeKubeconfig(join(dir, "kubeconfig"));
    server.store.create<Node>(Resources.nodes, {
      metadata: { name: "n1", labels: { "node-role.kubernetes.io/control-plane": "" } },
      spec: {
        taints: [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }],
      },
      status: {
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "ready",
            lastHeartbeatTime: "2026-01-01T00:00:00Z",
            lastTransitionTime: "2026-01-01T00:00:00Z",
          },
        ],
        addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
        nodeInfo: { kubeletVersion: "v1.32.0" } as NonNullable<NonNullable<Node["status"]>["nodeInfo"]>,
      },
    });
  }, T);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test(
    "get nodes prints NAME STATUS ROLES AGE VERSION without warnings",
    async () => {
      const lines = (await ok("get", "nodes")).trim().split("\n");
      expect(columns(lines[0])).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
      const row = columns(lines[1]);
      expect([row[0], row[1], row[2], row[4]]).toEqual(["n1", "Ready", "control-plane", "v1.32.0"]);
    },
    T,
  );

  test(
    "get -w prints the list, then changes as they happen",
    async () => {
      const proc = Bun.spawn(
        [
          KUBECTL!,
          "--kubeconfig",
          kubeconfig,
          "--cache-dir",
          join(dir, "cache"),
          "get",
          "nodes",
          "-w",
          "--output-watch-events",
        ],
        {
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      try {
        const reader = proc.stdout.getReader();
        const decoder = new TextDecoder();
        let text = "";
        const lines = async (n: number): Promise<string[]> => {
          const deadline = Date.now() + 30_000;
          while (text.split("\n").length - 1 < n) {
            if (Date.now() > deadline) throw new Error(`kubectl get -w printed only:\n${text}`);
            const { value, done } = await reader.read();
            if (done) throw new Error(`kubectl get -w exited:\n${text}`);
            text += decoder.decode(value, { stream: true });
          }
          return text.split("\n").slice(0, n);
        };
        const [header, first] = await lines(2);
        expect(columns(header)).toEqual(["EVENT", "NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
        expect(columns(first).slice(0, 2)).toEqual(["ADDED", "n1"]);
        server.store.patch(Resources.nodes, "n1", "merge", { spec: { unschedulable: true } });
        const third = (await lines(3))[2];
        expect(columns(third).slice(0, 3)).toEqual(["MODIFIED", "n1", "Ready,SchedulingDisabled"]);
      } finally {
        proc.kill();
        await proc.exited;
        server.store.patch(Resources.nodes, "n1", "merge", { spec: { unschedulable: null } });
      }
    },
    T,
  );

  test(
    "describe node shows taints, conditions and events recorded through events.k8s.io",
    async () => {
      const node = server.store.get<Node>(Resources.nodes, "n1");
      server.store.create(Resources.eventsV1, {
        metadata: { name: "n1.sync", namespace: "default" },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "cloud-node-controller",
        reportingInstance: "ccm-1",
        action: "Sync",
        reason: "Synced",
        type: "Normal",
        note: "Node synced from the cloud",
        regarding: { kind: "Node", name: "n1", uid: node.metadata?.uid, apiVersion: "v1" },
      } as never);
      const out = await ok("describe", "node", "n1");
      expect(out).toMatch(/^Name:\s+n1$/m);
      expect(out).toMatch(/^Taints:\s+node\.cloudprovider\.kubernetes\.io\/uninitialized=true:NoSchedule$/m);
      expect(out).toMatch(/Ready\s+True/);
      expect(out).toMatch(/Normal\s+Synced\s+.*Node synced from the cloud/);
    },
    T,
  );

  test(
    "apply -f creates, then reports unchanged, then configured",
    async () => {
      const manifest = (targetPort: number) =>
        `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: default\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports:\n  - name: http\n    port: 80\n    targetPort: ${targetPort}\n`;
      const file = join(dir, "svc.yaml");
      await writeFile(file, manifest(8080));
      expect((await ok("apply", "-f", file)).trim()).toBe("service/web created");
      expect((await ok("apply", "-f", file)).trim()).toBe("service/web unchanged");
      await writeFile(file, manifest(8081));
      expect((await ok("apply", "-f", file)).trim()).toBe("service/web configured");
      const svc = server.store.get<Service>(Resources.services, "web", { namespace: "default" });
      expect(svc.spec?.ports?.[0]?.targetPort).toBe(8081);
      expect(svc.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    },
    T,
  );

  test(
    "patch: merge, strategic, json, and --subresource=status",
    async () => {
      expect(await ok("patch", "node", "n1", "--type=merge", "-p", '{"metadata":{"labels":{"m":"1"}}}')).toBe(
        "node/n1 patched\n",
      );
      await ok("patch", "node", "n1", "--type=strategic", "-p", '{"metadata":{"annotations":{"s":"1"}}}');
      await ok(
        "patch",
        "node",
        "n1",
        "--type=json",
        "-p",
        '[{"op":"add","path":"/spec/podCIDR","value":"10.244.0.0/24"}]',
      );
      await ok(
        "patch",
        "node",
        "n1",
        "--subresource=status",
        "--type=strategic",
        "-p",
        '{"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletDown"}]}}',
      );
      const n = server.store.get<Node>(Resources.nodes, "n1");
      expect(n.metadata?.labels?.m).toBe("1");
      expect(n.metadata?.annotations?.s).toBe("1");
      expect(n.spec?.podCIDR).toBe("10.244.0.0/24");
      expect(n.status?.conditions?.[0]).toMatchObject({
        type: "Ready",
        status: "False",
        reason: "KubeletDown",
        lastHeartbeatTime: "2026-01-01T00:00:00Z",
      });
    },
    T,
  );

  test(
    "label and taint",
    async () => {
      expect((await ok("label", "node", "n1", "env=prod")).trim()).toBe("node/n1 labeled");
      expect((await ok("taint", "node", "n1", "dedicated=edge:NoExecute")).trim()).toBe("node/n1 tainted");
      expect((await ok("taint", "node", "n1", "node.cloudprovider.kubernetes.io/uninitialized-")).trim()).toBe(
        "node/n1 untainted",
      );
      const n = server.store.get<Node>(Resources.nodes, "n1");
      expect(n.metadata?.labels?.env).toBe("prod");
      expect(n.spec?.taints).toEqual([{ key: "dedicated", value: "edge", effect: "NoExecute" }]);
    },
    T,
  );

  test(
    "delete waits for the object to go",
    async () => {
      expect((await ok("delete", "service", "web")).trim()).toBe('service "web" deleted');
      expect(() => server.store.get(Resources.services, "web", { namespace: "default" })).toThrow(
        'services "web" not found',
      );
      const missing = await kubectl("get", "service", "web");
      expect(missing.code).toBe(1);
      expect(missing.err).toContain('services "web" not found');
    },
    T,
  );
});
