import { describe, expect, test } from "bun:test";
import { createRootLogger, quietAfterAbort } from "./logger.ts";

describe("loggers", () => {
  test("writes klog-like text lines with the tag, and JSON when asked", () => {
    const lines: string[] = [];
    createRootLogger({ verbosity: 0, format: "text", write: (l) => lines.push(l) })
      .withTag("svc")
      .warn("careful");
    createRootLogger({ verbosity: 0, format: "json", write: (l) => lines.push(l) })
      .withTag("svc")
      .error("broken");
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z WARN {2}\[svc\] careful$/);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ level: "error", logger: "svc", msg: "broken" });
  });

  test.each([
    [0, ["INFO"]],
    [2, ["INFO", "DEBUG"]],
  ])("-v=%p shows %p", (verbosity, levels) => {
    const lines: string[] = [];
    const log = createRootLogger({ verbosity, format: "text", write: (l) => lines.push(l) });
    log.info("i");
    log.debug("d");
    expect(lines.map((l) => l.split(" ")[1])).toEqual(levels);
  });

  test("demotes errors to debug once the controller is stopping, and keeps them before", () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const log = quietAfterAbort(
      createRootLogger({ verbosity: 2, format: "text", write: (l) => lines.push(l) }).withTag("c"),
      stop.signal,
    );
    log.error("real failure");
    stop.abort();
    log.error("aborted call");
    log.info("stopped");
    expect(lines.map((l) => l.slice(25))).toEqual([
      "ERROR [c] real failure",
      "DEBUG [c] aborted call (while stopping)",
      "INFO  [c] stopped",
    ]);
  });

  test("drops the demoted lines entirely at -v=0", () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const log = quietAfterAbort(
      createRootLogger({ verbosity: 0, format: "text", write: (l) => lines.push(l) }),
      stop.signal,
    );
    stop.abort();
    log.error("aborted call");
    expect(lines).toEqual([]);
  });
});
