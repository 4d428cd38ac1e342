/**
 * Bun is not on a newcomer's PATH: it comes from node_modules, so every command the documentation gives runs it as
 * `npx bun …`. test/docs-commands.test.ts runs the shell blocks without bun on PATH; this covers the rest: commands
 * in prose (`…`), in sample output and in the lines generated pages and manifests carry.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const FILES = [
  "README.md",
  ...new Bun.Glob("docs/**/*.md").scanSync(ROOT),
  ...new Bun.Glob("deploy/**/*.{yaml,md}").scanSync(ROOT),
].sort();

/** `bun ` starting a command: not part of a word or a path, not after `npx `. */
const BARE_BUN = /(?<![\w/.-])(?<!npx )bun (?=\S)/;

/** Each `file:line: text` where a command starts with a bare `bun`. */
function bareBunLines(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => (BARE_BUN.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

test.each([
  ["`bun scripts/gen-docs.ts`", true],
  ["<!-- BEGIN GENERATED settings: bun scripts/gen-docs.ts writes this -->", true],
  ["bun cmd/main.ts sandbox", true],
  ["`npx bun scripts/gen-docs.ts`", false],
  ["node_modules/.bin/bun test", false],
  ["on Bun, with bun-types", false],
])("%s starts a command with a bare bun: %p", (line, bare) => {
  expect(bareBunLines("x.md", line).length > 0).toBe(bare);
});

test("no documented command runs a bare `bun`", () => {
  expect(FILES.flatMap((f) => bareBunLines(f, readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
});
