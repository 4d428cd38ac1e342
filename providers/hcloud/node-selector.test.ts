import { describe, expect, test } from "bun:test";
import { parseNodeSelector } from "./node-selector.ts";

const problemsOf = (text: string): readonly string[] => {
  const read = parseNodeSelector(text);
  return "problems" in read ? read.problems : [];
};

// Upstream's texts (apimachinery IsQualifiedName, IsValidLabelValue) behind the selector's own words.
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("the node-selector annotation's refusals", () => {
  test.each([
    ["a key whose name ends in '-'", "role-=lb", [`the key "role-" is not a label key: ${NAME_PART}`]],
    ["a key with an empty prefix", "/role=lb", ['the key "/role" is not a label key: prefix part must be non-empty']],
    [
      "a key with two slashes",
      "a/b/c",
      [
        `the key "a/b/c" is not a label key: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
    ],
    ["a value with a slash", "role=a/b", [`"a/b" in "role=a/b" is not a label value: ${VALUE}`]],
    [
      "a value of 64 characters",
      `role=${"v".repeat(64)}`,
      [`"${"v".repeat(64)}" in "role=${"v".repeat(64)}" is not a label value: must be no more than 63 characters`],
    ],
    ["a set value ending in '.'", "zone in (fsn1,x.)", [`"x." in "zone in (fsn1,x.)" is not a label value: ${VALUE}`]],
    ["a non-integer bound", "gen>two", ['"two" in "gen>two" is not an integer']],
    [
      "two bad requirements: both named",
      "role-=lb,zone=a/b",
      [`the key "role-" is not a label key: ${NAME_PART}`, `"a/b" in "zone=a/b" is not a label value: ${VALUE}`],
    ],
  ])("names %s", (_name, text, problems) => {
    expect(problemsOf(text)).toEqual(problems);
  });

  test.each([["role=lb"], ["node-role.kubernetes.io/lb"], ["zone in (fsn1,nbg1),!spot"], ["gen>2"], ["role="]])(
    "accepts %j",
    (text) => {
      expect(parseNodeSelector(text)).toHaveProperty("matches");
    },
  );
});
