/**
 * The TypeScript blocks of docs/writing-a-provider.md, as test/new-provider.e2e.test.ts checks them against a
 * freshly scaffolded `acme`. Every `ts` block is one of two kinds:
 *
 * - an **excerpt** of a scaffolded file: its first line is `// providers/acme/<file>.ts`, and its other lines must
 *   stand in that file, in order and together, as the scaffold writes them;
 * - a **snippet**, compiled in `providers/acme/` after the context in the HTML comment just above the block
 *   (`<!-- compiled after: … -->`): the imports and declarations the prose around it takes for granted. Where the
 *   context holds `{{block}}`, the block goes there (for a property or a method shown on its own).
 *
 * A block of neither kind is an error: nothing in the guide goes unchecked.
 */

export interface GuideExcerpt {
  readonly kind: "excerpt";
  /** 1-based line of the block's first code line in the document. */
  readonly line: number;
  /** The scaffolded file, relative to the tree's root. */
  readonly file: string;
  readonly lines: readonly string[];
}

export interface GuideSnippet {
  readonly kind: "snippet";
  readonly line: number;
  /** The module to compile: the context with the block in it. */
  readonly source: string;
}

export type GuideBlock = GuideExcerpt | GuideSnippet;

const EXCERPT = /^\/\/ (providers\/[\w-]+\/[\w./-]+\.ts)\s*$/;
const CONTEXT = /^<!-- compiled after:([\s\S]*)-->$/;

/** The document's `ts` blocks; throws naming the line of a block that is neither an excerpt nor has a context. */
export function guideBlocks(markdown: string): GuideBlock[] {
  const lines = markdown.split("\n");
  const blocks: GuideBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s*$/.test(lines[i] as string)) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j] as string)) body.push(lines[j++] as string);
    const line = i + 2;
    const excerpt = EXCERPT.exec(body[0] ?? "");
    if (excerpt) {
      blocks.push({ kind: "excerpt", line, file: excerpt[1] as string, lines: body.slice(1) });
    } else {
      const before = lines.slice(0, i).join("\n").trimEnd();
      const context = CONTEXT.exec(before.slice(before.lastIndexOf("<!--")))?.[1];
      if (context === undefined) {
        throw new Error(
          `line ${line}: a ts block must start with "// providers/acme/<file>.ts" (an excerpt of the scaffold) or follow a "<!-- compiled after: … -->" comment`,
        );
      }
      const code = body.join("\n");
      const source = context.includes("{{block}}") ? context.replace("{{block}}", code) : `${context}\n${code}\n`;
      blocks.push({ kind: "snippet", line, source });
    }
    i = j;
  }
  return blocks;
}

/**
 * Where `excerpt` stands in `file` (the 1-based line of its first line), or undefined when its lines are not all
 * there, in order and together. Trailing spaces do not count.
 */
export function excerptAt(excerpt: readonly string[], file: string): number | undefined {
  const have = file.split("\n").map((l) => l.trimEnd());
  const want = excerpt.map((l) => l.trimEnd());
  for (let at = 0; at + want.length <= have.length; at++) {
    if (want.every((l, k) => have[at + k] === l)) return at + 1;
  }
  return undefined;
}
