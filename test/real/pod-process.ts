/**
 * A pod of a workload that Helm created on the real API server, run as a local process. This tier has a real
 * kube-apiserver but no kubelet or container runtime, so the container's entrypoint — the all-in-one executable,
 * which deploy/container installs as /usr/local/bin/cloud-controller-manager — runs on the host with the container
 * as the API server stores it: its args; its env with each `value` and `secretKeyRef` resolved from the Secrets
 * (optional ones skipped when missing, as the kubelet does); its Secret volumes written into a folder and the args'
 * mount paths moved there; the ServiceAccount's token from the TokenRequest API as its credentials (a kubeconfig in
 * place of the in-cluster ones); the serving port a free one, on loopback. Ready is what the kubelet would decide:
 * the container's readinessProbe (HTTPS GET of its path) answers 200.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RealApiServer } from "../../scripts/real-apiserver/server.ts";
import { executable } from "../support/executables.ts";
import { freePort, poll, type RunningProcess, spawnCollecting } from "../support/processes.ts";

// biome-ignore lint/suspicious/noExplicitAny: the workload is read field by field as the kubelet reads it
type Json = any;

export interface PodProcess {
  readonly process: RunningProcess;
  /** The container's args after the moves (mount paths, port, address), without --kubeconfig. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Resolves once the readinessProbe answers 200; rejects with the process's output after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
}

async function getJson(server: RealApiServer, path: string): Promise<Json | undefined> {
  const res = await server.request("GET", path);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function startPodAsProcess(
  server: RealApiServer,
  dir: string,
  workload: { kind: "Deployment" | "DaemonSet"; namespace: string; name: string },
): Promise<PodProcess> {
  const { namespace: ns, name } = workload;
  const resource = workload.kind === "Deployment" ? "deployments" : "daemonsets";
  const object = await getJson(server, `/apis/apps/v1/namespaces/${ns}/${resource}/${name}`);
  if (!object) throw new Error(`${workload.kind} ${ns}/${name} does not exist`);
  const pod = object.spec.template.spec;
  const container = pod.containers[0];
  const secret = (secretName: string) => getJson(server, `/api/v1/namespaces/${ns}/secrets/${secretName}`);

  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const data = (await secret(ref.name))?.data?.[ref.key];
      if (data !== undefined) env[e.name] = Buffer.from(data, "base64").toString();
      else if (!ref.optional) throw new Error(`env ${e.name}: Secret ${ns}/${ref.name} has no key ${ref.key}`);
    } else throw new Error(`env ${e.name}: only value and secretKeyRef are resolved here`);
  }

  const volumes = new Map<string, string>();
  for (const v of pod.volumes ?? []) {
    if (!v.secret) throw new Error(`volume ${v.name}: only Secret volumes are written here`);
    const data: Record<string, string> = (await secret(v.secret.secretName))?.data ?? {};
    const items: { key: string; path: string }[] =
      v.secret.items ?? Object.keys(data).map((k) => ({ key: k, path: k }));
    const folder = join(dir, "volumes", v.name);
    for (const { key, path } of items) {
      if (data[key] === undefined) throw new Error(`volume ${v.name}: Secret ${v.secret.secretName} has no key ${key}`);
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), Buffer.from(data[key], "base64"), { mode: 0o600 });
    }
    volumes.set(v.name, folder);
  }

  const port = await freePort();
  const mounts: [string, string][] = (container.volumeMounts ?? []).map((m: Json) => [
    m.mountPath,
    volumes.get(m.name),
  ]);
  const args: string[] = container.args.map((a: string) => {
    if (/^--secure-port=/.test(a)) return `--secure-port=${port}`;
    if (/^--bind-address=/.test(a)) return "--bind-address=127.0.0.1";
    return mounts.reduce((out, [from, to]) => out.replaceAll(from, to), a);
  });

  const sa = pod.serviceAccountName;
  const res = await server.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  if (res.status !== 201) throw new Error(`TokenRequest for ${ns}/${sa}: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { status: { token: string } }).status.token;
  const kubeconfig = await server.writeKubeconfig(join(dir, "pod.kubeconfig"), { name: sa, token });

  const process = spawnCollecting([await executable(), ...args, `--kubeconfig=${kubeconfig}`], {
    PATH: "/usr/bin:/bin",
    ...env,
  });
  const probe = container.readinessProbe.httpGet;
  const url = `${probe.scheme.toLowerCase()}://127.0.0.1:${port}${probe.path}`;
  return {
    process,
    args,
    env,
    ready: (timeoutMs = 90_000) =>
      poll(
        async () => {
          const r = await fetch(url, { tls: { rejectUnauthorized: false } }).catch(() => undefined);
          return r?.status === 200;
        },
        { timeoutMs, message: `${url} answering 200` },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nthe manager said:\n${process.output().slice(-4000)}`);
      }),
  };
}
