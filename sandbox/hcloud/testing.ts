/**
 * Test support for the emulator's tests: an emulator on a clock that moves only when told (or slept on by the
 * kit's client, which shares it), a raw HTTP caller, and a cloud-API kit client pointed at it. Nothing in
 * production imports this file.
 */
import { CloudApiClient, type CloudApiClientOptions } from "../../providers/kit/http/client.ts";
import { steppingClock } from "../../providers/kit/http/testing.ts";
import { type Answer, callJson } from "../kit/testing.ts";
import { type HcloudEmulator, type HcloudEmulatorOptions, startHcloudEmulator } from "./server.ts";

export const TOKEN = "test-token-0123456789";

export type { Answer } from "../kit/testing.ts";

export interface Harness {
  readonly emulator: HcloudEmulator;
  readonly clock: ReturnType<typeof steppingClock>;
  /** One call under `/v1` (or `/_emulator/…` when the path starts with it), with the token unless given another. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<Answer>;
  /** The cloud-API kit's client on the emulator and the shared clock. */
  client(options?: Partial<CloudApiClientOptions>): CloudApiClient;
  stop(): Promise<void>;
}

export function startHarness(options: Partial<HcloudEmulatorOptions> = {}): Harness {
  const clock = steppingClock();
  const emulator = startHcloudEmulator({
    token: TOKEN,
    now: clock.now,
    sleep: async () => {},
    actionDurationMs: 0,
    ...options,
  });
  const base = emulator.endpoint.slice(0, -"/v1".length);
  return {
    emulator,
    clock,
    async call(method, path, body, token = TOKEN) {
      const url = path.startsWith("/_emulator") ? `${base}${path}` : `${emulator.endpoint}${path}`;
      return callJson(url, method, { authorization: `Bearer ${token}` }, body);
    },
    client: (overrides = {}) =>
      new CloudApiClient({
        name: "hcloud/api",
        provider: "hcloud",
        baseUrl: emulator.endpoint,
        auth: () => ({ authorization: `Bearer ${TOKEN}` }),
        timeoutMs: 30_000,
        now: clock.now,
        sleep: clock.sleep,
        random: () => 0.5,
        ...overrides,
      }),
    stop: () => emulator.stop(),
  };
}

/** A network 10.0.0.0/16 with a cloud subnet 10.0.1.0/24 in eu-central. */
export async function createNetwork(h: Harness, name = "k8s"): Promise<number> {
  const answer = await h.call("POST", "/networks", {
    name,
    ip_range: "10.0.0.0/16",
    subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.1.0/24" }],
  });
  if (answer.status !== 201) throw new Error(`creating network ${name}: ${JSON.stringify(answer.body)}`);
  return answer.body.network.id;
}

export async function createServer(h: Harness, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const answer = await h.call("POST", "/servers", { name, server_type: "cx22", image: "ubuntu-24.04", ...extra });
  if (answer.status !== 201) throw new Error(`creating server ${name}: ${JSON.stringify(answer.body)}`);
  return answer.body.server.id;
}
