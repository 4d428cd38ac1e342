/**
 * Test support for the OpenStack emulator: an emulator on a clock that moves only when told, a raw HTTP caller
 * that authenticates with the seeded user, and in-process arrangement. Nothing in production imports this file.
 */
import { steppingClock } from "../../providers/kit/http/testing.ts";
import { type OpenStackEmulator, type OpenStackEmulatorOptions, startOpenStackEmulator } from "./server.ts";
import { createServer, type ServerSpec } from "./state.ts";
import type { Facts, FieldType } from "./testdata/api-facts.ts";

export const USERNAME = "admin";
export const PASSWORD = "secret-password-0123";
export const PROJECT = "k8s";

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the API's JSON freely
  readonly body: any;
}

export interface Harness {
  readonly emulator: OpenStackEmulator;
  readonly clock: ReturnType<typeof steppingClock>;
  /** A project-scoped token of the seeded user, issued once and kept. */
  token(): Promise<string>;
  /** One call to `path` under the emulator's base (`/compute/v2.1/servers`), with the token unless given another. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** A server made in process; returns its ID. */
  server(spec: ServerSpec): string;
  stop(): Promise<void>;
}

export function passwordAuth(username = USERNAME, password = PASSWORD) {
  return {
    auth: {
      identity: {
        methods: ["password"],
        password: { user: { name: username, domain: { name: "Default" }, password } },
      },
      scope: { project: { name: PROJECT, domain: { id: "default" } } },
    },
  };
}

export function startHarness(options: Partial<OpenStackEmulatorOptions> = {}): Harness {
  const clock = steppingClock();
  const emulator = startOpenStackEmulator({
    username: USERNAME,
    password: PASSWORD,
    project: PROJECT,
    now: clock.now,
    sleep: async () => {},
    ...options,
  });
  let token: string | undefined;
  const call: Harness["call"] = async (method, path, o = {}) => {
    const auth = o.token === undefined ? await harness.token() : o.token;
    const res = await fetch(`${emulator.base}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(auth === null ? {} : { "x-auth-token": auth }),
        ...o.headers,
      },
      ...(o.body === undefined ? {} : { body: typeof o.body === "string" ? o.body : JSON.stringify(o.body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const harness: Harness = {
    emulator,
    clock,
    async token() {
      if (token && emulator.world.liveToken(token)) return token;
      const res = await call("POST", "/identity/v3/auth/tokens", { body: passwordAuth(), token: null });
      token = res.headers.get("x-subject-token") ?? "";
      return token;
    },
    call,
    server: (spec) => createServer(emulator.world, spec).id,
    stop: () => emulator.stop(),
  };
  return harness;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

/** Every way `object` breaks `f`, as readable lines (empty when it fits). */
export function breaches(object: Record<string, unknown>, f: Facts): string[] {
  const out: string[] = [];
  for (const [field, type] of Object.entries(f.required)) {
    if (!(field in object)) out.push(`${field}: required but missing`);
    else if (!(type as FieldType).split("|").includes(typeOf(object[field])))
      out.push(`${field}: ${typeOf(object[field])}, not ${type}`);
  }
  for (const [field, allowed] of Object.entries(f.enums ?? {})) {
    if (field in object && !allowed.includes(object[field] as string))
      out.push(`${field}: '${object[field]}' not in enum`);
  }
  return out;
}
