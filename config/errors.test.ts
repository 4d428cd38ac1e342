import { describe, expect, test } from "bun:test";
import { ConfigError } from "./errors.ts";

describe("ConfigError", () => {
  test.each([
    [
      "lists every configuration problem in one message",
      [
        { path: "url", message: "must be a URL" },
        { path: "pools[1].cidr", message: "not a CIDR" },
      ],
      "--cloud-config=/etc/x.yaml is invalid (2 problems):\n  - url: must be a URL\n  - pools[1].cidr: not a CIDR",
    ],
    [
      "says problem in the singular and leaves out an empty path",
      [{ path: "", message: "not valid YAML or JSON" }],
      "--cloud-config=/etc/x.yaml is invalid (1 problem):\n  - not valid YAML or JSON",
    ],
  ])("%s", (_name, issues, message) => {
    const err = new ConfigError("--cloud-config=/etc/x.yaml", issues);
    expect(err.message).toBe(message);
    expect(err.issues).toEqual(issues);
  });
});
