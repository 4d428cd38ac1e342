/**
 * The root logger: one consola instance, `withTag` per controller and provider. Verbosity follows klog's `-v`
 * (0 info, 2 debug, 4+ trace); `--logging-format=json` writes one JSON object per line for log collectors.
 */
import { type ConsolaInstance, type ConsolaReporter, createConsola } from "consola";

export interface LoggerOptions {
  readonly verbosity: number;
  readonly format: "text" | "json";
  /** Where lines go; stderr by default, like klog. */
  readonly write?: (line: string) => void;
}

export function createRootLogger({ verbosity, format, write }: LoggerOptions): ConsolaInstance {
  const level = verbosity >= 4 ? 5 : verbosity >= 2 ? 4 : 3;
  const sink = write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const reporters: ConsolaReporter[] = format === "json" ? [jsonReporter(sink)] : [textReporter(sink)];
  return createConsola({ level, reporters });
}

function jsonReporter(write: (line: string) => void): ConsolaReporter {
  return {
    log(entry) {
      const [msg, ...rest] = entry.args;
      const record: Record<string, unknown> = {
        ts: entry.date.toISOString(),
        level: entry.type,
        ...(entry.tag ? { logger: entry.tag } : {}),
        msg: msg instanceof Error ? msg.message : String(msg),
      };
      const extra = rest.map((a) => (a instanceof Error ? a.message : a));
      if (extra.length > 0) record.args = extra;
      write(JSON.stringify(record));
    },
  };
}

function textReporter(write: (line: string) => void): ConsolaReporter {
  return {
    log(entry) {
      const level = entry.type.toUpperCase().padEnd(5);
      const tag = entry.tag ? ` [${entry.tag}]` : "";
      const text = entry.args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : Bun.inspect(a)));
      write(`${entry.date.toISOString()} ${level}${tag} ${text.join(" ")}`);
    },
  };
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
        r.log({ ...entry, type: "debug", level: 4, args: [...entry.args, "(while stopping)"] }, ctx);
      },
    }),
  );
  return logger.create({ reporters });
}
