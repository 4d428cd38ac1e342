import { describe, expect, test } from "bun:test";
import { dns1123Label, dns1123Subdomain, labelValue, problemsText, qualifiedName, regexError } from "./kube-names.ts";

// Upstream's texts written out in full, as a real API server prints them (the two spaces after each example's comma
// are upstream's), so that a change to the helpers that build them cannot pass unnoticed.
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const TOO_MANY_SLASHES =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

describe("qualifiedName (IsQualifiedName)", () => {
  test.each([
    ["a plain name", "app"],
    ["upper case, '_' and '.' inside", "My_app.v2"],
    ["a single character", "a"],
    ["a DNS-subdomain prefix", "node-role.kubernetes.io/control-plane"],
    ["63 characters of name behind a prefix", `example.com/${"n".repeat(63)}`],
    ["253 characters of prefix", `${"p".repeat(63)}.${"p".repeat(63)}.${"p".repeat(63)}.${"p".repeat(61)}/x`],
  ])("accepts %s", (_name, value) => {
    expect(qualifiedName(value)).toEqual([]);
  });

  test.each([
    ["an empty name: both empty and not matching", "", ["name part must be non-empty", NAME_PART]],
    ["a name that starts with '-'", "-app", [NAME_PART]],
    ["a name with a space", "Bad Key", [NAME_PART]],
    ["64 characters of name", "n".repeat(64), ["name part must be no more than 63 characters"]],
    ["an empty prefix", "/app", ["prefix part must be non-empty"]],
    ["an upper-case prefix", "Example.com/x", [`prefix part ${SUBDOMAIN}`]],
    [
      "a too long prefix and an empty name",
      `${"p".repeat(254)}/`,
      ["prefix part must be no more than 253 characters", "name part must be non-empty", NAME_PART],
    ],
    ["a prefix and a bad name", "a/-b", [NAME_PART]],
    ["two slashes: one problem only", "a/b/c", [TOO_MANY_SLASHES]],
    [
      "a name counted in UTF-8 bytes, as Go counts",
      "é".repeat(32),
      ["name part must be no more than 63 characters", NAME_PART],
    ],
  ])("refuses %s", (_name, value, problems) => {
    expect(qualifiedName(value)).toEqual(problems);
  });
});

describe("dns1123Subdomain (IsDNS1123Subdomain)", () => {
  test.each([
    ["a lower-case domain", "example.com", []],
    ["a single label", "node-1", []],
    ["upper case", "Example.com", [SUBDOMAIN]],
    ["an empty label", "a..b", [SUBDOMAIN]],
    ["a trailing '-'", "a-", [SUBDOMAIN]],
    ["254 characters", "a".repeat(254), ["must be no more than 253 characters"]],
  ])("%s: %j", (_name, value, problems) => {
    expect(dns1123Subdomain(value)).toEqual(problems);
  });
});

describe("dns1123Label (IsDNS1123Label)", () => {
  test.each([
    ["a namespace name", "kube-system", []],
    ["digits first", "123-abc", []],
    ["a dot", "a.b", [LABEL]],
    ["empty", "", [LABEL]],
    ["64 characters", "a".repeat(64), ["must be no more than 63 characters"]],
  ])("%s: %j", (_name, value, problems) => {
    expect(dns1123Label(value)).toEqual(problems);
  });
});

describe("labelValue (IsValidLabelValue)", () => {
  test.each([
    ["empty", "", []],
    ["a name", "My_value.1", []],
    ["63 characters", "v".repeat(63), []],
    ["a slash", "a/b", [VALUE]],
    ["a trailing '.'", "v.", [VALUE]],
    ["64 characters", "v".repeat(64), ["must be no more than 63 characters"]],
    ["64 characters ending badly", `${"v".repeat(63)}-`, ["must be no more than 63 characters", VALUE]],
  ])("%s: %j", (_name, value, problems) => {
    expect(labelValue(value)).toEqual(problems);
  });
});

describe("the message helpers", () => {
  test.each([
    ["no examples", [], "x (regex used for validation is 'r')"],
    ["one example", ["a"], "x (e.g. 'a', regex used for validation is 'r')"],
    [
      "two examples, joined as upstream joins them",
      ["a", "b"],
      "x (e.g. 'a',  or 'b', regex used for validation is 'r')",
    ],
  ])("regexError with %s", (_name, examples, want) => {
    expect(regexError("x", "r", ...examples)).toBe(want);
  });

  test("problemsText joins one value's problems as upstream's field errors do", () => {
    expect(problemsText(["one", "two"])).toBe("one; two");
    expect(problemsText([])).toBe("");
  });
});
