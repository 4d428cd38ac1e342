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

const api = (tokenID: string, tokenSecret: string) =>
  new ProxmoxHttpApi({ url: emulator.url, region: "east", tokenID, tokenSecret, ca, timeoutMs: 5000 });

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
