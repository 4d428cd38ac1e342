/**
 * One row per `load-balancer.hetzner.cloud/*` annotation (`lb/testdata/annotation-rows.ts`): the Service first gets its load
 * balancer without it, then with it, and the emulated load balancer changes as documented, in place (same ID).
 * Annotations only read at creation (location, network zone) are set from the start. Every row ends converged: one
 * more sync writes nothing.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { HcloudAnnotations, HcloudReservedAnnotations } from "./annotations.ts";
import { annotationRows, type RowWorld } from "./lb/testdata/annotation-rows.ts";
import { A, ctx, type LBWorld, service, startLB, UID } from "./lb/testing.ts";
import { type Emulators, startEmulators } from "./testing.ts";

let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

/** The rows' view of the in-process world: `service()`'s UID and node port, n1 labelled `role=edge`. */
const rowWorld = (w: LBWorld): RowWorld => ({
  certID: w.certID,
  edgeServerID: w.ids[0] as number,
  net: w.net,
  serverCount: w.nodes.length,
  uid: UID,
  nodePort: 30080,
  certificates: () => [...w.world.certificates.values()],
});

describe("every hcloud annotation changes the emulated load balancer as documented", () => {
  test("the table has one row per annotation hccm knows (39)", () => {
    const declared = [...HcloudAnnotations.list, ...HcloudReservedAnnotations.list].map((a) => a.key.slice(A.length));
    expect(annotationRows.map((r) => r.key).sort()).toEqual(declared.sort());
    expect(declared).toHaveLength(39);
  });

  test.each(annotationRows.map((r) => [r.key, r] as const))("%s", async (_key, row) => {
    e = startEmulators();
    const w = await startLB(e, { network: row.network ?? false });
    const rw = rowWorld(w);
    const annotated = service(row.annotations(rw));
    let before: number | undefined;
    if (!row.atCreation) {
      await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
      before = w.only().id;
    }
    const status = await w.lb.ensureLoadBalancer(ctx, "k", annotated, w.nodes);
    const lb = w.only();
    if (before !== undefined) expect(lb.id).toBe(before);
    row.check(lb, status, rw);
    w.h.emulator.calls.reset();
    expect(await w.lb.ensureLoadBalancer(ctx, "k", annotated, w.nodes)).toEqual(status);
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.warnings).toEqual([]);
  });
});
