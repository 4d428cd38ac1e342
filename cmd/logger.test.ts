import { describe, expect, test } from "bun:test";
import { createRootLogger, type LoggerOptions, parseVModule, quietAfterAbort, type VModuleRule } from "./logger.ts";
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
