/**
 * The emulator's control API under `/_emulator`, for tests and the sandbox: make, change and delete servers as an
 * operator would behind the manager's back, break a load balancer (`ERROR`, stuck `PENDING_UPDATE`), expire every
 * token. It needs no token; the faults and call counters are the kit's (sandbox/kit/control.ts).
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import { createServer, deleteServer } from "./state.ts";

const loadBalancerChange = v.strictObject({
  /** `ERROR` or `PENDING_UPDATE` now (an operator's view of a broken load balancer), or `ACTIVE` to release it. */
  status: v.exactOptional(v.picklist(["ACTIVE", "ERROR", "PENDING_UPDATE"])),
  /** What the next settling does: `stuck` never leaves `PENDING_*`, `error` lands in `ERROR`; `none` clears it. */
  fault: v.exactOptional(v.picklist(["stuck", "error", "none"])),
});

const serverSpec = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1)),
  status: v.exactOptional(v.string()),
  flavor: v.exactOptional(v.string()),
  availabilityZone: v.exactOptional(v.string()),
  networks: v.exactOptional(v.array(v.string())),
  floatingIP: v.exactOptional(v.boolean()),
  accessIPv4: v.exactOptional(v.string()),
  accessIPv6: v.exactOptional(v.string()),
  metadata: v.exactOptional(v.record(v.string(), v.string())),
});

async function parsed<S extends v.GenericSchema>(call: Call, schema: S): Promise<v.InferOutput<S>> {
  const result = v.safeParse(schema, await call.body(), { abortEarly: false });
  if (!result.success) throw new OsError(400, result.issues.map((i) => i.message).join("; "));
  return result.output;
}

export const controlEndpoints: readonly Endpoint[] = [
  {
    service: "control",
    method: "POST",
    route: "/servers",
    anonymous: true,
    async handle(call) {
      const spec = await parsed(call, serverSpec);
      try {
        return json({ server: createServer(call.world, spec) }, 201);
      } catch (err) {
        throw new OsError(400, (err as Error).message);
      }
    },
  },
  {
    service: "control",
    method: "PUT",
    route: "/servers/:id",
    anonymous: true,
    async handle(call) {
      const server = call.world.servers.get(call.params.id ?? "");
      if (!server) throw new OsError(404, `no server ${call.params.id}`);
      const change = await parsed(
        call,
        v.strictObject({ status: v.optional(v.string()), name: v.optional(v.string()) }),
      );
      if (change.status !== undefined) server.status = change.status;
      if (change.name !== undefined) server.name = change.name;
      return json({ server });
    },
  },
  {
    service: "control",
    method: "DELETE",
    route: "/servers/:id",
    anonymous: true,
    handle(call) {
      if (!deleteServer(call.world, call.params.id ?? "")) throw new OsError(404, `no server ${call.params.id}`);
      return new Response(null, { status: 204 });
    },
  },
  {
    service: "control",
    method: "PUT",
    route: "/loadbalancers/:id",
    anonymous: true,
    async handle(call) {
      const lb = call.world.octavia.loadBalancers.get(call.params.id ?? "");
      if (!lb) throw new OsError(404, `no load balancer ${call.params.id}`);
      const change = await parsed(call, loadBalancerChange);
      if (change.status !== undefined) {
        lb.status = change.status;
        lb.pendingLeft = call.world.octavia.pendingReads;
      }
      if (change.fault !== undefined) lb.fault = change.fault === "none" ? undefined : change.fault;
      return json({ id: lb.id, status: lb.status, fault: lb.fault ?? "none" });
    },
  },
  {
    service: "control",
    method: "POST",
    route: "/tokens/expire",
    anonymous: true,
    handle(call) {
      const now = call.world.now();
      for (const token of call.world.tokens.values()) token.expiresAt = Math.min(token.expiresAt, now);
      return new Response(null, { status: 204 });
    },
  },
];
