/**
 * As a newcomer meets it: the compiled all-in-one's `sandbox`, and the real kubectl through every
 * command a newcomer is likely to type — the watch hints exactly as the sandbox prints them, `create` (generators
 * that send protobuf), `run`, `expose`, `scale`, `label`, `annotate`, `auth can-i`, `edit`, `get -w`, `describe`,
 * `delete` — each checked for its effect on the emulator's objects.
 *
 * kubectl is the one on PATH; without one, the test installs Debian's `kubernetes-client` (as root, with apt) or
 * fails saying why.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aptInstall } from "../scripts/lib/apt.ts";
import { executable } from "./support/executables.ts";
import { poll, type RunningProcess, spawnCollecting, waitFor } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

// biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary API objects.
type Json = any;

/** kubectl on PATH, else Debian's `kubernetes-client` installed now; throws with the reason when neither works. */
async function findKubectl(): Promise<string> {
  const onPath = Bun.which("kubectl", { PATH: `${process.env.PATH ?? ""}:/usr/local/bin:/usr/bin:/bin` });
  if (onPath) return onPath;
  try {
    await aptInstall(["kubernetes-client"], (line) => console.log(`kubectl e2e: ${line}`));
  } catch (err) {
    throw new Error(
      `kubectl is not on PATH and Debian's kubernetes-client could not be installed (${(err as Error).message}); install kubectl (apt-get install kubernetes-client, as root) and run again`,
    );
  }
  const installed = Bun.which("kubectl", { PATH: "/usr/bin:/bin" });
  if (!installed) throw new Error("apt-get installed kubernetes-client, but no kubectl is on /usr/bin:/bin");
  return installed;
}

let kubectlPath: string;
let dir: string;
let sandbox: RunningProcess;
let kubeconfig: string;
let apiUrl: string;
let env: Record<string, string>;

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function run(args: string[], extraEnv: Record<string, string> = {}): Promise<Ran> {
  const proc = Bun.spawn([kubectlPath, ...args], { env: { ...env, ...extraEnv }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, out, err };
}

/** `kubectl --kubeconfig <sandbox's> …`, which must exit 0 without a word on stderr; its stdout. */
async function kubectl(...args: string[]): Promise<string> {
  const r = await run(["--kubeconfig", kubeconfig, ...args]);
  expect({ args, code: r.code, err: r.err }).toEqual({ args, code: 0, err: "" });
  return r.out;
}

/** The object at `path` of the emulator's API, or undefined when it is 404. */
async function object(path: string): Promise<Json | undefined> {
  const r = await fetch(`${apiUrl}${path}`);
  if (r.status === 404) return undefined;
  expect(r.status).toBe(200);
  return r.json();
}

/**
 * Starts `argv` (a kubectl watch) and waits until a line of its output matches `line`; then, if `next` is given,
 * runs its action and waits for its line. Stops the watch at the end; fails with what it printed when a line does
 * not come or it writes to stderr.
 */
async function watchUntil(
  argv: string[],
  line: RegExp,
  next?: { readonly act: () => Promise<unknown>; readonly line: RegExp },
): Promise<string> {
  const proc = Bun.spawn(argv, { env, stdout: "pipe", stderr: "pipe" });
  let text = "";
  let errText = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of proc.stdout) text += decoder.decode(chunk, { stream: true });
  })();
  const pumpErr = (async () => {
    for await (const chunk of proc.stderr) errText += decoder.decode(chunk, { stream: true });
  })();
  const printed = (re: RegExp) =>
    poll(() => text.split("\n").some((l) => re.test(l)) || proc.exitCode !== null, {
      timeoutMs: 60_000,
      message: `${argv.slice(1).join(" ")} to print a line matching ${re}`,
    });
  try {
    await printed(line);
    if (next) {
      await next.act();
      await printed(next.line);
    }
    expect({ exited: proc.exitCode, stderr: errText }).toEqual({ exited: null, stderr: "" });
    return text;
  } catch (err) {
    throw new Error(`${(err as Error).message}\nit printed:\n${text}\nstderr:\n${errText}`);
  } finally {
    proc.kill();
    await proc.exited;
    await Promise.all([pump, pumpErr]);
  }
}

beforeAll(async () => {
  kubectlPath = await findKubectl();
  dir = await mkdtemp(join(tmpdir(), "kubectl-e2e-"));
  // kubectl's discovery cache and any config of the user running the tests stay out of it.
  env = { PATH: "/usr/bin:/bin", HOME: dir };
  sandbox = spawnCollecting([await executable(), "sandbox", "--nodes=2", `--dir=${join(dir, "sandbox")}`]);
  await waitFor(() => /^ready: /m.test(sandbox.output()) || sandbox.proc.exitCode !== null, {
    timeoutMs: 90_000,
    message: "the sandbox to print its ready line",
  });
  const out = sandbox.output();
  expect(out).toMatch(/^ready: /m);
  apiUrl = /^Kubernetes API:\s+(\S+)$/m.exec(out)?.[1] ?? "";
  kubeconfig = /^kubeconfig:\s+(\S+)$/m.exec(out)?.[1] ?? "";
  expect({ apiUrl, kubeconfig }).toEqual({ apiUrl: expect.stringMatching(/^http/), kubeconfig: expect.any(String) });
}, 240_000);

afterAll(async () => {
  sandbox?.proc.kill("SIGTERM");
  await sandbox?.exited;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kubectl against the sandbox", () => {
  test("each watch the sandbox prints works exactly as printed and shows its objects", async () => {
    const hints = [...sandbox.output().matchAll(/^(?:watch it:)?\s+(kubectl .* -w)$/gm)].map((m) => m[1]!);
    expect(hints.length).toBeGreaterThanOrEqual(2);
    const expected: Record<string, RegExp> = {
      nodes: /^node-1\s+Ready\s/,
      services: /^hello\s+LoadBalancer\s+\S+\s+203\.0\.113\.\d+\s/,
    };
    for (const hint of hints) {
      const [, ...args] = hint.split(/\s+/);
      const kind = args[args.indexOf("get") + 1] ?? "";
      expect(Object.keys(expected)).toContain(kind);
      await watchUntil([kubectlPath, ...args], expected[kind]!);
    }
  });

  test("create service loadbalancer (a protobuf body) gets a load balancer from the controllers", async () => {
    expect(await kubectl("create", "service", "loadbalancer", "web", "--tcp=8080:80")).toBe("service/web created\n");
    const svc = await object("/api/v1/namespaces/default/services/web");
    expect(svc.spec).toMatchObject({ type: "LoadBalancer", selector: { app: "web" } });
    expect(svc.spec.ports).toMatchObject([{ port: 8080, targetPort: 80, protocol: "TCP" }]);
    await poll(async () => (await object("/api/v1/namespaces/default/services/web")).status.loadBalancer.ingress, {
      message: "the load balancer address of service web",
    });
  });

  test.each([
    {
      args: ["create", "configmap", "settings", "--from-literal=mode=demo"],
      printed: "configmap/settings created",
      path: "/api/v1/namespaces/default/configmaps/settings",
      want: { data: { mode: "demo" } },
    },
    {
      args: ["create", "secret", "generic", "token", "--from-literal=key=s3cret"],
      printed: "secret/token created",
      path: "/api/v1/namespaces/default/secrets/token",
      want: { type: "Opaque", data: { key: Buffer.from("s3cret").toString("base64") } },
    },
    {
      args: ["create", "namespace", "team-a"],
      printed: "namespace/team-a created",
      path: "/api/v1/namespaces/team-a",
      want: { status: { phase: "Active" } },
    },
    {
      args: ["create", "deployment", "shop", "--image=nginx:1.27", "--replicas=2"],
      printed: "deployment.apps/shop created",
      path: "/apis/apps/v1/namespaces/default/deployments/shop",
      want: { spec: { replicas: 2, selector: { matchLabels: { app: "shop" } } } },
    },
    {
      args: ["run", "box", "--image=busybox", "--labels=app=box"],
      printed: "pod/box created",
      path: "/api/v1/namespaces/default/pods/box",
      want: { metadata: { labels: { app: "box" } }, spec: { containers: [{ name: "box", image: "busybox" }] } },
    },
    {
      args: ["expose", "deployment", "shop", "--port=80", "--target-port=8080", "--type=LoadBalancer"],
      printed: "service/shop exposed",
      path: "/api/v1/namespaces/default/services/shop",
      want: { spec: { type: "LoadBalancer", selector: { app: "shop" }, ports: [{ port: 80, targetPort: 8080 }] } },
    },
    {
      args: ["expose", "pod", "box", "--port=80"],
      printed: "service/box exposed",
      path: "/api/v1/namespaces/default/services/box",
      want: { spec: { type: "ClusterIP", selector: { app: "box" } } },
    },
    {
      args: ["scale", "deployment", "shop", "--replicas=3"],
      printed: "deployment.apps/shop scaled",
      path: "/apis/apps/v1/namespaces/default/deployments/shop",
      want: { spec: { replicas: 3 } },
    },
    {
      args: ["label", "service", "web", "tier=frontend"],
      printed: "service/web labeled",
      path: "/api/v1/namespaces/default/services/web",
      want: { metadata: { labels: { app: "web", tier: "frontend" } } },
    },
    {
      args: ["annotate", "service", "web", "owner=newcomer"],
      printed: "service/web annotated",
      path: "/api/v1/namespaces/default/services/web",
      want: { metadata: { annotations: { owner: "newcomer" } } },
    },
    {
      args: ["label", "node", "node-2", "disk=ssd"],
      printed: "node/node-2 labeled",
      path: "/api/v1/nodes/node-2",
      want: { metadata: { labels: { disk: "ssd" } } },
    },
  ])("kubectl $args.0 $args.1 $args.2: $printed", async ({ args, printed, path, want }) => {
    expect(await kubectl(...args)).toBe(`${printed}\n`);
    expect(await object(path)).toMatchObject(want);
  });

  test("auth can-i (a protobuf SelfSubjectAccessReview) answers for the sandbox's user", async () => {
    expect(await kubectl("auth", "can-i", "create", "deployments")).toBe("yes\n");
  });

  test("edit with EDITOR set to a script changes the object", async () => {
    const editor = join(dir, "editor.sh");
    await writeFile(editor, "#!/bin/sh\nsed -i 's/sessionAffinity: None/sessionAffinity: ClientIP/' \"$1\"\n");
    await chmod(editor, 0o755);
    const r = await run(["--kubeconfig", kubeconfig, "edit", "service", "web"], { EDITOR: editor });
    expect({ code: r.code, out: r.out, err: r.err }).toEqual({ code: 0, out: "service/web edited\n", err: "" });
    expect((await object("/api/v1/namespaces/default/services/web")).spec.sessionAffinity).toBe("ClientIP");
  });

  test("get -w shows a change as it happens", async () => {
    const printed = await watchUntil(
      [kubectlPath, "--kubeconfig", kubeconfig, "get", "deployments", "-w"],
      /^shop\s+0\/3\s/,
      { act: () => kubectl("scale", "deployment", "shop", "--replicas=5"), line: /^shop\s+0\/5\s/ },
    );
    expect(printed.split("\n")[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
  });

  test.each([
    {
      args: ["describe", "node", "node-1"],
      lines: [/^Name:\s+node-1$/m, /^Lease:\n\s+HolderIdentity:\s+node-1$/m, /^ProviderID:\s+sandbox:\/\//m],
      absent: /Failed to get lease/,
    },
    {
      args: ["describe", "service", "web"],
      lines: [/^Name:\s+web$/m, /^Type:\s+LoadBalancer$/m, /^LoadBalancer Ingress:\s+203\.0\.113\.\d+/m],
      absent: /Failed to|error:/,
    },
    {
      args: ["describe", "deployment", "shop"],
      lines: [/^Name:\s+shop$/m, /^Replicas:\s+5 desired/m, /^\s+Image:\s+nginx:1\.27$/m],
      absent: /Failed to|error:/,
    },
  ])("kubectl $args.0 $args.1 $args.2", async ({ args, lines, absent }) => {
    const out = await kubectl(...args);
    for (const line of lines) expect(out).toMatch(line);
    expect(out).not.toMatch(absent);
  });

  test("logs of a pod says the sandbox runs no containers (it stores pods, runs none)", async () => {
    const r = await run(["--kubeconfig", kubeconfig, "logs", "box"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('pod "box" has no running container: the sandbox stores pods but runs none');
  });

  test.each([
    {
      args: ["delete", "service", "web"],
      printed: 'service "web" deleted',
      path: "/api/v1/namespaces/default/services/web",
    },
    { args: ["delete", "pod", "box"], printed: 'pod "box" deleted', path: "/api/v1/namespaces/default/pods/box" },
    {
      args: ["delete", "deployment", "shop"],
      printed: 'deployment.apps "shop" deleted',
      path: "/apis/apps/v1/namespaces/default/deployments/shop",
    },
    {
      args: ["delete", "namespace", "team-a"],
      printed: 'namespace "team-a" deleted',
      path: "/api/v1/namespaces/team-a",
    },
  ])("kubectl $args.0 $args.1 $args.2 removes it", async ({ args, printed, path }) => {
    expect(await kubectl(...args)).toBe(`${printed}\n`);
    expect(await object(path)).toBeUndefined();
  });
});
