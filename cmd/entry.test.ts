import { describe, expect, test } from "bun:test";
import { waitFor } from "../kube/testdata/fake-clock.ts";
import { watchNpmParent } from "./entry.ts";

describe("a command started by npm", () => {
  test("stops once npm, its parent, is gone", async () => {
    let parent = 100;
    let gone = 0;
    const timer = watchNpmParent(
      { npm_lifecycle_event: "start" },
      () => gone++,
      () => parent,
      1,
    );
    expect(timer).toBeDefined();
    parent = 1; // re-parented: npm exited
    await waitFor(() => gone > 0, { message: "the parent's exit to be noticed" });
    expect(gone).toBe(1);
  });

  test("is not watched when npm did not start it", () => {
    expect(
      watchNpmParent(
        {},
        () => undefined,
        () => 100,
        1,
      ),
    ).toBeUndefined();
  });
});
