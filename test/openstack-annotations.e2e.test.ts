/**
 * OCCM's annotations on the compiled `openstack-cloud-controller-manager`, with OCCM's flags and a real-shaped
 * `cloud.conf`: one row per annotation (the 31 `loadbalancer.openstack.org/*` and
 * `service.beta.kubernetes.io/openstack-internal-load-balancer`), each on a Service of its own, all made at once
 * for one manager; each row's emulated Octavia and Neutron objects change as documented. Then every Service is
 * deleted, and with it its load balancer and the floating IP the manager made (kept with `keep-floatingip`).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../kube/client-types.ts";
import { Resources } from "../kube/client-types.ts";
import type { LoadBalancerStatus, Service } from "../kube/objects.ts";
import { INTERNAL_ANNOTATION, OpenStackAnnotations } from "../providers/openstack/annotations.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import type { FloatingIP, LoadBalancer } from "../sandbox/openstack/octavia-state.ts";
import { addVipPort } from "../sandbox/openstack/octavia-state.ts";
import { type OpenStackEmulator, startOpenStackEmulator } from "../sandbox/openstack/server.ts";
import { addNetwork, createServer, type Network, networkNamed } from "../sandbox/openstack/state.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { executable } from "./support/executables.ts";
import { registerNode } from "./support/hcloud.ts";
import { poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

const PASSWORD = "e2e-password-0123456789";
const A = "loadbalancer.openstack.org/";
const ns = { namespace: "default" };
const TLS = "https://barbican.example:9311/v1/containers/6b2d4c3e-8f1a-4e5b-9c7d-0a1b2c3d4e5f";
const FLAVOR = "a7f0c2d4-5b6e-4f80-9a1b-2c3d4e5f6a7b";

let api: ApiServer;
let client: KubeClient;
let emulator: OpenStackEmulator;
let dir = "";
let manager: RunningProcess | undefined;

/** What the rows refer to: networks beside `private` and `public`, a port and a load balancer made beforehand. */
interface Fixtures {
  readonly publicB: Network;
  readonly vipNet: Network;
  readonly memberNet: Network;
  readonly portID: string;
  readonly premadeID: string;
}
let f: Fixtures;

/** What a row sees once its Service's load balancer is there. */
interface Seen {
  readonly lb: LoadBalancer;
  readonly fip: FloatingIP | undefined;
  readonly status: LoadBalancerStatus;
}

interface Row {
  readonly key: string;
  readonly annotations: (f: Fixtures) => Record<string, string>;
  /** `expect`s that hold once the annotation is applied. */
  readonly check: (seen: Seen, f: Fixtures) => void;
}

const listeners = (s: Seen) => s.lb.listeners;
const pools = (s: Seen) => s.lb.pools;
const monitors = (s: Seen) => s.lb.pools.map((p) => p.monitor);
const onPublicB = (s: Seen, fx: Fixtures) => {
  expect(s.fip?.networkID).toBe(fx.publicB.id);
  expect(s.status.ingress?.[0]?.ip).toBe(s.fip?.address as string);
};
const monitorOn = { [`${A}enable-health-monitor`]: "true" };
const onPublicBNet = (fx: Fixtures) => ({ [`${A}floating-network-id`]: fx.publicB.id });

const rows: readonly Row[] = [
  {
    key: INTERNAL_ANNOTATION,
    annotations: () => ({ [INTERNAL_ANNOTATION]: "true" }),
    check: (s) => {
      expect(s.fip).toBeUndefined();
      expect(s.status.ingress?.[0]?.ip).toBe(s.lb.vipAddress);
    },
  },
  {
    key: `${A}node-selector`,
    annotations: () => ({ [`${A}node-selector`]: "lb=yes" }),
    check: (s) => expect(pools(s).map((p) => p.members.map((m) => m.name))).toEqual([["ann-node-1"]]),
  },
  {
    key: `${A}connection-limit`,
    annotations: () => ({ [`${A}connection-limit`]: "100" }),
    check: (s) => expect(listeners(s).map((l) => l.connectionLimit)).toEqual([100]),
  },
  {
    key: `${A}floating-network-id`,
    annotations: (fx) => onPublicBNet(fx),
    check: onPublicB,
  },
  {
    key: `${A}floating-subnet`,
    annotations: (fx) => ({ ...onPublicBNet(fx), [`${A}floating-subnet`]: "public-b-*" }),
    check: onPublicB,
  },
  {
    key: `${A}floating-subnet-id`,
    annotations: (fx) => ({ ...onPublicBNet(fx), [`${A}floating-subnet-id`]: fx.publicB.subnetID }),
    check: onPublicB,
  },
  {
    key: `${A}floating-subnet-tags`,
    annotations: (fx) => ({ ...onPublicBNet(fx), [`${A}floating-subnet-tags`]: "v4" }),
    check: onPublicB,
  },
  {
    key: `${A}class`,
    annotations: () => ({ [`${A}class`]: "b" }),
    check: onPublicB,
  },
  {
    key: `${A}keep-floatingip`,
    annotations: () => ({ [`${A}keep-floatingip`]: "true" }),
    check: (s) => expect(s.status.ingress?.[0]?.ip).toBe(s.fip?.address as string),
  },
  {
    key: `${A}port-id`,
    annotations: (fx) => ({ [`${A}port-id`]: fx.portID }),
    check: (s, fx) => expect(s.lb.vipPortID).toBe(fx.portID),
  },
  {
    key: `${A}lb-method`,
    annotations: () => ({ [`${A}lb-method`]: "LEAST_CONNECTIONS" }),
    check: (s) => expect(pools(s).map((p) => p.lbAlgorithm)).toEqual(["LEAST_CONNECTIONS"]),
  },
  {
    key: `${A}proxy-protocol`,
    annotations: () => ({ [`${A}proxy-protocol`]: "v2" }),
    check: (s) => {
      expect(pools(s).map((p) => p.protocol)).toEqual(["PROXYV2"]);
      expect(s.status.ingress?.[0]?.ipMode).toBe("Proxy");
    },
  },
  {
    key: `${A}subnet-id`,
    annotations: (fx) => ({ [`${A}subnet-id`]: fx.vipNet.subnetID }),
    check: (s, fx) => {
      expect(s.lb.vipSubnetID).toBe(fx.vipNet.subnetID);
      expect(s.lb.vipAddress.startsWith(fx.vipNet.prefix)).toBe(true);
    },
  },
  {
    key: `${A}network-id`,
    annotations: (fx) => ({ [`${A}network-id`]: fx.vipNet.id }),
    check: (s, fx) => expect(s.lb.vipNetworkID).toBe(fx.vipNet.id),
  },
  {
    key: `${A}member-subnet-id`,
    annotations: (fx) => ({ [`${A}member-subnet-id`]: fx.memberNet.subnetID }),
    check: (s, fx) =>
      expect(pools(s).flatMap((p) => p.members.map((m) => m.subnetID))).toEqual([
        fx.memberNet.subnetID,
        fx.memberNet.subnetID,
      ]),
  },
  {
    key: `${A}timeout-client-data`,
    annotations: () => ({ [`${A}timeout-client-data`]: "300000" }),
    check: (s) => expect(listeners(s).map((l) => l.timeouts.clientData)).toEqual([300000]),
  },
  {
    key: `${A}timeout-member-connect`,
    annotations: () => ({ [`${A}timeout-member-connect`]: "10000" }),
    check: (s) => expect(listeners(s).map((l) => l.timeouts.memberConnect)).toEqual([10000]),
  },
  {
    key: `${A}timeout-member-data`,
    annotations: () => ({ [`${A}timeout-member-data`]: "240000" }),
    check: (s) => expect(listeners(s).map((l) => l.timeouts.memberData)).toEqual([240000]),
  },
  {
    key: `${A}timeout-tcp-inspect`,
    annotations: () => ({ [`${A}timeout-tcp-inspect`]: "100" }),
    check: (s) => expect(listeners(s).map((l) => l.timeouts.tcpInspect)).toEqual([100]),
  },
  {
    key: `${A}x-forwarded-for`,
    annotations: () => ({ [`${A}x-forwarded-for`]: "true" }),
    check: (s) => {
      expect(listeners(s).map((l) => l.protocol)).toEqual(["HTTP"]);
      expect(listeners(s).map((l) => l.insertHeaders)).toEqual([{ "X-Forwarded-For": "true" }]);
    },
  },
  {
    key: `${A}flavor-id`,
    annotations: () => ({ [`${A}flavor-id`]: FLAVOR }),
    check: (s) => expect(s.lb.flavorID).toBe(FLAVOR),
  },
  {
    key: `${A}availability-zone`,
    annotations: () => ({ [`${A}availability-zone`]: "az1" }),
    check: (s) => expect(s.lb.availabilityZone).toBe("az1"),
  },
  {
    key: `${A}enable-health-monitor`,
    annotations: () => monitorOn,
    check: (s) => expect(monitors(s).map((m) => m?.type)).toEqual(["TCP"]),
  },
  {
    key: `${A}health-monitor-delay`,
    annotations: () => ({ ...monitorOn, [`${A}health-monitor-delay`]: "10" }),
    check: (s) => expect(monitors(s).map((m) => m?.delay)).toEqual([10]),
  },
  {
    key: `${A}health-monitor-timeout`,
    annotations: () => ({ ...monitorOn, [`${A}health-monitor-timeout`]: "7" }),
    check: (s) => expect(monitors(s).map((m) => m?.timeout)).toEqual([7]),
  },
  {
    key: `${A}health-monitor-max-retries`,
    annotations: () => ({ ...monitorOn, [`${A}health-monitor-max-retries`]: "2" }),
    check: (s) => expect(monitors(s).map((m) => m?.maxRetries)).toEqual([2]),
  },
  {
    key: `${A}health-monitor-max-retries-down`,
    annotations: () => ({ ...monitorOn, [`${A}health-monitor-max-retries-down`]: "4" }),
    check: (s) => expect(monitors(s).map((m) => m?.maxRetriesDown)).toEqual([4]),
  },
  {
    key: `${A}hostname`,
    annotations: () => ({ [`${A}hostname`]: "lb.example.com" }),
    check: (s) => expect(s.status.ingress).toEqual([{ hostname: "lb.example.com" }]),
  },
  {
    // Written by OCCM, read by nothing: the load balancer is the default one, its status the floating IP.
    key: `${A}load-balancer-address`,
    annotations: () => ({ [`${A}load-balancer-address`]: "203.0.113.250" }),
    check: (s) => {
      expect(listeners(s).map((l) => l.protocol)).toEqual(["TCP"]);
      expect(s.status.ingress).toEqual([{ ip: s.fip?.address as string }]);
    },
  },
  {
    key: `${A}default-tls-container-ref`,
    annotations: () => ({ [`${A}default-tls-container-ref`]: TLS }),
    check: (s) => {
      expect(listeners(s).map((l) => [l.protocol, l.defaultTlsContainerRef])).toEqual([["TERMINATED_HTTPS", TLS]]);
      expect(pools(s).map((p) => p.protocol)).toEqual(["HTTP"]);
    },
  },
  {
    key: `${A}load-balancer-id`,
    annotations: (fx) => ({ [`${A}load-balancer-id`]: fx.premadeID }),
    check: (s, fx) => expect(s.lb.id).toBe(fx.premadeID),
  },
];

const nameOf = (i: number) => `ann-${i}`;
const serviceNamed = (name: string): Service | undefined => {
  try {
    return api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
const octavia = () => emulator.world.octavia;
/** The Service's load balancer, by the owner tag the manager gives it. */
const lbOf = (name: string) => {
  const uid = serviceNamed(name)?.metadata?.uid;
  return [...octavia().loadBalancers.values()].find((l) => uid && l.tags.includes(`kube_service_uid=${uid}`));
};

/**
 * All 32 Services are made at once and synced eight at a time, each waiting for Octavia's ACTIVE between steps, so
 * on a busy machine the last rows wait minutes for their turn: a generous deadline, met at once when all is well.
 */
async function until(what: string, check: () => boolean) {
  await poll(check, { timeoutMs: 300_000, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${manager?.output().slice(-4000) ?? ""}`);
  });
}

/** Whether the row's `expect`s hold now for its Service. */
const holds = (row: Row, name: string) => () => {
  const lb = lbOf(name);
  const status = serviceNamed(name)?.status?.loadBalancer;
  if (lb?.status !== "ACTIVE" || !status?.ingress?.length) return false;
  const fip = [...octavia().floatingIPs.values()].find((x) => x.portID === lb.vipPortID);
  try {
    row.check({ lb, fip, status }, f);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-openstack-annotations-"));
  emulator = startOpenStackEmulator({ username: "admin", password: PASSWORD, project: "k8s" });
  ({ api, client } = await startE2eApiServer(dir));
  const world = emulator.world;
  const publicB = addNetwork(world, {
    name: "public-b",
    prefix: "198.51.100.",
    external: true,
    subnetTags: ["public", "v4"],
  });
  const vipNet = addNetwork(world, { name: "vip-net", prefix: "10.2.0." });
  const memberNet = addNetwork(world, { name: "member-net", prefix: "10.3.0." });
  const portID = addVipPort(world, vipNet.id, "by-hand").id;
  const premadeID = (await octaviaCall("POST", "/load-balancer/v2/lbaas/loadbalancers", {
    loadbalancer: { name: "made-by-hand", vip_subnet_id: networkNamed(world, "private").subnetID },
  })) as string;
  f = { publicB, vipNet, memberNet, portID, premadeID };
  for (const name of ["ann-node-1", "ann-node-2"]) {
    createServer(world, { name });
    await registerNode(client, name);
  }
  await client.patch(Resources.nodes, "ann-node-1", "merge", { metadata: { labels: { lb: "yes" } } });
  await writeFile(
    join(dir, "cloud.conf"),
    `[Global]
auth-url = ${emulator.authUrl}
username = admin
password = "${PASSWORD}"
user-domain-name = Default
tenant-name = k8s
tenant-domain-name = Default
region = RegionOne

[Networking]
public-network-name = public

[LoadBalancer]
floating-network-id = ${networkNamed(world, "public").id}
lb-method = ROUND_ROBIN

[LoadBalancerClass "b"]
floating-network-id = ${publicB.id}
`,
  );
  manager = spawnCollecting([
    await executable("openstack"),
    "--v=1",
    "--cluster-name=kubernetes",
    `--cloud-config=${join(dir, "cloud.conf")}`,
    "--cloud-provider=openstack",
    "--use-service-account-credentials=false",
    "--bind-address=127.0.0.1",
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    "--secure-port=0",
    "--leader-elect-lease-duration=4s",
    "--leader-elect-renew-deadline=3s",
    "--leader-elect-retry-period=1s",
    "--node-monitor-period=1s",
    "--concurrent-service-syncs=8",
  ]);
  // Every row's Service at once, for the one manager.
  await Promise.all(
    rows.map((row, i) =>
      client.create(
        Resources.services,
        {
          metadata: { name: nameOf(i), namespace: "default", annotations: row.annotations(f) },
          spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
        } satisfies Service,
        ns,
      ),
    ),
  );
}, 120_000);

afterAll(() => tearDown(manager, [api, emulator], dir));

test("every annotation OCCM reads has a row", () => {
  const keys = OpenStackAnnotations.list.map((a) => a.key);
  expect(keys).toHaveLength(31);
  expect(rows.map((r) => r.key).sort()).toEqual([...keys].sort());
});

test.each(rows.map((r, i) => [r.key, r, i] as const))(
  "%s changes its Service's load balancer as documented",
  async (_key, row, i) => {
    await until(`${row.key} applied`, holds(row, nameOf(i)));
    const name = `kube_service_kubernetes_default_${nameOf(i)}`;
    const named = [...octavia().loadBalancers.values()].filter((l) => l.name === name || l.id === lbOf(nameOf(i))?.id);
    expect(named).toHaveLength(1);
  },
  330_000,
);

test("every Service deleted takes its load balancer and the floating IP made for it, unless kept", async () => {
  const keptAt = rows.findIndex((r) => r.key === `${A}keep-floatingip`);
  const addressOf = (i: number) => serviceNamed(nameOf(i))?.status?.loadBalancer?.ingress?.[0]?.ip;
  const kept = addressOf(keptAt);
  await Promise.all(rows.map((_, i) => client.delete(Resources.services, nameOf(i), ns)));
  await until("every Service gone", () => rows.every((_, i) => serviceNamed(nameOf(i)) === undefined));
  const left = [...octavia().loadBalancers.values()];
  expect(left.filter((l) => l.name.startsWith("kube_service_"))).toEqual([]);
  // Only the floating IP kept by keep-floatingip is left, unbound.
  expect([...octavia().floatingIPs.values()].map((x) => [x.address, x.portID])).toEqual([[kept as string, null]]);
}, 180_000);

/** A load balancer made by hand through Octavia's API, as an operator would: its ID, once ACTIVE. */
async function octaviaCall(method: string, path: string, body: unknown): Promise<string> {
  const auth = await fetch(`${emulator.authUrl}/auth/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ["password"],
          password: { user: { name: "admin", domain: { name: "Default" }, password: PASSWORD } },
        },
        scope: { project: { name: "k8s", domain: { id: "default" } } },
      },
    }),
  });
  const headers = { "content-type": "application/json", "x-auth-token": auth.headers.get("x-subject-token") ?? "" };
  const res = await fetch(`${emulator.base}${path}`, { method, headers, body: JSON.stringify(body) });
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  const id = ((await res.json()) as { loadbalancer: { id: string } }).loadbalancer.id;
  await fetch(`${emulator.base}${path}/${id}`, { headers });
  return id;
}
