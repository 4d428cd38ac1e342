import { expect, test } from "bun:test";
import { humanAge } from "./table.ts";
import { normalizeTime } from "./times.ts";

test.each([
  ["2026-05-01T10:00:00Z", "time", "2026-05-01T10:00:00Z"],
  ["2026-05-01T10:00:00.987Z", "time", "2026-05-01T10:00:00Z"],
  ["2026-05-01T12:30:00+02:30", "time", "2026-05-01T10:00:00Z"],
  ["2026-05-01T10:00:00.123456Z", "micro", "2026-05-01T10:00:00.123456Z"],
  ["2026-05-01T00:30:00.000001+01:00", "micro", "2026-04-30T23:30:00.000001Z"],
  ["2026-05-01T10:00:00.123Z", "micro", undefined],
  ["2026-05-01T10:00:00Z", "micro", undefined],
  ["2026-05-01T10:00:00.1234567Z", "micro", undefined],
  ["2026-02-30T10:00:00Z", "time", undefined],
  ["2026-05-01 10:00:00Z", "time", undefined],
  ["yesterday", "time", undefined],
] as const)("normalizeTime(%p, %p) ⇒ %p", (input, kind, want) => {
  expect(normalizeTime(input, kind)).toBe(want);
});

test.each([
  [-5_000, "<invalid>"],
  [-500, "0s"],
  [59_000, "59s"],
  [119_000, "119s"],
  [120_000, "2m"],
  [185_000, "3m5s"],
  [11 * 60_000, "11m"],
  [3 * 3600_000, "3h"],
  [3 * 3600_000 + 20 * 60_000, "3h20m"],
  [30 * 3600_000, "30h"],
  [3 * 86_400_000 + 5 * 3600_000, "3d5h"],
  [40 * 86_400_000, "40d"],
  [3 * 365 * 86_400_000 + 10 * 86_400_000, "3y10d"],
  [9 * 365 * 86_400_000, "9y"],
])("humanAge(%p) ⇒ %p", (ms, want) => {
  expect(humanAge(ms)).toBe(want);
});
