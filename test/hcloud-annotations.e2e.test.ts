/**
 * The hcloud annotation table end to end: every row of `providers/hcloud/lb/testdata/annotation-rows.ts` (one per
 * `load-balancer.hetzner.cloud/*` annotation) is one Service, all handled by one run of the compiled
 * `hcloud-cloud-controller-manager` with hccm's flags and environment (`HCLOUD_NETWORK=k8s`). Rows read only at
 * creation carry their annotations from the start; the others first get a load balancer without, then are patched
 * and must change it in place (same ID). Each row is then checked on the emulated load balancer and the Service's
 * status, and no Service got a Warning event but hccm's `LoadBalancerTypeUnconfigured` (no type is configured).
 *
 * The provider is paced at 20 requests a second here (support/hcloud.ts; Hetzner's 0.9 is timed by `npm run bench --
 * --only=hcloud`), so ~40 load balancers made and changed take seconds; the deadlines stay generous for a busy
 * machine, and routes are off to spend no calls on them.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { SERVICE_UID_LABEL } from "../providers/hcloud/api/load-balancers.ts";
import { type AnnotationRow, annotationRows, type RowWorld } from "../providers/hcloud/lb/testdata/annotation-rows.ts";
import { selfSignedTls } from "../sandbox/apiserver/tls.ts";
import { createCertificate } from "../sandbox/hcloud/state/certificates.ts";
import { addSubnet } from "../sandbox/hcloud/state/networks.ts";
import type { LoadBalancer as EmulatedLB } from "../sandbox/hcloud/state/types.ts";
import { hcloudManagerCommand, registerNode, useHcloudE2e } from "./support/hcloud.ts";
import { poll, spawnCollecting } from "./support/processes.ts";

const e2e = useHcloudE2e("ccm-hcloud-ann-");
const ns = { namespace: "default" };
const MINUTE = 60_000;

/** Per row: its Service's name, its view of the world, the load balancer's ID before the change (if changed). */
interface Case {
  readonly row: AnnotationRow;
  readonly name: string;
  w?: RowWorld;
  idBefore?: number;
}
const cases: Case[] = annotationRows.map((row) => ({ row, name: `ann-${row.key}` }));
let certID = 0;
let edgeServerID = 0;
const nodeNames = ["n1", "n2", "n3"];

beforeAll(async () => {
  // The rows' world (annotation-rows.ts): a second eu-central subnet, one in us-east for the network-zone row's
  // load balancer, the certificate `web-cert`, three servers of which n1 is `role=edge`.
  const h = e2e.world.hcloud.world;
  for (const [zone, range] of [
    ["eu-central", "10.0.2.0/24"],
    ["us-east", "10.0.3.0/24"],
  ] as const) {
    // Each subnet is an action that locks the network a moment.
    await poll(
      () => {
        try {
          addSubnet(h, e2e.world.network, { type: "cloud", network_zone: zone, ip_range: range });
          return true;
        } catch {
          return false;
        }
      },
      { message: `subnet ${range} added` },
    );
  }
  const tls = await selfSignedTls(Date.now);
  certID = createCertificate(h, { name: "web-cert", certificate: tls.cert, private_key: tls.key }).certificate.id;
  const servers = nodeNames.map((n) => e2e.world.addServer(n));
  edgeServerID = servers[0]!.id;
  for (const n of nodeNames) await registerNode(e2e.client, n);
  await e2e.client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { role: "edge" } } });
}, MINUTE);

const stored = (name: string): Service | undefined => {
  try {
    return e2e.api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
const lbOf = (uid: string | undefined): EmulatedLB | undefined =>
  [...e2e.world.hcloud.world.loadBalancers.values()].find((l) => l.labels[SERVICE_UID_LABEL] === uid);
const statusOf = (name: string) => stored(name)?.status?.loadBalancer ?? {};
const hasIngress = (c: Case) => (statusOf(c.name).ingress ?? []).length > 0 && lbOf(c.w?.uid) !== undefined;

/** The row's check, as a message when it fails. */
function failure(c: Case): string | undefined {
  const lb = lbOf(c.w?.uid);
  if (!c.w || !lb) return "no load balancer";
  if ((statusOf(c.name).ingress ?? []).length === 0) return "no ingress";
  try {
    c.row.check(lb, statusOf(c.name), c.w);
    return undefined;
  } catch (err) {
    return (err as Error).message.split("\n").slice(0, 4).join(" ");
  }
}

async function until(what: string, pending: () => string[], timeoutMs: number) {
  await poll(() => pending().length === 0, { timeoutMs, everyMs: 1_000, message: what }).catch((err) => {
    throw new Error(
      `${(err as Error).message}; still pending:\n${pending().join("\n")}\nmanager said:\n${e2e.manager?.output().slice(-3000)}`,
    );
  });
}

describe("every hcloud annotation, one Service each, on the compiled executable", () => {
  test(
    "each Service gets a load balancer: rows read at creation with their annotations, the others without",
    async () => {
      const placeholder: RowWorld = {
        certID,
        edgeServerID,
        net: e2e.world.network.id,
        serverCount: nodeNames.length,
        uid: "",
        nodePort: 0,
        certificates: () => [...e2e.world.hcloud.world.certificates.values()],
      };
      // The nodes first, as a cluster has them when Services come: a Service synced before its nodes are
      // initialised rightly warns that they are not targets yet, which is not what this table is about.
      e2e.manager = spawnCollecting(
        await hcloudManagerCommand(e2e.kubeconfig),
        e2e.world.env({ HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1", HCLOUD_NETWORK_ROUTES_ENABLED: "false" }),
      );
      await until(
        "every node initialised",
        () => nodeNames.filter((n) => !(e2e.api.store.get(Resources.nodes, n) as Node).spec?.providerID),
        5 * MINUTE,
      );
      for (const c of cases) {
        const annotations = c.row.atCreation ? c.row.annotations(placeholder) : {};
        await e2e.client.create(
          Resources.services,
          {
            metadata: { name: c.name, namespace: "default", annotations },
            spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
          } satisfies Service,
          ns,
        );
        const s = stored(c.name)!;
        c.w = { ...placeholder, uid: s.metadata!.uid!, nodePort: s.spec!.ports![0]!.nodePort! };
      }
      await until(
        "every Service's load balancer",
        () => cases.filter((c) => !hasIngress(c)).map((c) => c.name),
        15 * MINUTE,
      );
      for (const c of cases) if (!c.row.atCreation) c.idBefore = lbOf(c.w?.uid)!.id;
      expect(e2e.world.hcloud.world.loadBalancers.size).toBe(cases.length);
    },
    16 * MINUTE,
  );

  test(
    "the other rows' annotations patched in, every row converges",
    async () => {
      for (const c of cases) {
        if (c.row.atCreation || !c.w) continue;
        await e2e.client.patch(
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
      await until("every row's check", pending, 15 * MINUTE);
      expect(e2e.world.hcloud.world.loadBalancers.size).toBe(cases.length);
    },
    16 * MINUTE,
  );

  test.each(cases.map((c) => [c.row.key, c] as const))("%s", (_key, c) => {
    const lb = lbOf(c.w?.uid);
    expect(lb).toBeDefined();
    if (c.idBefore !== undefined) expect(lb!.id).toBe(c.idBefore);
    expect(statusOf(c.name).ingress ?? []).not.toEqual([]);
    c.row.check(lb!, statusOf(c.name), c.w!);
  });

  test("no Service got a Warning event but hccm's LoadBalancerTypeUnconfigured, which each got", async () => {
    const events = await e2e.client.list<Event>(Resources.events, ns);
    const names = new Set(cases.map((c) => c.name));
    const warnings = events.items.filter((e) => e.type === "Warning" && names.has(e.involvedObject?.name ?? ""));
    // Neither HCLOUD_LOAD_BALANCERS_TYPE nor a type annotation at the first sync (the type row adds it after).
    const unconfigured = (e: Event) => e.reason === "LoadBalancerTypeUnconfigured";
    expect(new Set(warnings.filter(unconfigured).map((e) => e.involvedObject?.name))).toEqual(names);
    const others = warnings
      .filter((e) => !unconfigured(e))
      .map((e) => `${e.involvedObject?.name}: ${e.reason}: ${e.message}`);
    expect(others).toEqual([]);
  });
});
