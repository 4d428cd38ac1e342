import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { configProblems } from "../config/testing.ts";
import { parseCloudConfig } from "./config.ts";

const Schema = v.object({ url: v.string(), token: v.exactOptional(v.string()), pool: v.exactOptional(v.object({})) });

describe("parseCloudConfig", () => {
  test.each([
    [
      "YAML",
      "url: http://a\ntoken: one\ntoken: two\n",
      { token: "is given twice in one mapping, at lines 2 and 3; YAML keeps only the last, so remove one" },
    ],
    [
      "JSON",
      '{"url": "http://a",\n"url": "http://b"}',
      { url: "is given twice in one mapping, at lines 1 and 2; YAML keeps only the last, so remove one" },
    ],
  ])("rejects a key given twice in %s, naming it and its lines", (_name, text, want) => {
    expect(configProblems(() => parseCloudConfig(Schema, text, "cloud.yaml"))).toEqual(want);
  });

  test("reads a config whose keys repeat only in different mappings", () => {
    expect(parseCloudConfig(Schema, "url: http://a\npool: {}\n", "cloud.yaml")).toEqual({ url: "http://a", pool: {} });
  });
});
