import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { configProblems } from "../config/testing.ts";
import { validate } from "../config/validate.ts";
import { loadBalancerClassesOf, loadBalancerClassFields, servesNothing } from "./load-balancer-classes.ts";

const schema = v.object(loadBalancerClassFields);
const parse = (value: unknown) => validate(schema, value, "test");

describe("the loadBalancerClass fields of a cloud-config", () => {
  test.each([
    ["a prefixed class", { classes: ["example.com/internal"] }],
    ["an unprefixed class and the default", { classes: ["internal-vip"], classless: true }],
    ["the default only, said out loud", { classless: true }],
    ["nothing: upstream's rule", {}],
  ])("accepts %s", (_name, value) => {
    expect(parse(value)).toEqual(value);
  });

  test("names every bad class, a repeated one and a non-boolean classless", () => {
    expect(configProblems(() => parse({ classes: ["Example.com/x", "a/-b", "ok", 7], classless: "no" }))).toEqual({
      "classes[0]":
        "must be a valid spec.loadBalancerClass such as example.com/internal: prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "classes[1]":
        "must be a valid spec.loadBalancerClass such as example.com/internal: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "classes[3]": "must be a class name such as example.com/internal",
      classless: "must be true or false (serve Services that name no loadBalancerClass)",
    });
    expect(configProblems(() => parse({ classes: ["a", "a"] }))).toEqual({ classes: "must not name a class twice" });
    expect(configProblems(() => parse({ classes: [`x/${"n".repeat(64)}`, "/x"] }))).toEqual({
      "classes[0]":
        "must be a valid spec.loadBalancerClass such as example.com/internal: name part must be no more than 63 characters",
      "classes[1]":
        "must be a valid spec.loadBalancerClass such as example.com/internal: prefix part must be non-empty",
    });
  });

  test.each([
    ["nothing", {}, undefined],
    ["classes only: the default too", { classes: ["a"] }, { names: ["a"], classless: true }],
    ["classes, not the default", { classes: ["a"], classless: false }, { names: ["a"], classless: false }],
    ["the default only", { classless: true }, { names: [], classless: true }],
  ])("reads %s", (_name, fields, want) => {
    expect(loadBalancerClassesOf(fields)).toEqual(want);
  });

  test("a manager that would serve nothing is named", () => {
    expect(servesNothing({ classless: false })).toContain("no Service would be served");
    expect(servesNothing({ classless: false, classes: [] })).toContain("no Service would be served");
    expect(servesNothing({ classless: false, classes: ["a"] })).toBeUndefined();
    expect(servesNothing({})).toBeUndefined();
  });
});
