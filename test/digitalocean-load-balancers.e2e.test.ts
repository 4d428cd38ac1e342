/**
 * The compiled `digitalocean-cloud-controller-manager`, with DO CCM's Deployment flags (`--leader-elect=false`) and
 * environment, against the DigitalOcean emulator and the API emulator: a LoadBalancer Service gets a load balancer
 * that turns `active` with an IP in its status; a load balancer DO CCM made (its ID annotation on the Service) is
 * shown by `plan` as an adoption and then adopted in place, with no create, no delete and no new IP; a Service whose
 * name collides with another cluster's load balancer gets a Warning and that load balancer is left alone; a
 * deleted Service's load balancer goes.
 */
import { beforeAll, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Service } from "../kube/objects.ts";
import { createLoadBalancer, type LoadBalancerSpec } from "../sandbox/digitalocean/state/load-balancers.ts";
import { doClusterID, ID_ANNOTATION, ns, useDoLbE2e } from "./support/digitalocean-lb.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { poll, spawnCollecting } from "./support/processes.ts";

// A new load balancer stays `new` for a moment, as DigitalOcean's do, so the wait for `active` is exercised.
const e2e = useDoLbE2e("ccm-do-lb-", 500);

/** A load balancer as DO CCM leaves one without DO_CLUSTER_ID: its rule to the port, the Droplets, no tags. */
function doCcmSpec(name: string, tags: string[], dropletIDs: number[]): LoadBalancerSpec {
  return {
    name,
    region: "nyc3",
    size_unit: 1,
    size: "lb-small",
    algorithm: "round_robin",
    forwarding_rules: [
      {
        entry_protocol: "tcp",
        entry_port: 80,
        target_protocol: "tcp",
        target_port: 80,
        certificate_id: "",
        tls_passthrough: false,
      },
    ],
    health_check: { protocol: "http", port: 10256, path: "/healthz", check_interval_seconds: 3 },
    sticky_sessions: { type: "none" },
    redirect_http_to_https: false,
    enable_proxy_protocol: false,
    enable_backend_keepalive: false,
    http_idle_timeout_seconds: 60,
    disable_lets_encrypt_dns_records: false,
    network: "EXTERNAL",
    network_stack: "IPV4",
    type: "REGIONAL_NETWORK",
    vpc_uuid: "5a4981aa-9653-4bd1-bef5-d6bff52042e4",
    project_id: "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30",
    firewall: {},
    tag: "",
    tags,
    vpc_subnet_uuid: "",
    droplet_ids: dropletIDs,
  };
}

async function createService(name: string, annotations: Record<string, string> = {}): Promise<Service> {
  await e2e.client.create(
    Resources.services,
    {
      metadata: { name, namespace: "default", annotations },
      spec: { type: "LoadBalancer", ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] },
    } satisfies Service,
    ns,
  );
  return e2e.service(name) as Service;
}

const lbWrites = () =>
  e2e.emulator.calls
    .writes()
    .filter((w) => w.path.startsWith("/v2/load_balancers"))
    .map((w) => `${w.method} ${w.path}`);

let old: { id: string; ip: string };
let theirs: { id: string; spec: string };

beforeAll(async () => {
  // What DO CCM left for Service `old`: its load balancer and its ID on the Service.
  await createService("old");
  const made = createLoadBalancer(e2e.emulator.world, doCcmSpec("old-lb", [], e2e.dropletIDs));
  old = { id: made.id, ip: "" };
  await e2e.client.patch(
    Resources.services,
    "old",
    "merge",
    { metadata: { annotations: { [ID_ANNOTATION]: made.id } } },
    ns,
  );
  // Another cluster's load balancer, with the name a Service of this one will ask for.
  const other = createLoadBalancer(e2e.emulator.world, doCcmSpec("shared", ["k8s:other-cluster"], []));
  theirs = { id: other.id, spec: JSON.stringify(other.spec) };
  await poll(() => e2e.lbs().every((l) => l.status === "active"), { timeoutMs: 30_000, message: "active" });
  old.ip = e2e.lbs().find((l) => l.id === old.id)?.ip ?? "";
}, 60_000);

test("plan shows DO CCM's load balancer as an adoption, and writes nothing", async () => {
  e2e.emulator.calls.reset();
  const ran = await runExecutable(
    await executable("digitalocean"),
    ["plan", "--leader-elect=false", `--kubeconfig=${e2e.kubeconfig}`, "-o", "json"],
    { env: e2e.env() },
  );
  expect(e2e.emulator.calls.writes()).toEqual([]);
  const plan = JSON.parse(ran.stdout) as {
    objects: { kind: string; name: string; writes: { action: string; changes: string[] }[] }[];
  };
  const lb = plan.objects.find((o) => o.kind === "LoadBalancer" && o.name === "old-lb");
  if (!lb) throw new Error(`no plan for old-lb in:\n${ran.stdout}\n${ran.stderr}`);
  expect(lb.writes.map((w) => w.action)).toEqual(["adopt"]);
  expect(lb.writes[0]?.changes[0]).toBe(`adopt load balancer ${old.id} found by its ID annotation`);
}, 180_000);

test("a LoadBalancer Service gets a load balancer, active with its IP in the Service's status", async () => {
  e2e.emulator.calls.reset();
  e2e.manager = spawnCollecting(await e2e.command(), e2e.env());
  await createService("web");
  await e2e.until("web's ingress", () => (e2e.service("web")?.status?.loadBalancer?.ingress ?? []).length > 0);
  const lb = e2e.lbs().find((l) => l.spec.tags.includes(`ccm-service:${e2e.service("web")?.metadata?.uid}`));
  expect(lb?.status).toBe("active");
  expect(lb?.spec.tags).toContain(`k8s:${doClusterID}`);
  expect(e2e.service("web")?.status?.loadBalancer?.ingress).toEqual([{ ip: lb?.ip ?? "" }]);
  await e2e.until(
    "the ID recorded on web",
    () => e2e.service("web")?.metadata?.annotations?.[ID_ANNOTATION] === lb?.id,
  );
}, 180_000);

test("DO CCM's load balancer is adopted in place: same ID, same IP, no create or delete of it", async () => {
  await e2e.until("old's load balancer tagged as this Service's", () =>
    (e2e.lbs().find((l) => l.id === old.id)?.spec.tags ?? []).includes(
      `ccm-service:${e2e.service("old")?.metadata?.uid}`,
    ),
  );
  await e2e.until("old's ingress", () => (e2e.service("old")?.status?.loadBalancer?.ingress ?? []).length > 0);
  expect(e2e.service("old")?.status?.loadBalancer?.ingress).toEqual([{ ip: old.ip }]);
  expect(e2e.lbs().find((l) => l.id === old.id)?.ip).toBe(old.ip);
  // The only load balancer created is web's; none deleted.
  expect(lbWrites().filter((w) => w === "POST /v2/load_balancers")).toHaveLength(1);
  expect(lbWrites().filter((w) => w.startsWith("DELETE"))).toEqual([]);
}, 180_000);

test("a name collision with another cluster's load balancer is a Warning; that load balancer is left alone", async () => {
  await createService("clash", { "service.beta.kubernetes.io/do-loadbalancer-name": "shared" });
  await e2e.until("a LoadBalancerNotOwned Warning on clash", e2e.warned("clash", "LoadBalancerNotOwned", theirs.id));
  expect(
    e2e
      .lbs()
      .filter((l) => l.spec.name === "shared")
      .map((l) => l.id),
  ).toEqual([theirs.id]);
  expect(JSON.stringify(e2e.lbs().find((l) => l.id === theirs.id)?.spec)).toBe(theirs.spec);
  await e2e.client.delete(Resources.services, "clash", ns);
  await e2e.until("clash gone", () => e2e.service("clash") === undefined);
  expect(e2e.lbs().map((l) => l.id)).toContain(theirs.id);
}, 180_000);

test("the Service deleted, its load balancer goes; the others stay", async () => {
  const id = e2e.service("web")?.metadata?.annotations?.[ID_ANNOTATION];
  await e2e.client.delete(Resources.services, "web", ns);
  await e2e.until("web's load balancer gone", () => !e2e.lbs().some((l) => l.id === id));
  await e2e.until("web gone", () => e2e.service("web") === undefined);
  expect(
    e2e
      .lbs()
      .map((l) => l.id)
      .sort(),
  ).toEqual([old.id, theirs.id].sort());
}, 180_000);
