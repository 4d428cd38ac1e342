/**
 * Typed readers of annotation values: each turns the text of one annotation into a value, or says why it cannot.
 * The text arrives trimmed; a reader never sees an absent annotation (that is "not set", decided before).
 *
 * A reader also describes itself for messages and the generated reference: `type` (a short name such as
 * `duration`) and `accepts` (what it takes, completing "expected …").
 */
import type { Service } from "../../../kube/objects.ts";
import { type Cidr, formatCIDR, tryParseCIDR } from "../../../net/cidr.ts";
import { formatIP, type IPAddress, parseIPStrict } from "../../../net/ip.ts";
import { formatDuration, parseDuration } from "../duration.ts";

/** A reader's answer: the value, or why the text is not one (`reason` may be left out when `accepts` says it all). */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason?: string };

export interface Reader<T> {
  /** A short name for the reference page: `bool`, `int`, `duration`, `list of CIDR`. */
  readonly type: string;
  /** What the reader takes, completing "expected …": `true or false`, `an integer from 1 to 10`. */
  readonly accepts: string;
  /** The value of `text` (already trimmed) on `service`, which per-port readers check their ports against. */
  parse(text: string, service: Service): Parsed<T>;
  /** The value as an annotation would spell it (for defaults in the reference page). */
  format(value: T): string;
}

const valid = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = <T>(reason?: string): Parsed<T> => (reason === undefined ? { ok: false } : { ok: false, reason });

/** Any text, as written (trimmed); empty is a value too. */
export function text(): Reader<string> {
  return { type: "string", accepts: "any text", parse: (t) => valid(t), format: (v) => v };
}

// Go's strconv.ParseBool, which the Go providers' annotation packages use: users copy values between them.
const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

export function bool(): Reader<boolean> {
  return {
    type: "bool",
    accepts: "true or false",
    parse: (t) => (TRUE.has(t) ? valid(true) : FALSE.has(t) ? valid(false) : invalid()),
    format: String,
  };
}

export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

const range = (b: Bounds, show: (n: number) => string): string => {
  if (b.min !== undefined && b.max !== undefined) return ` from ${show(b.min)} to ${show(b.max)}`;
  if (b.min !== undefined) return ` of at least ${show(b.min)}`;
  if (b.max !== undefined) return ` of at most ${show(b.max)}`;
  return "";
};

const within = (n: number, b: Bounds): boolean =>
  (b.min === undefined || n >= b.min) && (b.max === undefined || n <= b.max);

/** A decimal integer, optionally signed, within the bounds (inclusive). */
export function int(bounds: Bounds = {}): Reader<number> {
  return {
    type: "int",
    accepts: `an integer${range(bounds, String)}`,
    parse(t) {
      if (!/^[+-]?\d+$/.test(t)) return invalid();
      const n = Number(t);
      return Number.isSafeInteger(n) && within(n, bounds) ? valid(n) : invalid();
    },
    format: String,
  };
}

/** A Go duration (`30s`, `1m30s`, `500ms`), in milliseconds, within the bounds (milliseconds, inclusive). */
export function duration(bounds: Bounds = {}): Reader<number> {
  return {
    type: "duration",
    accepts: `a duration such as 30s or 1m30s${range(bounds, formatDuration)}`,
    parse(t) {
      const ms = parseDuration(t);
      if (ms === undefined) return invalid();
      return within(ms, bounds) ? valid(ms) : invalid();
    },
    format: formatDuration,
  };
}

/** One of the given words, exactly (case matters). */
export function oneOf<const W extends string>(words: readonly W[]): Reader<W> {
  return {
    type: "enum",
    accepts: `one of ${words.join(", ")}`,
    parse: (t) => ((words as readonly string[]).includes(t) ? valid(t as W) : invalid()),
    format: (v) => v,
  };
}

/** An IPv4 or IPv6 address as Kubernetes validation reads one (no leading zeros, no zone). */
export function ip(): Reader<IPAddress> {
  return {
    type: "IP",
    accepts: "an IPv4 or IPv6 address",
    parse: (t) => {
      const address = parseIPStrict(t);
      return address ? valid(address) : invalid();
    },
    format: formatIP,
  };
}

/** An IPv4 or IPv6 CIDR, masked to its prefix (`10.0.0.1/8` is `10.0.0.0/8`), as upstream reads CIDRs. */
export function cidr(): Reader<Cidr> {
  return {
    type: "CIDR",
    accepts: "a CIDR such as 10.0.0.0/8 or 2001:db8::/32",
    parse: (t) => {
      const network = tryParseCIDR(t);
      return network ? valid(network) : invalid();
    },
    format: formatCIDR,
  };
}

/**
 * Comma-separated items, each read by `item`; spaces around items and empty items (a trailing comma) are ignored,
 * so an empty text is an empty list. Every bad item is named in the reason.
 */
export function list<T>(item: Reader<T>): Reader<T[]> {
  return {
    type: `list of ${item.type}`,
    accepts: `a comma-separated list, each ${item.accepts}`,
    parse(t, service) {
      const values: T[] = [];
      const bad: string[] = [];
      for (const part of splitList(t)) {
        const read = item.parse(part, service);
        if (read.ok) values.push(read.value);
        else bad.push(read.reason ? `${JSON.stringify(part)} (${read.reason})` : JSON.stringify(part));
      }
      if (bad.length > 0) return invalid(`not ${item.accepts}: ${bad.join(", ")}`);
      return valid(values);
    },
    format: (values) => values.map((v) => item.format(v)).join(","),
  };
}

/** The non-empty, trimmed items of a comma-separated text. */
export function splitList(t: string): string[] {
  return t
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
