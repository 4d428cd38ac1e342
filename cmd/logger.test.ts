import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  callerFrom,
  createRootLogger,
  type LoggerOptions,
  parseVModule,
  quietAfterAbort,
  type VModuleRule,
} from "./logger.ts";
import { buildOptions } from "./options.ts";

/** klog's header: severity, mmdd, hh:mm:ss.uuuuuu, the process ID padded to 7, the source, `]`. */
const KLOG_HEADER = /^([IWEF])(\d{4}) (\d\d:\d\d:\d\d\.\d{6}) {1,8}(\d+) ([^\s\]]+)\] /;

function capture(opts: Partial<LoggerOptions> = {}) {
  const lines: string[] = [];
  const log = createRootLogger({ verbosity: 0, format: "text", pid: 1234, write: (l) => lines.push(l), ...opts });
  return { log, lines };
}

describe("klog text lines", () => {
  test.each([
    ["info", "I"],
    ["warn", "W"],
    ["error", "E"],
    ["fatal", "F"],
  ] as const)("%s writes severity %s in klog's header with the logger's name as source", (method, letter) => {
    const { log, lines } = capture();
    log.withTag("service")[method]("hello");
    expect(lines).toHaveLength(1);
    const m = KLOG_HEADER.exec(lines[0] ?? "");
    expect(m?.[1]).toBe(letter);
    expect(m?.[4]).toBe("1234");
    expect(m?.[5]).toBe("service");
    expect(lines[0]?.endsWith("] hello")).toBe(true);
  });

  test("pads the process ID to 7 as klog does, and names the root logger main", () => {
    const { log, lines } = capture();
    log.info("x");
    expect(lines[0]).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} {4}1234 main\] x$/);
  });

  test("nested tags become a /-joined source", () => {
    const { log, lines } = capture();
    log.withTag("metal").withTag("pools").info("x");
    expect(lines[0]).toContain(" metal/pools] x");
  });

  test.each([
    [
      "plain object arguments as key=value",
      ["synced", { node: "n1", count: 3, ok: true }],
      'synced node="n1" count=3 ok=true',
    ],
    ["an Error as err", ["sync failed", new Error("boom")], 'sync failed err="boom"'],
    ["nested values as JSON", ["m", { ids: [1, 2] }], "m ids=[1,2]"],
    [
      "credentials redacted",
      ["login", { token: "s3cr3t", apiKey: "k", user: "u" }],
      'login token="[redacted]" apiKey="[redacted]" user="u"',
    ],
    ["extra strings joined to the message", ["a", "b"], "a b"],
  ])("writes %s", (_name, args, tail) => {
    const { log, lines } = capture();
    log.info(...(args as [unknown, ...unknown[]]));
    expect(lines[0]?.replace(KLOG_HEADER, "")).toBe(tail);
    expect(lines[0]).not.toContain("s3cr3t");
  });
});

describe("JSON lines", () => {
  test.each([
    ["info", { v: 0, msg: "hello", logger: "svc" }, ["err"]],
    ["debug", { v: 2, msg: "hello" }, ["err"]],
    ["trace", { v: 4, msg: "hello" }, ["err"]],
    ["error", { msg: "hello", err: "boom" }, ["v"]],
  ] as const)("%s carries component-base's keys", (method, expected, absent) => {
    const lines: string[] = [];
    const log = createRootLogger({ verbosity: 9, format: "json", write: (l) => lines.push(l) }).withTag("svc");
    if (method === "error") log.error("hello", new Error("boom"));
    else log[method]("hello");
    const record = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(record).toMatchObject(expected);
    expect(typeof record.ts).toBe("number");
    expect(Math.abs((record.ts as number) - Date.now() / 1000)).toBeLessThan(3600);
    for (const key of absent) expect(record).not.toHaveProperty(key);
  });

  test("structured key/values are top-level keys, credentials redacted", () => {
    const lines: string[] = [];
    createRootLogger({ verbosity: 0, format: "json", write: (l) => lines.push(l) }).info("m", {
      node: "n1",
      password: "hunter2",
    });
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ msg: "m", node: "n1", password: "[redacted]" });
    expect(lines[0]).not.toContain("hunter2");
  });
});

/** `cmd/logger.test.ts:N`, N the line of this file that carries `marker` (a comment on a log call). */
function lineOf(marker: string): string {
  const lines = readFileSync(import.meta.path, "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(`// ${marker}`) && !l.includes("lineOf("));
  expect(at).toBeGreaterThanOrEqual(0);
  return `cmd/logger.test.ts:${at + 1}`;
}

function jsonCapture(verbosity = 0) {
  const lines: string[] = [];
  const log = createRootLogger({ verbosity, format: "json", write: (l) => lines.push(l) });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, records };
}

describe("JSON lines' caller", () => {
  test("is the file and line of the log call, relative to the repository, placed after logger as zap places it", () => {
    const { log, records } = jsonCapture();
    log.withTag("svc").withTag("x").info("here", { node: "n1" }); // caller:tagged
    expect(Object.keys(records()[0]!)).toEqual(["ts", "logger", "caller", "msg", "v", "node"]);
    expect(records()[0]).toMatchObject({ logger: "svc/x", caller: lineOf("caller:tagged") });
  });

  test("names each call's own line, in a helper of ours too; a call in tail position names the helper's caller", () => {
    const { log, records } = jsonCapture();
    const warnOf = (what: string) => {
      log.warn(what); // caller:helper
    };
    // JavaScriptCore's proper tail calls leave no frame for a function whose last act is the call.
    const tailWarnOf = (what: string) => log.warn(what);
    log.error("first", new Error("boom")); // caller:error
    warnOf("second");
    tailWarnOf("third"); // caller:tail
    expect(records().map((r) => r.caller)).toEqual([
      lineOf("caller:error"),
      lineOf("caller:helper"),
      lineOf("caller:tail"),
    ]);
  });

  test("a line consola writes for throttled repeats keeps its first call's place, not the next call's", () => {
    const { log, records } = jsonCapture();
    for (let i = 0; i < 8; i++) log.info("same"); // caller:repeated
    log.info("other"); // caller:other
    // consola holds back identical lines after the fifth within a second and writes one "(repeated N times)" line when
    // a different one comes; on a machine slow enough to space them a second apart, all eight are written. Either way
    // every line names the call that made it.
    const byMsg = records().map((r) => [String(r.msg).split(" ")[0], r.caller]);
    expect(byMsg.length).toBeGreaterThanOrEqual(7);
    for (const [msg, caller] of byMsg) {
      expect(caller).toBe(msg === "same" ? lineOf("caller:repeated") : lineOf("caller:other"));
    }
  });

  test("survives quietAfterAbort's demotion", () => {
    const { log: root, records } = jsonCapture(2);
    const stop = new AbortController();
    const log = quietAfterAbort(root.withTag("c"), stop.signal);
    stop.abort();
    log.error("aborted call"); // caller:demoted
    expect(records()).toMatchObject([{ msg: "aborted call (while stopping)", v: 2, caller: lineOf("caller:demoted") }]);
  });

  test("is the logger's name when no frame of ours made the call", async () => {
    const { log, records } = jsonCapture();
    // Code compiled from a string, run as a microtask: its stack names no .ts file of ours.
    const fromNowhere = new Function("log", "queueMicrotask(() => log.withTag('anon').info('from nowhere'))");
    fromNowhere(log);
    await Promise.resolve();
    await Promise.resolve();
    expect(records()).toMatchObject([{ msg: "from nowhere", logger: "anon", caller: "anon" }]);
  });

  test("text lines keep the logger's name as klog's source", () => {
    const { log, lines } = capture();
    log.withTag("svc").info("x");
    expect(lines[0]).toContain(" svc] x");
  });
});

describe("callerFrom", () => {
  const root = dirname(import.meta.dir);
  test.each([
    [
      "a source run's absolute path, relative to the repository",
      `Error\n    at callerOf (${join(root, "cmd/logger.ts")}:10:5)\n    at sync (${join(root, "controllers/node/sync.ts")}:88:11)`,
      "controllers/node/sync.ts:88",
    ],
    [
      "a compiled executable's source-mapped frames, consola's skipped",
      "Error\n    at log (cmd/logger.ts:1:1)\n    at _log (node_modules/consola/dist/core.mjs:500:7)\n    at <anonymous> (providers/hcloud/routes.ts:42:3)",
      "providers/hcloud/routes.ts:42",
    ],
    [
      "an anonymous frame without parentheses, after an async one of consola's",
      `Error\n    at async x (${root}/node_modules/consola/dist/index.mjs:1:2)\n    at ${root}/cmd/run.ts:7:9`,
      "cmd/run.ts:7",
    ],
    [
      "an executable without a source map: nothing",
      "Error\n    at /$bunfs/root/cloud-controller-manager:123:4",
      undefined,
    ],
    [
      "native frames only: nothing",
      "Error\n    at processTicksAndRejections (native:7:39)\n    at <anonymous>",
      undefined,
    ],
  ])("reads %s", (_name, stack, want) => {
    expect(callerFrom(stack)).toBe(want);
  });
});

describe("verbosity", () => {
  test.each([
    [0, ["info"]],
    [1, ["info"]],
    [2, ["info", "debug"]],
    [4, ["info", "debug", "trace"]],
  ])("-v=%p shows %p", (verbosity, shown) => {
    const { log, lines } = capture({ verbosity });
    log.info("info");
    log.debug("debug");
    log.trace("trace");
    expect(lines.map((l) => l.replace(KLOG_HEADER, ""))).toEqual(shown);
  });

  test("--vmodule raises the verbosity of the loggers its patterns match, first match wins", () => {
    const rules = parseVModule("serv*=4,node=2,*=0");
    if (!rules.ok) throw new Error(rules.error);
    const { log, lines } = capture({ verbosity: 0, vmodule: rules.rules });
    for (const tag of ["service", "node", "route"]) {
      log.withTag(tag).debug(`${tag} debug`);
      log.withTag(tag).trace(`${tag} trace`);
    }
    log.withTag("metal").withTag("node").debug("segment match");
    expect(lines.map((l) => l.replace(KLOG_HEADER, ""))).toEqual([
      "service debug",
      "service trace",
      "node debug",
      "segment match",
    ]);
  });

  test.each([
    ["", []],
    ["service=4", [{ pattern: "service", level: 4 }]],
    [
      " a=1 , b*=10 ",
      [
        { pattern: "a", level: 1 },
        { pattern: "b*", level: 10 },
      ],
    ],
  ])("parses --vmodule=%p", (text, rules) => {
    expect(parseVModule(text)).toEqual({ ok: true, rules });
  });

  test.each(["service", "=3", "service=high", "service=-1", "a=1,b"])(
    "refuses --vmodule=%p naming the flag",
    (text) => {
      const result = parseVModule(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(/^--vmodule must be .*pattern=N.*got "/);
    },
  );
});

describe("the --vmodule and --logging-format flags", () => {
  test.each<[Record<string, string>, { vmodule: VModuleRule[]; loggingFormat: "text" | "json" }]>([
    [{ vmodule: "service=4" }, { vmodule: [{ pattern: "service", level: 4 }], loggingFormat: "text" }],
    [{ "logging-format": "json" }, { vmodule: [], loggingFormat: "json" }],
  ])("%p gives the options %p", (flags, expected) => {
    const built = buildOptions(new Map<string, string>(Object.entries({ "cloud-provider": "fake", ...flags })));
    if (!built.ok) throw new Error(built.errors.join("; "));
    expect({ vmodule: built.options.vmodule, loggingFormat: built.options.loggingFormat }).toEqual(expected);
  });

  test.each<[string, string, RegExp]>([
    ["vmodule", "service=high", /^--vmodule must be .*got "service=high"/],
    ["logging-format", "yaml", /^--logging-format must be text or json, got "yaml"/],
  ])("--%s=%s is refused naming the flag", (flag, value, message) => {
    const built = buildOptions(
      new Map([
        ["cloud-provider", "fake"],
        [flag, value],
      ]),
    );
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.errors.some((e) => message.test(e))).toBe(true);
  });
});

describe("--log-text-split-stream", () => {
  const routed = (opts: Partial<LoggerOptions>) => {
    const [errors, infos]: [string[], string[]] = [[], []];
    const log = createRootLogger({
      verbosity: 2,
      format: "text",
      write: (l) => errors.push(l),
      writeInfo: (l) => infos.push(l),
      ...opts,
    });
    log.info("i");
    log.debug("d");
    log.warn("w");
    log.error("e");
    const severities = (lines: string[]) => lines.map((l) => l[0]).join("");
    return { error: severities(errors), info: severities(infos) };
  };

  test.each<[string, Partial<LoggerOptions>, { error: string; info: string }]>([
    [
      "split: info lines (any verbosity) to the info stream, the rest to the error stream",
      { splitStream: true },
      { error: "WE", info: "II" },
    ],
    ["not split: every line to the error stream (stderr), as upstream's default", {}, { error: "IIWE", info: "" }],
    [
      "JSON lines are not split: the flag is the text format's, as upstream",
      { splitStream: true, format: "json" },
      { error: "{{{{", info: "" },
    ],
  ])("%s", (_name, opts, expected) => {
    expect(routed(opts)).toEqual(expected);
  });

  test("the flag reaches the options once LoggingAlphaOptions is on", () => {
    const built = buildOptions(
      new Map([
        ["cloud-provider", "fake"],
        ["log-text-split-stream", "true"],
        ["feature-gates", "LoggingAlphaOptions=true"],
      ]),
    );
    if (!built.ok) throw new Error(built.errors.join("; "));
    expect({ split: built.options.logTextSplitStream, ignored: built.ignored }).toEqual({ split: true, ignored: [] });
  });
});

describe("quietAfterAbort", () => {
  test("demotes errors to debug once the controller is stopping, and keeps them before", () => {
    const { log: root, lines } = capture({ verbosity: 2 });
    const stop = new AbortController();
    const log = quietAfterAbort(root.withTag("c"), stop.signal);
    log.error("real failure");
    stop.abort();
    log.error("aborted call");
    log.info("stopped");
    expect(lines.map((l) => `${l[0]} ${l.replace(KLOG_HEADER, "")}`)).toEqual([
      "E real failure",
      "I aborted call (while stopping)",
      "I stopped",
    ]);
  });

  test("drops the demoted lines entirely at -v=0", () => {
    const { log: root, lines } = capture();
    const stop = new AbortController();
    const log = quietAfterAbort(root, stop.signal);
    stop.abort();
    log.error("aborted call");
    expect(lines).toEqual([]);
  });
});
