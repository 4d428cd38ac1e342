import { describe, expect, test } from "bun:test";
import { duplicateKeys, yamlTags } from "./yaml-keys.ts";

const found = (text: string) => duplicateKeys(text).map((d) => `${d.key}@${d.line}(first ${d.firstLine})`);

describe("duplicateKeys", () => {
  test.each([
    ["a top-level key", "token: a\nurl: x\ntoken: b\n", ["token@3(first 1)"]],
    ["a nested key", "lb:\n  pool: a\n  other: 1\n  pool: b\n", ["pool@4(first 2)"]],
    [
      "quoted and plain spellings of one key",
      "'token': a\n\"token\": b\ntoken: c\n",
      ["token@2(first 1)", "token@3(first 1)"],
    ],
    ["a key inside one sequence item", "pools:\n- name: a\n  cidr: x\n  name: b\n", ["name@4(first 2)"]],
    ["a key inside an indented sequence item", "pools:\n  - name: a\n    name: b\n", ["name@3(first 2)"]],
    ["a key of a top-level sequence item", "- a: 1\n  a: 2\n", ["a@2(first 1)"]],
    ["a key in JSON", '{"token": "a",\n "url": "x",\n "token": "b"}', ["token@3(first 1)"]],
    ["a key in compact JSON", '{"a":1,"b":{"c":1,"c":2},"a":3}', ["c@1(first 1)", "a@1(first 1)"]],
    ["a key in a flow mapping value", "lb: {pool: a, pool: b}\n", ["pool@1(first 1)"]],
    ["a key after a comment and an anchor", "# c\na: &x 1\nb: 2\na: 3 # again\n", ["a@4(first 2)"]],
    ["a key of the second document", "a: 1\n---\na: 1\na: 2\n", ["a@4(first 3)"]],
    ["a key with CRLF line ends", "a: 1\r\nb: 2\r\na: 3\r\n", ["a@3(first 1)"]],
  ])("finds %s", (_name, text, want) => {
    expect(found(text)).toEqual(want);
  });

  test.each([
    ["equal keys in different sequence items", "pools:\n- name: a\n  cidr: x\n- name: b\n  cidr: y\n"],
    ["equal keys at different depths", "a:\n  b:\n    c: 1\n  c: 2\nc: 3\n"],
    ["equal keys in sibling mappings", "x:\n  k: 1\ny:\n  k: 2\n"],
    ["key-like text in a block scalar", "script: |\n  a: 1\n  a: 2\nb: 1\n"],
    ["key-like text in a folded scalar of a sequence", "args:\n- >\n  a: 1\n  a: 2\n"],
    ["key-like text in quoted values", "a: 'x: 1'\nb: \"a: 2\"\n"],
    ["a multi-line quoted value", 'a: "one\n  a: two"\nb: 1\n'],
    ["URLs and colons in values", "url: http://h:80/a\nb: {u: http://h:81}\nc: 1\n"],
    ["single-pair mappings in a flow sequence", "a: [k: 1, k: 2]\n"],
    ["merge keys", "base: &b {x: 1}\na:\n  <<: *b\n  <<: *b\n"],
    ["two documents with the same keys", "a: 1\n---\na: 1\n"],
    ["comments", "a: 1 # a: 2\n# a: 3\n"],
  ])("reports nothing for %s", (_name, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe("yamlTags", () => {
  const tags = (text: string) => yamlTags(text).map((t) => `${t.key} ${t.tag}@${t.line}`);
  test.each([
    ["a block value", "url: x\ntoken: !!binary aGVsbG8=\n", ["token !!binary@2"]],
    [
      "a nested value, named by its keys",
      "users:\n- name: u\n  user:\n    token: !!binary aGVsbG8=\n",
      ["users.user.token !!binary@4"],
    ],
    ["a sequence item", "args:\n- !!binary aGVsbG8=\n", ["args !!binary@2"]],
    ["a flow mapping's value", "user: {token: !!binary aGVsbG8=}\n", ["user.token !!binary@1"]],
    [
      "a local and a verbatim tag",
      "a: !secret x\nb: !<tag:yaml.org,2002:binary> aGVsbG8=\n",
      ["a !secret@1", "b !<tag:yaml.org,2002:binary>@2"],
    ],
    ["!!str, listed for the reader to allow", "token: !!str 123\n", ["token !!str@1"]],
    ["a tag after an anchor", "token: &t !!binary aGVsbG8=\n", ["token !!binary@1"]],
    [
      "none in quotes, comments, plain text or block scalars",
      "a: '!!binary x'\nb: \"!x\"\n# c: !!binary x\nd: x!y\ne: |\n  !!binary x\n",
      [],
    ],
  ])("%s", (_, text, want) => {
    expect(tags(text)).toEqual(want);
  });
});
