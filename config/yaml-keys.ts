/**
 * Duplicate mapping keys in YAML text. `Bun.YAML.parse` (like most parsers) keeps the last of two equal keys
 * without a word, so a cloud-config or kubeconfig that sets `token` twice silently uses the second; YAML 1.2
 * says keys must be unique. This scanner finds them, with their lines, in text the parser has already accepted.
 *
 * It reads the structure, not the values: block mappings by indentation (sequence items start a new mapping),
 * flow mappings `{…}` (JSON included) by nesting, skipping quoted and block scalars and comments. Keys compare
 * by their text after unquoting. Explicit keys (`? `) and merge keys (`<<`) are not checked; anything it cannot
 * read is left alone, so it never reports a duplicate the document does not have.
 *
 * The same reading finds node tags (`!!binary`, `!custom`, `!<…>`): `Bun.YAML.parse` drops a tag without applying
 * it (`token: !!binary aGVsbG8=` gives the base64 text, where YAML means the bytes), so a tagged value is never what
 * its author meant. `yamlTags` lists them with the key they sit under, for readers to refuse.
 */

export interface DuplicateKey {
  readonly key: string;
  /** 1-based line of the repeat. */
  readonly line: number;
  /** 1-based line of the first occurrence. */
  readonly firstLine: number;
}

export interface YamlTag {
  /** As written: `!!binary`, `!custom`, `!<tag:yaml.org,2002:binary>`. */
  readonly tag: string;
  /** The keys down to the tagged value, dotted (`users.user.token`); `""` for a tagged document. */
  readonly key: string;
  /** 1-based line of the tag. */
  readonly line: number;
}

interface Mapping {
  readonly indent: number;
  readonly keys: Map<string, number>;
  /** The last key read in it: the key a tag further down sits under. */
  last?: string;
}

/** The repeated keys of `text`. */
export function duplicateKeys(text: string): DuplicateKey[] {
  return scanYaml(text).duplicates;
}

/** The node tags of `text`, each with the key it sits under. */
export function yamlTags(text: string): YamlTag[] {
  return scanYaml(text).tags;
}

function scanYaml(text: string): { duplicates: DuplicateKey[]; tags: YamlTag[] } {
  const found: DuplicateKey[] = [];
  const tags: YamlTag[] = [];
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const note = (keys: Map<string, number>, key: string, offset: number) => {
    if (key === "<<") return;
    const line = lineOf(offset);
    const first = keys.get(key);
    if (first === undefined) keys.set(key, line);
    else found.push({ key, line, firstLine: first });
  };
  const path = (inner?: string) => [...stack.map((m) => m.last ?? ""), ...(inner ? [inner] : [])].join(".");
  const onTag = (tag: string, offset: number, inner?: string) => {
    tags.push({ tag, key: path(inner), line: lineOf(offset) });
  };
  const scanner = new Scanner(text, note, onTag);

  let stack: Mapping[] = [];
  let blockScalarIndent: number | undefined;
  let pos = 0;
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    const line = text.slice(pos, end);
    const indent = line.length - line.trimStart().length;
    const content = line.trimStart();
    if (blockScalarIndent !== undefined) {
      if (content === "" || indent > blockScalarIndent) {
        pos = end + 1;
        continue;
      }
      blockScalarIndent = undefined;
    }
    if (content === "" || content.startsWith("#")) {
      pos = end + 1;
      continue;
    }
    if (indent === 0 && /^(---|\.\.\.)(\s|$)/.test(content)) {
      stack = [];
      pos = end + 1;
      continue;
    }
    let col = indent;
    // Sequence indicators: each `- ` closes the mappings nested deeper than itself.
    while (text[pos + col] === "-" && /[ \t\n\r]/.test(text[pos + col + 1] ?? "\n")) {
      stack = stack.filter((m) => m.indent <= col);
      col++;
      while (text[pos + col] === " ") col++;
    }
    let at = pos + col;
    at = skipProperties(text, at, onTag);
    if (text[at] === "|" || text[at] === ">") {
      // A block scalar as a sequence item (`- |`): its lines are deeper than the item's dash.
      blockScalarIndent = col > indent ? lastDash(text, pos, col) : indent;
      pos = end + 1;
      continue;
    }
    const next = scanner.valueOrKey(at);
    if (next.kind === "skip") {
      pos = next.end >= end ? lineEnd(text, next.end) + 1 : end + 1;
      continue;
    }
    if (next.kind === "value") {
      pos = next.end > end ? lineEnd(text, next.end) + 1 : end + 1;
      continue;
    }
    // A key at column `kcol` of this line.
    const kcol = at - pos;
    stack = stack.filter((m) => m.indent <= kcol);
    let top = stack.at(-1);
    if (!top || top.indent < kcol) {
      top = { indent: kcol, keys: new Map() };
      stack.push(top);
    }
    note(top.keys, next.key, at);
    top.last = next.key;
    let v = skipSpaces(text, next.end);
    v = skipProperties(text, v, onTag);
    const c = text[v];
    if (c === "|" || c === ">") {
      blockScalarIndent = kcol;
      pos = end + 1;
      continue;
    }
    if (c === "{" || c === "[" || c === '"' || c === "'") {
      const after = scanner.valueOrKey(v);
      pos = after.end > end ? lineEnd(text, after.end) + 1 : end + 1;
      continue;
    }
    pos = end + 1;
  }
  return { duplicates: found, tags };
}

/** The column of the last `-` before `col` on the line starting at `pos`. */
const lastDash = (text: string, pos: number, col: number): number => text.lastIndexOf("-", pos + col) - pos;

const lineEnd = (text: string, from: number): number => {
  const i = text.indexOf("\n", from);
  return i < 0 ? text.length : i;
};

const skipSpaces = (text: string, at: number): number => {
  let i = at;
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
};

/** Skips an anchor (`&a`) and a tag (`!t`) before a node; `onTag` hears of the tag. */
const skipProperties = (text: string, at: number, onTag: (tag: string, offset: number) => void): number => {
  let i = at;
  while (text[i] === "&" || text[i] === "!") {
    const start = i;
    while (i < text.length && !/[ \t\n\r]/.test(text[i] ?? "")) i++;
    if (text[start] === "!") onTag(text.slice(start, i), start);
    i = skipSpaces(text, i);
  }
  return i;
};

type Read =
  | { readonly kind: "key"; readonly key: string; readonly end: number }
  | { readonly kind: "value"; readonly end: number }
  | { readonly kind: "skip"; readonly end: number };

/** Character-level reading of quoted scalars and flow collections, which may span lines. */
class Scanner {
  constructor(
    private readonly text: string,
    private readonly note: (keys: Map<string, number>, key: string, offset: number) => void,
    private readonly onTag: (tag: string, offset: number, inner?: string) => void,
  ) {}

  /**
   * At `at`: a block mapping key (`key:` then a space or the line's end; the end is just past the colon), or a
   * value (a flow collection or quoted scalar, read whole; a plain scalar to the line's end), or something
   * not read (`skip`).
   */
  valueOrKey(at: number): Read {
    const { text } = this;
    const c = text[at];
    if (c === "?") return { kind: "skip", end: at };
    if (c === "{" || c === "[") {
      const end = this.flow(at);
      return end < 0 ? { kind: "skip", end: at } : { kind: "value", end };
    }
    if (c === '"' || c === "'") {
      const q = this.quoted(at);
      if (q === undefined) return { kind: "skip", end: at };
      const colon = skipSpaces(text, q.end);
      if (text[colon] === ":" && /[ \t\n\r]/.test(text[colon + 1] ?? "\n")) {
        return { kind: "key", key: q.value, end: colon + 1 };
      }
      return { kind: "value", end: q.end };
    }
    const stop = lineEnd(text, at);
    for (let i = at; i < stop; i++) {
      if (text[i] === "#" && /[ \t]/.test(text[i - 1] ?? "")) break;
      if (text[i] === ":" && /[ \t\n\r]/.test(text[i + 1] ?? "\n")) {
        return { kind: "key", key: text.slice(at, i).trimEnd(), end: i + 1 };
      }
    }
    return { kind: "value", end: at };
  }

  /** A quoted scalar at `at`: its value and the offset just past its closing quote. */
  private quoted(at: number): { value: string; end: number } | undefined {
    const { text } = this;
    const q = text[at];
    let i = at + 1;
    let value = "";
    while (i < text.length) {
      const ch = text[i] as string;
      if (q === "'" && ch === "'") {
        if (text[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        return { value, end: i + 1 };
      }
      if (q === '"' && ch === "\\") {
        value += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (q === '"' && ch === '"') return { value: unescapeDoubleQuoted(value), end: i + 1 };
      value += ch;
      i++;
    }
    return undefined;
  }

  /** A flow collection at `at`, its mappings' keys noted; the offset just past it, or -1 if unreadable. */
  private flow(at: number): number {
    const { text } = this;
    const open = text[at];
    const close = open === "{" ? "}" : "]";
    const keys = new Map<string, number>();
    let i = at + 1;
    let expectKey = open === "{";
    let lastKey: string | undefined;
    while (i < text.length) {
      i = this.skipFlowSpace(i);
      if (text[i] === "!") {
        const start = i;
        while (i < text.length && !/[ \t\n\r,{}[\]]/.test(text[i] ?? "")) i++;
        this.onTag(text.slice(start, i), start, lastKey);
        continue;
      }
      const ch = text[i];
      if (ch === undefined) return -1;
      if (ch === close) return i + 1;
      if (ch === ",") {
        expectKey = open === "{";
        i++;
        continue;
      }
      if (ch === ":") {
        expectKey = false;
        i++;
        continue;
      }
      const start = i;
      let scalar: string | undefined;
      if (ch === "{" || ch === "[") {
        i = this.flow(i);
        if (i < 0) return -1;
      } else if (ch === '"' || ch === "'") {
        const q = this.quoted(i);
        if (!q) return -1;
        scalar = q.value;
        i = q.end;
      } else {
        while (i < text.length && !this.endsPlainInFlow(i)) i++;
        scalar = text.slice(start, i).trim();
      }
      if (expectKey && scalar !== undefined && text[this.skipFlowSpace(i)] === ":") {
        this.note(keys, scalar, start);
        lastKey = scalar;
      }
      expectKey = false;
    }
    return -1;
  }

  private endsPlainInFlow(i: number): boolean {
    const ch = this.text[i];
    if (ch === "," || ch === "}" || ch === "]" || ch === "\n") return true;
    return ch === ":" && /[ \t\n\r,{}[\]]/.test(this.text[i + 1] ?? "\n");
  }

  private skipFlowSpace(at: number): number {
    const { text } = this;
    let i = at;
    for (;;) {
      while (/[ \t\r\n]/.test(text[i] ?? "")) i++;
      if (text[i] !== "#") return i;
      i = lineEnd(text, i);
    }
  }
}

/** Double-quoted escapes, through JSON where they agree (the common ones); the raw text otherwise. */
function unescapeDoubleQuoted(raw: string): string {
  try {
    return JSON.parse(`"${raw.replace(/\n/g, "\\n")}"`) as string;
  } catch {
    return raw;
  }
}
