/**
 * Octavia load balancers end to end: the compiled `openstack-cloud-controller-manager`, with OCCM's flags and a
 * `cloud.conf` naming the floating network, against the API emulator and the OpenStack emulator. A load balancer in
 * OCCM's shape (its name, its floating IP) is first shown by `plan` as adopted, then adopted in place — same ID,
 * same floating IP, no create; a new Service
 * gets an ACTIVE load balancer with its floating IP in the status; an invalid annotation is a Warning event naming
 * it; a load balancer forced into ERROR is rebuilt keeping its address; one stuck PENDING_UPDATE past the deadline
 * (`[LoadBalancer] pending-deadline`, shortened to 3s here) is a Warning naming it and its status, and converges
 * once Octavia lets it go; a Service deleted takes its load balancer and floating IP with it; under 5xx and 409
 * answers there is one load balancer and one floating IP per Service, and none once it is deleted.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../kube/client-types.ts";
import { Resources } from "../kube/client-types.ts";
import type { KubeObject, Service } from "../kube/objects.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { type OpenStackEmulator, startOpenStackEmulator } from "../sandbox/openstack/server.ts";
import { createServer, networkNamed } from "../sandbox/openstack/state.ts";
import { startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { registerNode } from "./support/hcloud.ts";
import { poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

const PASSWORD = "e2e-password-0123456789";
const ns = { namespace: "default" };

let api: ApiServer;
let client: KubeClient;
let emulator: OpenStackEmulator;
let dir = "";
let manager: RunningProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-openstack-lb-"));
  emulator = startOpenStackEmulator({ username: "admin", password: PASSWORD, project: "k8s" });
  ({ api, client } = await startE2eApiServer(dir));
  const floating = networkNamed(emulator.world, "public").id;
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

[LoadBalancer]
floating-network-id = ${floating}
pending-deadline = 3s
`,
  );
}, 60_000);

afterAll(() => tearDown(manager, [api, emulator], dir));

const octavia = () => emulator.world.octavia;
const lbs = () => [...octavia().loadBalancers.values()];
const fips = () => [...octavia().floatingIPs.values()];
const serviceNamed = (name: string): Service | undefined => {
  try {
    return api.store.get(Resources.services, name, ns) as Service;
  } catch {
    return undefined;
  }
};
const ingressIP = (name: string) => serviceNamed(name)?.status?.loadBalancer?.ingress?.[0]?.ip;

async function until(what: string, check: () => boolean) {
  await poll(check, { timeoutMs: 90_000, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${manager?.output().slice(-3000) ?? ""}`);
  });
}

/** Whether a Warning event in the namespace has a message `check` accepts. */
const warned = (check: (message: string) => boolean) =>
  api.store
    .list<KubeObject & { type?: string; message?: string; note?: string }>(Resources.events, ns)
    .items.some((e) => e.type === "Warning" && check(`${e.message ?? e.note ?? ""}`));

async function lbService(name: string, annotations: Record<string, string> = {}) {
  await client.create(
    Resources.services,
    {
      metadata: { name, namespace: "default", annotations },
      spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
    } satisfies Service,
    ns,
  );
  return serviceNamed(name) as Service;
}

test("OCCM's load balancer: plan says adopt, then it is adopted in place with the same ID and floating IP", async () => {
  for (const name of ["lb-node-1", "lb-node-2"]) {
    createServer(emulator.world, { name });
    await registerNode(client, name);
  }
  const svc = await lbService("adopted");
  const lbName = "kube_service_kubernetes_default_adopted";
  const subnet = networkNamed(emulator.world, "private").subnetID;
  const made = await call("POST", "/load-balancer/v2/lbaas/loadbalancers", {
    loadbalancer: {
      name: lbName,
      description: "Kubernetes external service default/adopted from cluster kubernetes",
      vip_subnet_id: subnet,
      tags: [lbName],
      listeners: [
        {
          name: `listener_0_${lbName}`,
          protocol: "TCP",
          protocol_port: 80,
          tags: [lbName],
          default_pool: {
            name: `pool_0_${lbName}`,
            protocol: "TCP",
            lb_algorithm: "ROUND_ROBIN",
            members: [],
          },
        },
      ],
    },
  });
  const before = made.loadbalancer;
  await call("GET", `/load-balancer/v2/lbaas/loadbalancers/${before.id}`);
  const fip = await call("POST", "/networking/v2.0/floatingips", {
    floatingip: {
      floating_network_id: networkNamed(emulator.world, "public").id,
      port_id: before.vip_port_id,
      description: "Floating IP for Kubernetes external service default/adopted from cluster kubernetes",
    },
  });
  emulator.calls.reset();

  // `plan` first, as the migration guide says: the load balancer is adopted, with its floating IP as the status.
  const planned = await runExecutable(await executable("openstack"), [
    "plan",
    "--cluster-name=kubernetes",
    "--cloud-provider=openstack",
    `--cloud-config=${join(dir, "cloud.conf")}`,
    `--kubeconfig=${join(dir, "kubeconfig")}`,
    "-o",
    "json",
  ]);
  const plan = JSON.parse(planned.stdout) as {
    objects: { kind: string; name: string; writes: { action: string; changes: string[] }[] }[];
  };
  const lbPlan = plan.objects.find((o) => o.kind === "LoadBalancer");
  expect(lbPlan?.writes.map((w) => w.action)).toEqual(["adopt"]);
  expect(lbPlan?.writes[0]?.changes).toEqual([
    `tag the load balancer ${lbName}, kube_service_uid=${svc.metadata?.uid}`,
    `keeps its addresses [${fip.floatingip.floating_ip_address}]`,
  ]);
  expect(emulator.calls.count("POST /load-balancer/v2/lbaas/loadbalancers")).toBe(0);
  expect(emulator.calls.count("PUT /load-balancer/v2/lbaas/loadbalancers/:id")).toBe(0);

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
  ]);
  await until("the adopted Service's ingress", () => ingressIP("adopted") === fip.floatingip.floating_ip_address);
  expect(lbs().map((l) => l.id)).toEqual([before.id]);
  expect(lbs()[0]?.tags).toContain(`kube_service_uid=${svc.metadata?.uid}`);
  expect(emulator.calls.count("POST /load-balancer/v2/lbaas/loadbalancers")).toBe(0);
  expect(emulator.calls.count("POST /networking/v2.0/floatingips")).toBe(0);
  await until("members for both Nodes", () => lbs()[0]?.pools[0]?.members.length === 2);
  expect(manager.output()).not.toContain(PASSWORD);
}, 180_000);

test("a new Service gets an ACTIVE load balancer with its floating IP in the status", async () => {
  await lbService("web");
  await until("the Service's ingress", () => ingressIP("web") !== undefined);
  const lb = lbs().find((l) => l.name === "kube_service_kubernetes_default_web");
  expect(lb?.status).toBe("ACTIVE");
  const fip = fips().find((f) => f.portID === lb?.vipPortID);
  expect(ingressIP("web")).toBe(fip?.address as string);
}, 120_000);

test("an invalid annotation is a Warning event naming it; the load balancer is left as it is", async () => {
  const before = JSON.stringify(lbs().find((l) => l.name.endsWith("_web"))?.listeners);
  await client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "loadbalancer.openstack.org/connection-limit": "lots" } } },
    ns,
  );
  await until("a Warning event naming the annotation", () =>
    warned((m) => m.includes("loadbalancer.openstack.org/connection-limit") && m.includes("lots")),
  );
  expect(JSON.stringify(lbs().find((l) => l.name.endsWith("_web"))?.listeners)).toBe(before);
}, 120_000);

test("a load balancer forced into ERROR is rebuilt with a Warning, keeping its floating IP", async () => {
  const lb = lbs().find((l) => l.name.endsWith("_web"));
  if (!lb) throw new Error("no load balancer for web");
  const address = ingressIP("web");
  lb.status = "ERROR";
  await client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "loadbalancer.openstack.org/connection-limit": "1000" } } },
    ns,
  );
  await until("a new ACTIVE load balancer for web", () =>
    lbs().some((l) => l.name.endsWith("_web") && l.id !== lb.id && l.status === "ACTIVE"),
  );
  await until("the same address", () => ingressIP("web") === address);
  await until("a Warning event naming it and ERROR", () => warned((m) => m.includes(lb.id) && m.includes("ERROR")));
  const fip = fips().find((f) => f.address === address);
  const now = lbs().find((l) => l.name.endsWith("_web"));
  await until("the floating IP on the new VIP", () => fip?.portID === now?.vipPortID);
}, 120_000);

test("a load balancer stuck PENDING_UPDATE is a Warning naming it, then converges in place once released", async () => {
  const lb = lbs().find((l) => l.name.endsWith("_web"));
  if (!lb) throw new Error("no load balancer for web");
  const address = ingressIP("web");
  const fipsBefore = fips().length;
  await control(lb.id, { status: "PENDING_UPDATE", fault: "stuck" });
  await client.patch(
    Resources.services,
    "web",
    "merge",
    { metadata: { annotations: { "loadbalancer.openstack.org/connection-limit": "2000" } } },
    ns,
  );
  await until("a Warning event naming it and PENDING_UPDATE", () =>
    warned((m) => m.includes(lb.id) && m.includes("PENDING_UPDATE")),
  );
  expect(lbs().find((l) => l.id === lb.id)?.status).toBe("PENDING_UPDATE");
  await control(lb.id, { status: "ACTIVE", fault: "none" });
  await until("the connection limit applied to the same load balancer", () =>
    (lbs().find((l) => l.id === lb.id)?.listeners ?? []).every((l) => l.connectionLimit === 2000),
  );
  expect(
    lbs()
      .filter((l) => l.name.endsWith("_web"))
      .map((l) => l.id),
  ).toEqual([lb.id]);
  expect(fips().length).toBe(fipsBefore);
  expect(ingressIP("web")).toBe(address as string);
}, 120_000);

test("a Service deleted takes its load balancer and the floating IP it made", async () => {
  const before = fips().length;
  await client.delete(Resources.services, "web", ns);
  await until("web's load balancer gone", () => !lbs().some((l) => l.name.endsWith("_web")));
  await until("web's floating IP released", () => fips().length === before - 1);
  await until("the Service gone", () => serviceNamed("web") === undefined);
}, 120_000);

test("under 5xx and 409 answers: one load balancer and one floating IP per Service, and none once deleted", async () => {
  const lbsBefore = lbs().length;
  const fipsBefore = fips().length;
  const rule = (method: string, pathPrefix: string, status: number) => ({ method, pathPrefix, status, count: 2 });
  const octaviaPath = "/load-balancer/v2/lbaas/";
  await setFaults([
    rule("POST", `${octaviaPath}loadbalancers`, 500),
    rule("GET", `${octaviaPath}loadbalancers`, 503),
    rule("POST", "/networking/v2.0/floatingips", 500),
    rule("GET", "/networking/v2.0/ports", 502),
  ]);
  const names = ["faulty-1", "faulty-2"];
  await Promise.all(names.map((name) => lbService(name)));
  await until("both faulty Services' ingress", () => names.every((n) => ingressIP(n) !== undefined));
  const one = () => {
    for (const name of names) {
      const mine = lbs().filter((l) => l.name === `kube_service_kubernetes_default_${name}`);
      expect(mine).toHaveLength(1);
      expect(fips().filter((f) => f.portID === mine[0]?.vipPortID)).toHaveLength(1);
    }
    expect(lbs()).toHaveLength(lbsBefore + 2);
    expect(fips()).toHaveLength(fipsBefore + 2);
    expect(emulator.faults.get().failNext).toEqual([]); // every fault was met
  };
  one();
  // A change while Octavia answers 409 (as it does while PENDING_*) and 5xx.
  await setFaults([rule("PUT", `${octaviaPath}listeners`, 409), rule("PUT", `${octaviaPath}listeners`, 503)]);
  const limit = { metadata: { annotations: { "loadbalancer.openstack.org/connection-limit": "500" } } };
  await Promise.all(names.map((name) => client.patch(Resources.services, name, "merge", limit, ns)));
  await until("the connection limit on both", () =>
    names.every((n) =>
      lbs()
        .filter((l) => l.name.endsWith(`_${n}`))
        .every((l) => l.listeners.every((x) => x.connectionLimit === 500)),
    ),
  );
  one();
  await setFaults([
    rule("DELETE", `${octaviaPath}loadbalancers`, 409),
    rule("DELETE", `${octaviaPath}loadbalancers`, 500),
    rule("DELETE", "/networking/v2.0/floatingips", 503),
  ]);
  await Promise.all(names.map((name) => client.delete(Resources.services, name, ns)));
  await until("both faulty Services gone", () => names.every((n) => !serviceNamed(n)));
  await until("their load balancers gone", () => lbs().length === lbsBefore);
  expect(fips()).toHaveLength(fipsBefore);
  expect(emulator.faults.get().failNext).toEqual([]);
}, 180_000);

async function setFaults(failNext: { method: string; pathPrefix: string; status: number; count: number }[]) {
  const res = await fetch(`${emulator.controlUrl}/faults`, { method: "PUT", body: JSON.stringify({ failNext }) });
  if (res.status !== 200) throw new Error(`faults: ${res.status} ${await res.text()}`);
}

async function control(id: string, change: Record<string, string>) {
  const res = await fetch(`${emulator.controlUrl}/loadbalancers/${id}`, {
    method: "PUT",
    body: JSON.stringify(change),
  });
  if (res.status !== 200) throw new Error(`control ${id}: ${res.status} ${await res.text()}`);
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads the API's JSON freely
async function call(method: string, path: string, body?: unknown): Promise<any> {
  const token = await fetch(`${emulator.authUrl}/auth/tokens`, {
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
  const res = await fetch(`${emulator.base}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-auth-token": token.headers.get("x-subject-token") ?? "" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
