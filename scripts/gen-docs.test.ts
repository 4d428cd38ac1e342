import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { GENERATED } from "./gen-docs.ts";

const ROOT = resolve(import.meta.dir, "..");

test.each(Object.keys(GENERATED))(
  "%s matches the code (run `npx bun scripts/gen-docs.ts` after changing flags or metrics)",
  async (path) => {
    const make = GENERATED[path as keyof typeof GENERATED];
    expect(await readFile(join(ROOT, path), "utf8")).toBe(await make());
  },
);
