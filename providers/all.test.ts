import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { discoverProviders } from "../scripts/build.ts";

test("providers/all.ts imports every provider folder, so development runs know them all", async () => {
  const text = await readFile(join(import.meta.dir, "all.ts"), "utf8");
  const imported = [...text.matchAll(/^lazily\("([a-z0-9-]+)", \(\) => import\("\.\/\1\/index\.ts"\)\);$/gm)]
    .map((m) => m[1])
    .sort();
  const folders = (await discoverProviders()).map((p) => p.name).sort();
  expect(imported).toEqual(folders);
});
