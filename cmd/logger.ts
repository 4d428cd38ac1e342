/**
 * The root logger: one consola instance, `withTag` per controller and provider, with reporters that write what a
 * Kubernetes log pipeline expects from a control-plane component.
 *
 * - `--logging-format=text` (the default, as upstream) writes klog's header format,
 *   `I1125 02:41:12.163000    1234 service] msg key="value"`: severity letter, month and day, local time to the
 *   microsecond, the process ID padded to 7, and the source. klog's source is `file:line`; here it is the logger's
 *   name (its `withTag` chain joined by `/`, `main` for the root), which is also what `--vmodule` matches.
 * - `--logging-format=json` writes component-base's JSON keys: `ts` (Unix seconds, fractional), `logger`, `caller`,
 *   `msg`, `v` (the verbosity of an info line; absent on errors, as upstream), `err`, then the structured key/values.
 *   `caller` is the source file and line of the log call relative to the repository (`controllers/node/sync.ts:88`),
 *   read from a stack taken when the line is written (about 10 µs a line here; text lines do not take it). The
 *   compiled executables carry a source map for it (scripts/build.ts); where no frame of ours names a `.ts` file (an
 *   executable built without one, a line consola writes from a timer), `caller` is the logger's name instead.
 *   JavaScriptCore makes proper tail calls: a function whose last act is the log call (`(m) => log.warn(m)`,
 *   `return log.info(…)`) leaves no frame, so the line named is where that function was called.
 *
 * Structured key/values are the plain-object arguments of a call (`log.info("synced", { node: "n1" })`); an `Error`
 * argument becomes `err`. Values under keys that name credentials (token, password, secret, authorization, key
 * material) are written as `[redacted]`: never a secret in a line.
 *
 * Verbosity follows upstream's use of `-v`: 0 always shown (info, warnings, errors), 2 the steady-state detail
 * (consola's `debug`), 4 debug detail and up (consola's `trace`). `--vmodule=pattern=N,…` sets N for the loggers whose
 * name (or any `/` segment of it) matches the glob pattern (`*`, `?`), first match wins, like klog matches file names.
 */
import { dirname } from "node:path";
import { type ConsolaInstance, type ConsolaReporter, createConsola, type LogObject } from "consola";
import { redactUrlCredentials } from "../net/url-credentials.ts";

export interface VModuleRule {
  readonly pattern: string;
  readonly level: number;
}

export interface LoggerOptions {
  readonly verbosity: number;
  readonly format: "text" | "json";
  /** Per-logger verbosity from `--vmodule`. */
  readonly vmodule?: readonly VModuleRule[];
  /** Where lines go; stderr by default, like klog. */
  readonly write?: (line: string) => void;
  /**
   * `--log-text-split-stream` (text format only, as upstream): info lines go to `writeInfo` (stdout by default),
   * warnings, errors and fatal lines to `write`, as component-base's router sends every line but `I` to the error
   * stream.
   */
  readonly splitStream?: boolean;
  readonly writeInfo?: (line: string) => void;
  /** The process ID in text headers; this process's by default. */
  readonly pid?: number;
}

export function createRootLogger({
  verbosity,
  format,
  vmodule = [],
  write,
  pid,
  splitStream = false,
  writeInfo,
}: LoggerOptions): ConsolaInstance {
  const sink = write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const infoSink =
    splitStream && format === "text" ? (writeInfo ?? ((l: string) => process.stdout.write(`${l}\n`))) : sink;
  const levelFor = verbosityFor(verbosity, vmodule);
  const line = format === "json" ? jsonLine : textLine(pid ?? process.pid);
  const reporter: ConsolaReporter = {
    log(entry) {
      const v = entryVerbosity(entry);
      if (v > levelFor(entry.tag)) return;
      // The last net under every line: an endpoint's credentials stay out of logs whoever wrote the line.
      // consola's levels: 0 error and fatal, 1 warn, 2 and up info (and the debug and trace verbosities).
      (entry.level >= 2 ? infoSink : sink)(redactUrlCredentials(line(entry, v)));
    },
  };
  // consola drops what is above its level before any reporter sees it: let through the most any logger may show.
  const most = Math.max(verbosity, ...vmodule.map((r) => r.level));
  return createConsola({ level: consolaLevel(most), reporters: [reporter] });
}

/** consola's level for a klog verbosity: 3 info, 4 debug (v 2-3), 5 trace (v 4 and up). */
function consolaLevel(verbosity: number): number {
  return verbosity >= 4 ? 5 : verbosity >= 2 ? 4 : 3;
}

/** The klog verbosity an entry is logged at: 0 for info and above, 2 for debug, 4 for trace. */
function entryVerbosity(entry: LogObject): number {
  return entry.level >= 5 ? 4 : entry.level >= 4 ? 2 : 0;
}

function verbosityFor(verbosity: number, rules: readonly VModuleRule[]): (tag: string) => number {
  if (rules.length === 0) return () => verbosity;
  const compiled = rules.map((r) => ({ re: globToRegExp(r.pattern), level: r.level }));
  const cache = new Map<string, number>();
  return (tag) => {
    let found = cache.get(tag);
    if (found === undefined) {
      const name = loggerName(tag);
      const candidates = [name, ...name.split("/")];
      found = compiled.find((r) => candidates.some((c) => r.re.test(c)))?.level ?? verbosity;
      cache.set(tag, found);
    }
    return found;
  };
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/**
 * `--vmodule`'s value as rules, or the problem with it. klog's syntax: comma-separated `pattern=N`, N a
 * non-negative integer, the pattern non-empty.
 */
export function parseVModule(text: string): { ok: true; rules: VModuleRule[] } | { ok: false; error: string } {
  const rules: VModuleRule[] = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const eq = item.lastIndexOf("=");
    const pattern = item.slice(0, eq).trim();
    const level = item.slice(eq + 1).trim();
    if (eq < 0 || pattern === "" || !/^\d+$/.test(level)) {
      return {
        ok: false,
        error: `--vmodule must be a comma-separated list of pattern=N (N a verbosity 0 or more), like service=4,node*=2, got "${item}"`,
      };
    }
    rules.push({ pattern, level: Number(level) });
  }
  return { ok: true, rules };
}

const loggerName = (tag: string) => (tag === "" ? "main" : tag.replaceAll(":", "/"));

const SECRET_KEY = /token|password|passwd|secret|authorization|credential|private.?key|api.?key/i;

interface Parts {
  readonly msg: string;
  readonly err: string | undefined;
  readonly kvs: [string, unknown][];
}

/** A call's arguments as klog sees a structured call: the message, the error, the key/values. */
function parts(entry: LogObject): Parts {
  const words: string[] = [];
  const kvs: [string, unknown][] = [];
  let err: string | undefined;
  for (const arg of entry.args) {
    if (arg instanceof Error) err = err === undefined ? arg.message : `${err}; ${arg.message}`;
    else if (typeof arg === "string") words.push(arg);
    else if (arg !== null && typeof arg === "object" && Object.getPrototypeOf(arg) === Object.prototype) {
      for (const [k, value] of Object.entries(arg)) kvs.push([k, SECRET_KEY.test(k) ? "[redacted]" : value]);
    } else words.push(typeof arg === "bigint" ? arg.toString() : String(JSON.stringify(arg) ?? arg));
  }
  if (entry.message !== undefined && words.length === 0) words.push(entry.message);
  return { msg: words.join(" "), err, kvs };
}

function severity(entry: LogObject): string {
  if (entry.type === "fatal") return "F";
  return entry.level <= 0 ? "E" : entry.level === 1 ? "W" : "I";
}

const pad = (n: number, width: number, fill = "0") => String(n).padStart(width, fill);

/** klog's `%q`-like rendering of a value: strings quoted, numbers and booleans bare, the rest as JSON. */
function klogValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value === undefined || value === null) return "<nil>";
  return JSON.stringify(value) ?? String(value);
}

function textLine(pid: number): (entry: LogObject, v: number) => string {
  return (entry) => {
    const d = entry.date;
    const header =
      `${severity(entry)}${pad(d.getMonth() + 1, 2)}${pad(d.getDate(), 2)} ` +
      `${pad(d.getHours(), 2)}:${pad(d.getMinutes(), 2)}:${pad(d.getSeconds(), 2)}.${pad(d.getMilliseconds() * 1000, 6)} ` +
      `${pad(pid, 7, " ")} ${loggerName(entry.tag)}]`;
    const { msg, err, kvs } = parts(entry);
    const pairs = [...(err === undefined ? [] : [["err", err] as [string, unknown]]), ...kvs];
    return `${header} ${msg}${pairs.map(([k, value]) => ` ${k}=${klogValue(value)}`).join("")}`;
  };
}

function jsonLine(entry: LogObject, v: number): string {
  const { msg, err, kvs } = parts(entry);
  const logger = loggerName(entry.tag);
  const record: Record<string, unknown> = {
    ts: entry.date.getTime() / 1000,
    logger,
    caller: callerOf(entry) ?? logger,
    msg,
  };
  if (entry.level > 0) record.v = v;
  if (err !== undefined) record.err = err;
  for (const [k, value] of kvs) if (!(k in record)) record[k] = value;
  return JSON.stringify(record);
}

const CALLER = Symbol("caller");
type WithCaller = LogObject & { [CALLER]?: string | null };

/** This repository's root as source runs name it in stack frames; compiled frames are already relative to it. */
const ROOT_PREFIX = `${dirname(import.meta.dir)}/`;
const SELF = "cmd/logger.ts";
/** `at fn (file:line:col)` or `at file:line:col`. */
const FRAME = /^\s*at (?:.*? \()?(\S+?):(\d+):\d+\)?$/;

/**
 * `file:line` of the call that logged `entry`: the first stack frame that is one of our `.ts` files and not this
 * one (consola's frames and ours sit above it). Remembered on the entry, so the line consola writes later for a
 * throttled repeat (a copy of the first entry) keeps the first call's place; `undefined` when no frame qualifies.
 */
export function callerOf(entry: LogObject): string | undefined {
  const e = entry as WithCaller;
  if (!(CALLER in e)) e[CALLER] = callerFrom(currentStack()) ?? null;
  return e[CALLER] ?? undefined;
}

function currentStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20; // consola's frames and a wrapping reporter's come first
  try {
    return new Error().stack ?? "";
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The caller in a stack's text (exported for its table test). */
export function callerFrom(stack: string): string | undefined {
  for (const frame of stack.split("\n")) {
    const m = FRAME.exec(frame);
    if (!m) continue;
    const file = m[1]!.startsWith(ROOT_PREFIX) ? m[1]!.slice(ROOT_PREFIX.length) : m[1]!;
    // file:// names code compiled from a string (`new Function`), its line that string's: not a place in our files.
    if (!file.endsWith(".ts") || file === SELF || file.includes("node_modules/") || file.startsWith("file:")) continue;
    return `${file}:${m[2]}`;
  }
  return undefined;
}

/**
 * A logger that, once `signal` has aborted, reports errors and warnings at debug level: a controller's calls
 * that fail because it is being stopped are expected, not news. Before the abort it is `logger` unchanged.
 */
export function quietAfterAbort(logger: ConsolaInstance, signal: AbortSignal): ConsolaInstance {
  const reporters = logger.options.reporters.map(
    (r): ConsolaReporter => ({
      log(entry, ctx) {
        if (!signal.aborted || entry.level > 1) return r.log(entry, ctx);
        if (ctx.options.level < 4) return;
        callerOf(entry); // on the entry consola keeps for throttled repeats, not only on this copy
        r.log({ ...entry, type: "debug", level: 4, args: [...entry.args, "(while stopping)"] }, ctx);
      },
    }),
  );
  return logger.create({ reporters });
}
