/**
 * Test support for the emulator's and the provider's tests: an emulator on a clock that moves only when told, a
 * raw HTTP caller, and builders for the servers a CCM reads. Nothing in production imports this file.
 */
import { steppingClock } from "../../providers/kit/http/testing.ts";
import { type Answer, callJson } from "../kit/testing.ts";
import { type ScalewayEmulator, type ScalewayEmulatorOptions, startScalewayEmulator } from "./server.ts";
import { type BaremetalServer, type BaremetalSpec, createBaremetalServer } from "./state/baremetal.ts";
import { createInstanceServer, type InstanceServer, type InstanceSpec } from "./state/instance.ts";

export type { Answer } from "../kit/testing.ts";

export const SECRET_KEY = "7363616c-6577-4179-8000-000000000001";
export const ACCESS_KEY = "SCWTESTACCESSKEY0001";
export const PRIVATE_NETWORK = "0e2b6d4c-1b2a-4c3d-8e5f-000000000001";

export interface Harness {
  readonly emulator: ScalewayEmulator;
  readonly clock: ReturnType<typeof steppingClock>;
  /** One call (a path under the API's root, or `/_emulator/…`), with the secret key unless given another. */
  call(method: string, path: string, body?: unknown, secretKey?: string): Promise<Answer>;
  instance(spec: InstanceSpec): InstanceServer;
  baremetal(spec: BaremetalSpec): BaremetalServer;
  stop(): Promise<void>;
}

export function startHarness(options: Partial<ScalewayEmulatorOptions> = {}): Harness {
  const clock = steppingClock();
  const emulator = startScalewayEmulator({ secretKey: SECRET_KEY, now: clock.now, sleep: async () => {}, ...options });
  return {
    emulator,
    clock,
    call: (method, path, body, secretKey = SECRET_KEY) =>
      callJson(`${emulator.endpoint}${path}`, method, { "x-auth-token": secretKey }, body),
    instance: (spec) => createInstanceServer(emulator.world, spec),
    baremetal: (spec) => createBaremetalServer(emulator.world, spec),
    stop: () => emulator.stop(),
  };
}
