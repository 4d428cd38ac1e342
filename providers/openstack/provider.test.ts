import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { addAppCredential, networkNamed } from "../../sandbox/openstack/state.ts";
import { type Harness, startHarness } from "../../sandbox/openstack/testing.ts";
import { openstack } from "./provider.ts";
import { osProvider, passwordConf } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

describe("the openstack provider", () => {
  test("declares a rate limit, a cluster ID, and OCCM's events component", async () => {
    expect(openstack.rateLimit).toEqual({ qps: 10, burst: 20 });
    expect((await osProvider(h)).hasClusterID()).toBe(true);
  });

  test("verifyAccess gets a token and finds Nova and Neutron in its catalog", async () => {
    await (await osProvider(h)).verifyAccess?.(ctx);
    expect(h.emulator.calls.count("POST /identity/v3/auth/tokens")).toBe(1);
    expect(h.emulator.calls.count("GET /compute/v2.1/flavors")).toBe(1);
  });

  test("a catalog without Octavia names it and the fix; with load balancers off it passes", async () => {
    await h.stop();
    h = startHarness({ octavia: false });
    await expect((await osProvider(h)).verifyAccess?.(ctx)).rejects.toThrow(
      /load-balancer \(Octavia\) endpoint \(on a cloud without Octavia, set \[LoadBalancer\] enabled = false\)/,
    );
    const off = await osProvider(h, passwordConf(h, "[LoadBalancer]\nenabled = false"));
    await off.verifyAccess?.(ctx);
    expect(off.loadBalancer).toBeUndefined();
  });

  test("verifyAccess finds every network and subnet the configuration names, and names each it does not", async () => {
    const pub = networkNamed(h.emulator.world, "public");
    const good = `[LoadBalancer]\nfloating-network-id = ${pub.id}\nfloating-subnet-id = ${pub.subnetID}`;
    await (await osProvider(h, passwordConf(h, good))).verifyAccess?.(ctx);
    const unknown = "00000000-0000-4000-8000-00000000dead";
    const bad = `[LoadBalancer]\nfloating-network-id = ${unknown}\nsubnet-id = ${unknown}\n\n[LoadBalancerClass "b"]\nfloating-network-id = ${pub.id}`;
    const failure = (await osProvider(h, passwordConf(h, bad))).verifyAccess?.(ctx);
    await expect(failure).rejects.toThrow(
      `[LoadBalancer] floating-network-id=${unknown}: no network of this ID in the project; [LoadBalancer] subnet-id=${unknown}: no subnet of this ID in the project`,
    );
  });

  test("verifyAccess with an application credential passes", async () => {
    const c = addAppCredential(h.emulator.world, {
      name: "ccm",
      userID: h.emulator.user.id,
      projectID: h.emulator.project.id,
      secret: "app-secret-value",
    });
    const conf = `[Global]\nauth-url=${h.emulator.authUrl}\napplication-credential-id=${c.id}\napplication-credential-secret=app-secret-value\nregion=RegionOne\n`;
    await (await osProvider(h, conf)).verifyAccess?.(ctx);
  });

  test("refused credentials name [Global]'s keys, never the password", async () => {
    const conf = passwordConf(h).replace(/password = .*/, 'password = "wrong-password-value"');
    const failure = (await osProvider(h, conf)).verifyAccess?.(ctx);
    expect(failure).rejects.toThrow(/refused the credentials of \[Global\]/);
    expect(failure).rejects.not.toThrow(/wrong-password-value/);
  });

  test("a region the catalog lacks names [Global] region", async () => {
    const conf = passwordConf(h).replace("region = RegionOne", "region = Nowhere");
    expect((await osProvider(h, conf)).verifyAccess?.(ctx)).rejects.toThrow(
      /compute.*region Nowhere.*\[Global\] region/,
    );
  });

  test("an unreachable Keystone names auth-url", async () => {
    const conf = passwordConf(h).replace(/auth-url = .*/, "auth-url = http://127.0.0.1:9/v3");
    expect((await osProvider(h, conf)).verifyAccess?.(ctx)).rejects.toThrow(
      /Keystone at \[Global\] auth-url=http:\/\/127\.0\.0\.1:9\/v3/,
    );
  });

  test("credentials written into auth-url are never shown", async () => {
    const conf = passwordConf(h).replace(/auth-url = .*/, "auth-url = http://user:url-secret-value@127.0.0.1:9/v3");
    const failure = (await osProvider(h, conf)).verifyAccess?.(ctx);
    expect(failure).rejects.toThrow(/auth-url=http:\/\/user:xxxxx@127\.0\.0\.1:9\/v3/);
    expect(failure).rejects.not.toThrow(/url-secret-value/);
  });

  test("ca-file is read at construction; one that cannot be read stops it, naming the key", async () => {
    const conf = passwordConf(h, "ca-file = /etc/ssl/missing.pem");
    const unreadable = async () => {
      throw new Error("ENOENT");
    };
    expect(osProvider(h, conf, {}, unreadable)).rejects.toThrow(/\[Global\] ca-file names "\/etc\/ssl\/missing.pem"/);
  });
});
