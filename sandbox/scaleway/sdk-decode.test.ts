/**
 * The emulator read by Scaleway's official SDK: each answer the provider reads is fetched with the SDK's own API
 * classes, which decode it with the generated unmarshalers (`marshalling.gen.js`) and parse errors into the SDK's
 * typed errors. The SDK is Scaleway's own reading of its API, so an answer that decodes here with the values the
 * emulator holds is one the real API could give. `@scaleway/sdk-instance` does not export its unmarshalers through
 * its package exports, so the API classes are the one way in that works for every product.
 * The SDK is a devDependency: nothing outside the tests imports it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Baremetalv1 } from "@scaleway/sdk-baremetal";
import { createClient, Errors } from "@scaleway/sdk-client";
import { Instancev1 } from "@scaleway/sdk-instance";
import { Ipamv1 } from "@scaleway/sdk-ipam";
import { Lbv1 } from "@scaleway/sdk-lb";
import { ACCESS_KEY, type Harness, PRIVATE_NETWORK, SECRET_KEY, startHarness } from "./testing.ts";

let h: Harness;
let sdk: ReturnType<typeof clients>;
beforeEach(() => {
  h = startHarness();
  sdk = clients(h.emulator.endpoint);
});
afterEach(() => h.stop());

function clients(apiURL: string) {
  const client = createClient({
    apiURL,
    accessKey: ACCESS_KEY,
    secretKey: SECRET_KEY,
    defaultZone: "fr-par-1",
    defaultRegion: "fr-par",
  });
  return {
    instance: new Instancev1.API(client),
    baremetal: new Baremetalv1.API(client),
    ipam: new Ipamv1.API(client),
    lb: new Lbv1.ZonedAPI(client),
  };
}

const Z = "/lb/v1/zones/fr-par-1";
const validDate = (d: Date | undefined) => d instanceof Date && !Number.isNaN(d.getTime());

async function makeLbWithParts() {
  const lb = (await h.call("POST", `${Z}/lbs`, { name: "lb-1", type: "LB-S", assign_flexible_ipv6: true })).body;
  const healthCheck = { port: 30080, check_max_retries: 5, check_delay: "5s", tcp_config: {} };
  const backend = (
    await h.call("POST", `${Z}/lbs/${lb.id}/backends`, {
      name: "b",
      forward_protocol: "tcp",
      forward_port: 30080,
      health_check: healthCheck,
      server_ip: ["10.0.0.1"],
      proxy_protocol: "proxy_protocol_v2",
    })
  ).body;
  const cert = (
    await h.call("POST", `${Z}/lbs/${lb.id}/certificates`, { name: "c", letsencrypt: { common_name: "example.com" } })
  ).body;
  const frontend = (
    await h.call("POST", `${Z}/lbs/${lb.id}/frontends`, {
      name: "f",
      inbound_port: 443,
      backend_id: backend.id,
      certificate_ids: [cert.id],
    })
  ).body;
  const acls = [{ name: "r-0", index: 0, action: { type: "allow" }, match: { ip_subnet: ["10.0.0.0/8"] } }];
  await h.call("PUT", `${Z}/frontends/${frontend.id}/acls`, { acls });
  await h.call("POST", `${Z}/lbs/${lb.id}/attach-private-network`, { private_network_id: PRIVATE_NETWORK });
  return { lb, backend, cert, frontend };
}

describe("the SDK decodes the servers the provider reads", () => {
  test("an Instance server, got by ID and listed: state, type, zone, public IPs, private NIC", async () => {
    const s = h.instance({ name: "node-1", public_ipv6: true, private_networks: [PRIVATE_NETWORK] });
    const got = (await sdk.instance.getServer({ zone: s.zone, serverId: s.id })).server;
    const listed = (await sdk.instance.listServers({ zone: s.zone, name: "node-1" })).servers;
    expect(listed.map((x) => x.id)).toEqual([s.id]);
    for (const server of [got, listed[0]]) {
      expect(server).toMatchObject({ id: s.id, name: "node-1", zone: s.zone, commercialType: s.commercialType });
      expect(server?.state).toBe("running");
      expect(validDate(server?.creationDate)).toBe(true);
      expect(server?.publicIps.map((ip) => [ip.family, ip.provisioningMode])).toEqual([
        ["inet", "dhcp"],
        ["inet6", "slaac"],
      ]);
      expect(server?.publicIps.every((ip) => ip.address.length > 0)).toBe(true);
      expect(server?.privateNics.map((n) => [n.id, n.privateNetworkId])).toEqual(
        s.privateNics.map((n) => [n.id, n.privateNetworkId]),
      );
    }
  });

  test.each(["ready", "stopped"] as const)("an Elastic Metal server (%s), got by ID and listed", async (status) => {
    const s = h.baremetal({ name: "metal-1", status });
    const got = await sdk.baremetal.getServer({ zone: s.zone, serverId: s.id });
    const listed = (await sdk.baremetal.listServers({ zone: s.zone, name: "metal-1" })).servers;
    for (const server of [got, listed[0]]) {
      expect(server).toMatchObject({ id: s.id, name: "metal-1", zone: s.zone, status, offerName: s.offerName });
      expect(validDate(server?.createdAt)).toBe(true);
      expect(server?.ips.map((ip) => ip.version).sort()).toEqual(["IPv4", "IPv6"]);
      expect(server?.ips.every((ip) => ip.address.length > 0)).toBe(true);
    }
  });

  test("the IPAM IP of a private NIC: address with prefix, resource", async () => {
    const s = h.instance({ name: "node-1", private_networks: [PRIVATE_NETWORK] });
    const nic = s.privateNics[0]?.id ?? "";
    const { ips, totalCount } = await sdk.ipam.listIPs({ region: "fr-par", resourceId: nic, isIpv6: false });
    expect(totalCount).toBe(1);
    expect(ips[0]?.address).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(ips[0]?.resource).toMatchObject({ type: "instance_private_nic", id: nic });
    expect(ips[0]?.isIpv6).toBe(false);
  });
});

describe("the SDK decodes the load balancer answers the provider reads", () => {
  const rows: [string, (parts: Awaited<ReturnType<typeof makeLbWithParts>>) => Promise<void>][] = [
    [
      "a load balancer, got and listed: status, type, zone, IPs",
      async ({ lb }) => {
        const got = await sdk.lb.getLb({ lbId: lb.id });
        const listed = (await sdk.lb.listLbs({ name: "lb-1" })).lbs;
        for (const l of [got, listed[0]]) {
          expect(l).toMatchObject({ id: lb.id, name: "lb-1", status: lb.status, type: "lb-s", zone: "fr-par-1" });
          expect(l?.ip.map((ip) => ip.ipAddress)).toEqual(lb.ip.map((ip: { ip_address: string }) => ip.ip_address));
          expect(l?.ip.every((ip) => ip.lbId === lb.id)).toBe(true);
          expect(validDate(l?.createdAt)).toBe(true);
        }
      },
    ],
    [
      "its flexible IPs, got and listed",
      async ({ lb }) => {
        const first = lb.ip[0];
        const got = await sdk.lb.getIp({ ipId: first.id });
        expect(got).toMatchObject({ id: first.id, ipAddress: first.ip_address, lbId: lb.id });
        const listed = (await sdk.lb.listIPs({ ipAddress: first.ip_address })).ips;
        expect(listed.map((ip) => ip.id)).toEqual([first.id]);
      },
    ],
    [
      "its backends: protocol, port, pool, health check, proxy protocol",
      async ({ lb, backend }) => {
        const listed = (await sdk.lb.listBackends({ lbId: lb.id })).backends;
        const got = await sdk.lb.getBackend({ backendId: backend.id });
        for (const b of [got, listed[0]]) {
          expect(b).toMatchObject({ id: backend.id, forwardProtocol: "tcp", forwardPort: 30080, pool: ["10.0.0.1"] });
          expect(b?.proxyProtocol).toBe("proxy_protocol_v2");
          expect(b?.healthCheck).toMatchObject({ port: 30080, checkMaxRetries: 5 });
          expect(b?.healthCheck?.tcpConfig).toBeDefined();
        }
      },
    ],
    [
      "its frontends: inbound port, backend, certificates",
      async ({ lb, backend, cert, frontend }) => {
        const listed = (await sdk.lb.listFrontends({ lbId: lb.id })).frontends;
        const got = await sdk.lb.getFrontend({ frontendId: frontend.id });
        for (const f of [got, listed[0]]) {
          expect(f).toMatchObject({ id: frontend.id, name: "f", inboundPort: 443, certificateIds: [cert.id] });
          expect(f?.backend?.id).toBe(backend.id);
        }
      },
    ],
    [
      "its certificates: name, status, common name",
      async ({ lb, cert }) => {
        const listed = (await sdk.lb.listCertificates({ lbId: lb.id })).certificates;
        const got = await sdk.lb.getCertificate({ certificateId: cert.id });
        for (const c of [got, listed[0]]) {
          expect(c).toMatchObject({ id: cert.id, name: "c", status: cert.status, commonName: "example.com" });
          expect(c?.type).toBe("letsencryt");
        }
      },
    ],
    [
      "a frontend's access list: name, index, action, match",
      async ({ frontend }) => {
        const { acls, totalCount } = await sdk.lb.listAcls({ frontendId: frontend.id });
        expect(totalCount).toBe(1);
        expect(acls[0]).toMatchObject({ name: "r-0", index: 0, action: { type: "allow" } });
        expect(acls[0]?.match?.ipSubnet).toEqual(["10.0.0.0/8"]);
      },
    ],
    [
      "its private networks",
      async ({ lb }) => {
        const { privateNetwork, totalCount } = await sdk.lb.listLbPrivateNetworks({ lbId: lb.id });
        expect(totalCount).toBe(1);
        expect(privateNetwork[0]?.privateNetworkId).toBe(PRIVATE_NETWORK);
        expect(privateNetwork[0]?.status).toBeDefined();
      },
    ],
  ];
  test.each(rows)("%s", async (_name, check) => {
    await check(await makeLbWithParts());
  });
});

describe("the SDK parses the emulator's errors into its typed errors", () => {
  const missing = "0e2b6d4c-1b2a-4c3d-8e5f-00000000ffff";
  test.each([
    ["an Instance server", () => sdk.instance.getServer({ zone: "fr-par-1", serverId: missing })],
    ["an Elastic Metal server", () => sdk.baremetal.getServer({ zone: "fr-par-2", serverId: missing })],
    ["a load balancer", () => sdk.lb.getLb({ lbId: missing })],
  ])("%s not found is a ResourceNotFoundError naming the ID", async (_name, call) => {
    const err = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Errors.ResourceNotFoundError);
    expect((err as InstanceType<typeof Errors.ResourceNotFoundError>).resourceId).toBe(missing);
  });

  test("a wrong secret key is a DeniedAuthenticationError", async () => {
    const client = createClient({
      apiURL: h.emulator.endpoint,
      accessKey: ACCESS_KEY,
      secretKey: "7363616c-6577-4179-8000-0000000000ff",
    });
    const err = await new Instancev1.API(client).listServers({ zone: "fr-par-1" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Errors.DeniedAuthenticationError);
  });

  test("a load balancer not yet ready is a TransientStateError", async () => {
    h.emulator.world.lb.readyAfterMs = 5000;
    const lb = (await h.call("POST", `${Z}/lbs`, { name: "lb-1", type: "LB-S" })).body;
    const err = await sdk.lb
      .createBackend({
        lbId: lb.id,
        name: "b",
        forwardProtocol: "tcp",
        forwardPort: 30080,
        forwardPortAlgorithm: "roundrobin",
        stickySessions: "none",
        stickySessionsCookieName: "",
        serverIp: [],
        healthCheck: { port: 30080, checkMaxRetries: 5, checkSendProxy: false, tcpConfig: {} },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Errors.TransientStateError);
  });
});
