import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { selfSignedTls } from "../../../sandbox/apiserver/tls.ts";
import { type ProxmoxEmulator, startProxmoxEmulator } from "../../../sandbox/proxmox/server.ts";
import { ProxmoxState } from "../../../sandbox/proxmox/state.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { rejection } from "../../testing.ts";
import { ProxmoxHttpApi } from "./http.ts";

const token = { id: "kubernetes@pve!ccm", secret: "8f7a1c2e-0000-4000-8000-00000000cafe" };
const ctx = { signal: new AbortController().signal };

let emulator: ProxmoxEmulator;
let ca: string;
beforeAll(async () => {
  const tls = await selfSignedTls(Date.now);
  ca = tls.cert;
  emulator = await startProxmoxEmulator({ tokens: [token], state: new ProxmoxState(["pve-a"]), tls });
});
afterAll(() => emulator.stop());

const options = (url: string, ca: string) => ({
  url,
  region: "east",
  tokenID: token.id,
  tokenSecret: token.secret,
  ca,
  timeoutMs: 5000,
});
const api = (tokenID: string, tokenSecret: string) =>
  new ProxmoxHttpApi({ ...options(emulator.url, ca), tokenID, tokenSecret });

describe("a token the cluster refuses", () => {
  test.each([
    ["a wrong secret", token.id, "00000000-0000-4000-8000-000000000000"],
    ["an unknown token", "nobody@pve!ccm", token.secret],
  ])("%s: the 401 names the cluster, token_id and token_secret", async (_, id, secret) => {
    const err = await rejection(() => api(id, secret).listVMs(ctx));
    expect(err).toBeInstanceOf(CloudApiError);
    expect((err as CloudApiError).status).toBe(401);
    expect(err.message).toStartWith("proxmox/api[east].listVMs: 401 ");
    expect(err.message).toContain(`the Proxmox VE cluster east at ${emulator.url} refused the API token`);
    expect(err.message).toContain(`token_id (${id}) and token_secret`);
    expect(err.message).not.toContain(secret);
  });

  test("the right token is answered", async () => {
    expect(await api(token.id, token.secret).listVMs(ctx)).toEqual([]);
  });
});

describe.each(["message", "reason-only"] as const)("Proxmox VE errors with errors: %s", (errors) => {
  let pve: ProxmoxEmulator;
  beforeAll(async () => {
    const tls = await selfSignedTls(Date.now);
    pve = await startProxmoxEmulator({ tokens: [token], state: new ProxmoxState(["pve-a"]), tls, errors });
    client = new ProxmoxHttpApi({ ...options(pve.url, tls.cert), retry: { maxRetries: 2, baseMs: 1 } });
  });
  afterAll(() => pve.stop());
  let client: ProxmoxHttpApi;

  test("a VM deleted after the listing has no config: gone, not an error", async () => {
    const vm = pve.state.addVM({ name: "racer" });
    const [listed] = await client.listVMs(ctx);
    expect(listed?.vmid).toBe(vm.vmid);
    pve.state.deleteVM(vm.vmid);
    expect(await client.vmConfig(ctx, listed!.node, vm.vmid)).toBeUndefined();
  });

  test("a 500 says why, asked once", async () => {
    const vm = pve.state.addVM({ name: "stopped", status: "stopped" });
    const before = pve.calls.length;
    const err = await rejection(() => client.agentInterfaces(ctx, vm.node, vm.vmid));
    expect(err.message).toBe(`proxmox/api[east].agentInterfaces: 500 pve: VM ${vm.vmid} is not running`);
    expect(pve.calls.length - before).toBe(1);
  });

  test("a 400 names the parameter (the body's errors) when the body has them", async () => {
    const err = await rejection(() => client.vmConfig(ctx, "pve-a", -1));
    expect(err.message).toContain("400 pve: Parameter verification failed.");
    if (errors === "message") expect(err.message).toContain('"vmid"');
  });
});

describe("a refused token, as Proxmox VE refuses it", () => {
  test("a 401 with no body says why from its status line and is sent once, however long Proxmox VE delays it", async () => {
    const tls = await selfSignedTls(Date.now);
    const delayMs = 200;
    const pve = await startProxmoxEmulator({ tokens: [token], tls, unauthorizedDelayMs: delayMs });
    try {
      const client = new ProxmoxHttpApi({
        ...options(pve.url, tls.cert),
        tokenSecret: "00000000-0000-4000-8000-000000000000",
        retry: { maxRetries: 3, baseMs: 1 },
      });
      const err = await rejection(() => client.listVMs(ctx));
      expect(err.message).toStartWith("proxmox/api[east].listVMs: 401 pve: invalid token value!; ");
      expect(pve.calls).toHaveLength(1);
    } finally {
      await pve.stop();
    }
  });
});
