import { describe, expect, test } from "bun:test";
import { readSecretFile } from "./secret-file.ts";

const files: Record<string, string> = { "/run/token": " s3cret\n", "/run/blank": " \n", "/run/ca.pem": "PEM\n" };
const readFile = async (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error("no such file"), { code: "ENOENT" });
  return text;
};

describe("readSecretFile", () => {
  test.each([
    ["a secret, trimmed", "/run/token", true, { ok: true, value: "s3cret" }],
    ["a file kept as written", "/run/ca.pem", false, { ok: true, value: "PEM\n" }],
    ["a missing file", "/run/none", true, { ok: false, message: 'cannot read "/run/none": ENOENT' }],
    ["a blank file", "/run/blank", true, { ok: false, message: 'names "/run/blank", which is empty' }],
  ])("%s", async (_, path, trim, want) => {
    expect(await readSecretFile(path, { readFile, trim })).toMatchObject(want);
  });
});
