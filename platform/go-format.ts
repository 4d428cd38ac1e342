/**
 * Go's spellings of a few values that end up in upstream-compatible messages: `%q` of a string and
 * `time.Duration.String()`. Messages and events must read exactly as upstream's, so these follow Go's rules.
 */

const simpleEscapes: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/**
 * Go `%q` (`strconv.Quote`): double-quoted with Go's escapes. What Go counts as printable (letters, marks,
 * numbers, punctuation, symbols, and the ASCII space) stays as it is; anything else is `\xhh` below U+0080,
 * `\uhhhh` or `\Uhhhhhhhh` above.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const simple = simpleEscapes[ch];
    if (simple !== undefined) out += simple;
    else if (ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Go `%v` of a `[]string`: `[a b c]`. */
export function goStringSlice(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

/** Shortest decimal rendering of `value / 10^digits` without trailing zeros, as Go's fmtFrac/fmtInt do. */
function fixed(value: bigint, digits: number): string {
  const unit = 10n ** BigInt(digits);
  const whole = value / unit;
  const frac = (value % unit).toString().padStart(digits, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * Go `time.Duration.String()` of a duration given in milliseconds (fractions kept to the nanosecond):
 * `0s`, `850ns`, `1.5µs`, `12.345ms`, `2.5s`, `1m30s`, `2h0m0.5s`.
 */
export function formatGoDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  const negative = ns < 0n;
  if (negative) ns = -ns;
  const sign = negative ? "-" : "";
  if (ns === 0n) return "0s";
  if (ns < 1_000n) return `${sign}${ns}ns`;
  if (ns < 1_000_000n) return `${sign}${fixed(ns, 3)}µs`;
  if (ns < 1_000_000_000n) return `${sign}${fixed(ns, 6)}ms`;
  const totalSeconds = ns / 1_000_000_000n;
  const secondsPart = `${fixed(ns % 60_000_000_000n, 9)}s`;
  if (totalSeconds < 60n) return `${sign}${secondsPart}`;
  const minutes = totalSeconds / 60n;
  if (minutes < 60n) return `${sign}${minutes}m${secondsPart}`;
  return `${sign}${minutes / 60n}h${minutes % 60n}m${secondsPart}`;
}
