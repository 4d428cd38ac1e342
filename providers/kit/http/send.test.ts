import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { FakeClock, settle, waitFor } from "../../../kube/testdata/fake-clock.ts";
import { isTermOver, TermOverError } from "../../../kube/write-fence.ts";
import { createTermFence } from "../../../platform/term-fence.ts";
import type { CallContext } from "../../cloud.ts";
import { useTestBed } from "./testing.ts";

const bed = useTestBed({ name: "test/api", provider: "test" });
const lb = v.object({ name: v.string() });

/** A term whose controllers are stopping: the caller's signal and the fence, as cmd/manager.ts's stopTerm has them. */
const stoppingTerm = () => {
  const clock = new FakeClock();
  const fence = createTermFence({ over: () => undefined, sleep: clock.sleep });
  const stop = new AbortController();
  const ctx: CallContext = { signal: stop.signal, fence };
  return { clock, fence, stop, ctx };
};

describe("a cloud write on the wire when the term closes (SIGTERM)", () => {
  // The writes a stopping manager may still try after close() (a worker's Service status patch, a queued event, a
  // cloud call): each is refused, and none may end the PUT in flight: an abort does not unsend it, and the cloud
  // would apply it after the lease went to the standby (the handover CI once saw 104 ms after SIGTERM).
  type Client = ReturnType<typeof bed.client>;
  const refusedLater: { name: string; attempt: (client: Client, ctx: CallContext) => Promise<unknown> }[] = [
    {
      name: "a Kubernetes write (an event) is refused",
      // As kube/http.ts asks the same fence right before its fetch.
      attempt: async (_, ctx) => ctx.fence?.enter("POST /api/v1/namespaces/default/events"),
    },
    {
      name: "another cloud write is refused",
      attempt: (client, ctx) =>
        client.request(ctx, { operation: "later", method: "POST", path: "/routes", body: {}, answer: v.unknown() }),
    },
    {
      name: "a cloud delete is refused",
      attempt: (client, ctx) =>
        client.request(ctx, { operation: "later", method: "DELETE", path: "/load-balancers/b", answer: v.unknown() }),
    },
  ];
  for (const later of refusedLater) {
    test(`runs to its answer and holds the drain when ${later.name} after close()`, async () => {
      const { clock, fence, stop, ctx } = stoppingTerm();
      bed.server.answer(async (r) => {
        if (r.path === "/load-balancers/a") await bed.server.hold();
        return Response.json({ name: "a" });
      });
      const client = bed.client();
      const put = client
        .request(ctx, { operation: "put", method: "PUT", path: "/load-balancers/a", body: {}, answer: lb })
        .catch((err: unknown) => err);
      await waitFor(() => bed.server.received.length === 1, { message: "the PUT at the cloud" });

      fence.close("the manager is stopping");
      stop.abort(new Error("stopping"));
      const refused = await later.attempt(client, ctx).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(TermOverError);
      expect(isTermOver(refused)).toBeTrue();
      expect(bed.server.received.map((r) => r.path)).toEqual(["/load-balancers/a"]);

      let drained: boolean | undefined;
      const draining = fence.drain(10_000).then((ok) => {
        drained = ok;
      });
      await clock.advance(1_200);
      await settle();
      expect(fence.inFlight()).toEqual(["test/api.put: PUT"]);
      expect(drained).toBeUndefined();

      bed.server.release();
      expect(await put).toEqual({ name: "a" });
      await draining;
      expect(drained).toBeTrue();
    });
  }
});

describe("a cloud write that ends without an answer while the term closes", () => {
  // Its own timeout or a connection lost after sending leaves it unknown: the cloud may yet apply it, so the lease
  // must not be handed over as if it had landed. A refused connection reached nothing and may be forgotten.
  const failure = (name: string, code?: string) => Object.assign(new Error(name), code ? { code } : { name });
  const rows: { name: string; error: Error; drained: boolean; unanswered: string[] }[] = [
    {
      name: "its own timeout fires",
      error: failure("TimeoutError"),
      drained: false,
      unanswered: ["test/api.put: PUT"],
    },
    {
      name: "the connection is lost after sending",
      error: failure("socket hang up", "ECONNRESET"),
      drained: false,
      unanswered: ["test/api.put: PUT"],
    },
    { name: "the connection is refused", error: failure("refused", "ECONNREFUSED"), drained: true, unanswered: [] },
  ];
  for (const row of rows) {
    test(`drain() says ${row.drained} when ${row.name}`, async () => {
      const { fence, stop, ctx } = stoppingTerm();
      // The term closes while the write is on the wire, then the write fails without an answer.
      const onTheWire: typeof fetch = Object.assign(
        async () => {
          expect(fence.inFlight()).toEqual(["test/api.put: PUT"]);
          fence.close("the manager is stopping");
          stop.abort(new Error("stopping"));
          throw row.error;
        },
        { preconnect: fetch.preconnect },
      );
      const client = bed.client({ fetch: onTheWire, retry: { maxRetries: 0 } });
      const put = client
        .request(ctx, { operation: "put", method: "PUT", path: "/load-balancers/a", body: {}, answer: lb })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(await put).toBeInstanceOf(Error);
      expect(await fence.drain(10_000)).toBe(row.drained);
      expect(fence.unanswered()).toEqual(row.unanswered);
    });
  }
});
