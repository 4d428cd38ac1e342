/**
 * One row per annotation DO CCM reads (`lb/testdata/annotation-rows.ts`): the Service first gets its load balancer
 * without it, then with it, and the emulated load balancer changes as documented, in place (same ID). Annotations
 * read only at creation are set from the start. Every row ends converged: one more sync writes nothing.
 */
import { describe, expect, test } from "bun:test";
import { DigitalOceanAnnotations } from "./annotations.ts";
import { annotationRows } from "./lb/testdata/annotation-rows.ts";
import { ctx, emulatorPerTest, service } from "./lb/testing.ts";

const e = emulatorPerTest();

describe("every DO CCM annotation changes the emulated load balancer as documented", () => {
  test("the table has one row per annotation DO CCM reads (37)", () => {
    const declared = DigitalOceanAnnotations.list.map((a) => a.key);
    expect(annotationRows.map((r) => r.key).sort()).toEqual(declared.sort());
    expect(declared).toHaveLength(37);
  });

  test.each(annotationRows.map((r) => [r.key, r] as const))("%s", async (_key, row) => {
    const w = await e.setUp();
    const rw = { certID: w.certID };
    const annotated = service(row.annotations(rw));
    let before: string | undefined;
    if (!row.atCreation) {
      await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
      before = w.only().id;
    }
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", annotated, w.nodes);
    const lb = w.only();
    if (before !== undefined) expect(lb.id).toBe(before);
    row.check(lb, status, rw);
    w.h.emulator.calls.reset();
    expect(await w.lb.ensureLoadBalancer(ctx, "kubernetes", annotated, w.nodes)).toEqual(status);
    expect(w.h.emulator.calls.writes()).toEqual([]);
    expect(w.warnings).toEqual([]);
  });
});
