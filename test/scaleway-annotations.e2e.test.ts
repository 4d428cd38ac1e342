/**
 * The scw CCM annotation table end to end: every row of test/support/scaleway-annotation-rows.ts (one per
 * `service.beta.kubernetes.io/scw-loadbalancer-*` annotation, 49) is one Service, all handled by one run of the
 * compiled `scaleway-cloud-controller-manager` with scw CCM's flags and environment. Rows read only at creation
 * carry their annotations from the start; the others first get a load balancer without, then are patched and must
 * change it in place (same ID). Each row is then checked on the emulated load balancer and the Service's status,
 * and no Service got a Warning event.
 *
 * The provider runs at its production pace (10 requests a second, burst 20; providers/scaleway/api/client.ts), which
 * makes ~50 load balancers take about a minute; the deadlines stay generous for a busy machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { ScalewayAnnotations } from "../providers/scaleway/annotations.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { callJson } from "../sandbox/kit/testing.ts";
import { type ScalewayEmulator, startScalewayEmulator } from "../sandbox/scaleway/server.ts";
import { createInstanceServer } from "../sandbox/scaleway/state/instance.ts";
import { allocatePrivateIp } from "../sandbox/scaleway/state/ipam.ts";
import { createLbIp } from "../sandbox/scaleway/state/lb.ts";
import { ACCESS_KEY, PRIVATE_NETWORK, SECRET_KEY } from "../sandbox/scaleway/testing.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { setNodeReady } from "./support/proxmox.ts";
import {
  A,
  type AnnotationRow,
  annotationRows,
  type LbView,
  type RowWorld,
} from "./support/scaleway-annotation-rows.ts";

const ns = { namespace: "default" };
const MINUTE = 60_000;
const DEADLINE = 15 * MINUTE;
const Z = "/lb/v1/zones/fr-par-1";

let api: ApiServer;
let client: KubeClient;
let scw: ScalewayEmulator;
let dir = "";
let manager: RunningProcess | undefined;
let base: Omit<RowWorld, "uid" | "nodePort" | "healthCheckNodePort" | "certID">;

/** Per row: its Service's name, its view of the world, the load balancer's ID before the change (if changed). */
interface Case {
  readonly row: AnnotationRow;
  readonly name: string;
  w?: RowWorld;
  idBefore?: string;
}
const cases: Case[] = annotationRows.map((row) => ({ row, name: `ann-${row.key}` }));
const nodeNames = ["n1", "n2", "n3"];

const scwCall = async (method: string, path: string, body?: unknown) => {
  const answer = await callJson(`${scw.endpoint}${path}`, method, { "x-auth-token": SECRET_KEY }, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as { id: string };
};
const stored = (name: string): Service | undefined => {
  try {
    return api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
const statusOf = (name: string) => stored(name)?.status?.loadBalancer ?? {};

/** The load balancer the id annotation names, else the one named by the Service's UID; its parts that are the Service's. */
function viewOf(c: Case): LbView | undefined {
  if (!c.w) return undefined;
  const id = stored(c.name)?.metadata?.annotations?.[`${A}id`]?.split("/")[1];
  const lb =
    id === undefined ? [...scw.world.lb.lbs.values()].find((l) => l.name === c.w?.uid) : scw.world.lb.lbs.get(id);
  if (!lb) return undefined;
  const uid = c.w.uid;
  const shared = lb.id === base.sharedLB;
  const backends = [...scw.world.lb.backends.values()].filter(
    (b) => b.lbId === lb.id && (!shared || b.fields.name.startsWith(`${uid}_`)),
  );
  const ids = new Set(backends.map((b) => b.id));
  return {
    lb,
    backends,
    frontends: [...scw.world.lb.frontends.values()].filter((f) => f.lbId === lb.id && ids.has(f.backendId)),
    ips: [...scw.world.lb.ips.values()].filter((ip) => ip.lbId === lb.id),
    privateNetworks: scw.world.lb.privateNetworks.filter((p) => p.lbId === lb.id),
  };
}
const hasIngress = (c: Case) => (statusOf(c.name).ingress ?? []).length > 0 && viewOf(c) !== undefined;

/** The row's check, as a message when it fails. */
function failure(c: Case): string | undefined {
  const v = viewOf(c);
  if (!c.w || !v) return "no load balancer";
  if ((statusOf(c.name).ingress ?? []).length === 0) return "no ingress";
  try {
    c.row.check(v, statusOf(c.name), c.w);
    return undefined;
  } catch (err) {
    return (err as Error).message.split("\n").slice(0, 6).join(" ");
  }
}

async function until(what: string, pending: () => string[], timeoutMs: number) {
  await poll(() => pending().length === 0, { timeoutMs, everyMs: 1_000, message: what }).catch((err) => {
    throw new Error(
      `${(err as Error).message}; still pending:\n${pending().join("\n")}\nmanager said:\n${manager?.output().slice(-3000)}`,
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-scaleway-ann-"));
  scw = startScalewayEmulator({ secretKey: SECRET_KEY });
  ({ api, client } = await startE2eApiServer(dir));
  const files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "scaleway.yaml") };
  await writeFile(join(dir, "secret-key"), `${SECRET_KEY}\n`, { mode: 0o600 });
  await writeFile(files.cloudConfig, "SCW_DEFAULT_REGION: fr-par\nSCW_DEFAULT_ZONE: fr-par-1\n", { mode: 0o600 });
  const externalIPs: string[] = [];
  const internalIPs: string[] = [];
  for (const [i, name] of nodeNames.entries()) {
    const s = createInstanceServer(scw.world, { name, zone: "fr-par-1", private_ip: `10.1.0.${i + 1}` });
    externalIPs.push(s.publicIps.find((ip) => ip.family === "inet")?.address ?? "");
    internalIPs.push(`10.1.0.${i + 1}`);
    await client.create(Resources.nodes, {
      metadata: { name, labels: name === "n1" ? { role: "edge" } : {} },
      spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
    } satisfies Node);
    await setNodeReady(client, name, "True");
  }
  const project = scw.world.defaultProject.id;
  const ip = createLbIp(scw.world, "fr-par-1", project, false);
  const made = async (name: string) =>
    (await scwCall("POST", `${Z}/lbs`, { name, description: "", type: "lb-s", tags: [], project_id: project })).id;
  const [ipam] = allocatePrivateIp(scw.world, {
    region: "fr-par",
    project,
    privateNetworkId: PRIVATE_NETWORK,
    resource: { type: "custom", id: "reserved", macAddress: "", name: "reserved" },
  });
  base = {
    externalIPs,
    internalIPs,
    edgeIP: externalIPs[0] ?? "",
    ipID: ip.id,
    ipAddress: ip.address,
    namedLB: await made("named"),
    sharedLB: await made("shared"),
    privateNetwork: PRIVATE_NETWORK,
    ipamID: ipam?.id ?? "",
  };
  const env = {
    SCW_ACCESS_KEY: ACCESS_KEY,
    SCW_SECRET_KEY_FILE: join(dir, "secret-key"),
    SCW_DEFAULT_PROJECT_ID: project,
    SCW_API_URL: scw.endpoint,
    DISABLE_TAGS_SYNC: "true",
  };
  const flags = [
    "--cloud-provider=scaleway",
    "--allow-untagged-cloud",
    "--controllers=cloud-node,cloud-node-lifecycle,service",
  ];
  manager = spawnCollecting(await managerCommand(files, flags, { provider: "scaleway", clusterCIDR: "" }), env);
}, 2 * MINUTE);

afterAll(() => tearDown(manager, [api, scw], dir));

describe("every scw CCM annotation, one Service each, on the compiled executable", () => {
  test("every annotation has its row", () => {
    expect(annotationRows.map((r) => `${A}${r.key}`).sort()).toEqual(ScalewayAnnotations.list.map((a) => a.key).sort());
  });

  test(
    "each Service gets a load balancer: rows read at creation with their annotations, the others without",
    async () => {
      // The nodes first, as a cluster has them when Services come.
      await until(
        "every node initialised",
        () => nodeNames.filter((n) => !(api.store.get(Resources.nodes, n) as Node).spec?.providerID),
        5 * MINUTE,
      );
      const placeholder: RowWorld = { ...base, uid: "", nodePort: 0, healthCheckNodePort: 0, certID: "" };
      for (const c of cases) {
        const annotations = c.row.atCreation ? c.row.annotations(placeholder) : {};
        await client.create(
          Resources.services,
          {
            metadata: { name: c.name, namespace: "default", annotations },
            spec: {
              type: "LoadBalancer",
              ...(c.row.local && { externalTrafficPolicy: "Local" }),
              ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
            },
          } satisfies Service,
          ns,
        );
        const s = stored(c.name)!;
        const healthCheckNodePort = s.spec?.healthCheckNodePort ?? 0;
        c.w = { ...placeholder, uid: s.metadata!.uid!, nodePort: s.spec!.ports![0]!.nodePort!, healthCheckNodePort };
      }
      await until(
        "every Service's load balancer",
        () => cases.filter((c) => !hasIngress(c)).map((c) => c.name),
        DEADLINE,
      );
      for (const c of cases) if (!c.row.atCreation) c.idBefore = viewOf(c)!.lb.id;
      // Each row's check fails before its annotations are set: each changes something.
      const holdAlready = cases.filter((c) => !c.row.atCreation && !c.row.certificate && failure(c) === undefined);
      expect(holdAlready.map((c) => c.name)).toEqual([]);
      // Each its own, but the two rows that name one made beforehand.
      expect(scw.world.lb.lbs.size).toBe(cases.length);
    },
    16 * MINUTE,
  );

  test(
    "the other rows' annotations patched in, every row converges",
    async () => {
      for (const c of cases) {
        if (c.row.atCreation || !c.w) continue;
        if (c.row.certificate) {
          const lb = viewOf(c)!.lb.id;
          c.w.certID = (
            await scwCall("POST", `${Z}/lbs/${lb}/certificates`, {
              name: "web-cert",
              custom_certificate: { certificate_chain: "-----BEGIN CERTIFICATE-----" },
            })
          ).id;
        }
        await client.patch(
          Resources.services,
          c.name,
          "merge",
          { metadata: { annotations: c.row.annotations(c.w) } },
          ns,
        );
      }
      const pending = () =>
        cases.flatMap((c) => {
          const why = failure(c);
          return why === undefined ? [] : [`${c.name}: ${why}`];
        });
      await until("every row's check", pending, DEADLINE);
      expect(scw.world.lb.lbs.size).toBe(cases.length);
    },
    16 * MINUTE,
  );

  test.each(cases.map((c) => [c.row.key, c] as const))("%s", (_key, c) => {
    const v = viewOf(c);
    expect(v).toBeDefined();
    if (c.idBefore !== undefined) expect(v!.lb.id).toBe(c.idBefore);
    expect(statusOf(c.name).ingress ?? []).not.toEqual([]);
    c.row.check(v!, statusOf(c.name), c.w!);
  });

  test("no Service got a Warning event", async () => {
    const events = await client.list<Event>(Resources.events, ns);
    const names = new Set(cases.map((c) => c.name));
    const warnings = events.items
      .filter((e) => e.type === "Warning" && names.has(e.involvedObject?.name ?? ""))
      .map((e) => `${e.involvedObject?.name}: ${e.reason}: ${e.message}`);
    expect(warnings).toEqual([]);
  });
});
