/**
 * Test support for the emulator's tests: an emulator on a clock that moves only when told, and a raw HTTP caller.
 * Nothing in production imports this file.
 */
import { steppingClock } from "../../providers/kit/http/testing.ts";
import { type Answer, callJson } from "../kit/testing.ts";
import { type DoEmulator, type DoEmulatorOptions, startDoEmulator } from "./server.ts";
import { createDroplet, type DropletSpec } from "./state/droplets.ts";

export const TOKEN = "test-token-0123456789";

export type { Answer } from "../kit/testing.ts";

export interface Harness {
  readonly emulator: DoEmulator;
  readonly clock: ReturnType<typeof steppingClock>;
  /** One call under `/v2` (or `/_emulator/…` when the path starts with it), with the token unless given another. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<Answer>;
  /** A Droplet made in process; returns its ID. */
  droplet(spec: DropletSpec): number;
  stop(): Promise<void>;
}

export function startHarness(options: Partial<DoEmulatorOptions> = {}): Harness {
  const clock = steppingClock();
  const emulator = startDoEmulator({
    token: TOKEN,
    now: clock.now,
    sleep: async () => {},
    lbActiveDelayMs: 0,
    ...options,
  });
  return {
    emulator,
    clock,
    async call(method, path, body, token = TOKEN) {
      const url = `${emulator.endpoint}${path.startsWith("/_emulator") ? "" : "/v2"}${path}`;
      return callJson(url, method, { authorization: `Bearer ${token}` }, body);
    },
    droplet: (spec) => createDroplet(emulator.world, spec).id,
    stop: () => emulator.stop(),
  };
}

/** A create body the API accepts: one HTTP rule, the given Droplets. */
export function lbBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "lb-1",
    region: "nyc3",
    forwarding_rules: [{ entry_protocol: "http", entry_port: 80, target_protocol: "http", target_port: 30080 }],
    droplet_ids: [],
    ...extra,
  };
}
