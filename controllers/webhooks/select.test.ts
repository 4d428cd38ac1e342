import { describe, expect, test } from "bun:test";
import { type AdmissionWebhook, allow } from "../../providers/admission.ts";
import { selectWebhooks } from "./select.ts";

const webhook: AdmissionWebhook = { type: "validating", description: "test", admit: () => allow() };
const declared = { "service-annotations": webhook, "node-labels": webhook };

describe("--webhooks", () => {
  test.each<[string, string[], string[]]>([
    ["enables none by default", [], []],
    ["enables every webhook with *", ["*"], ["node-labels", "service-annotations"]],
    ["enables one by name", ["node-labels"], ["node-labels"]],
    ["disables one after *", ["*", "-node-labels"], ["service-annotations"]],
    ["lets the first entry naming a webhook decide", ["-node-labels", "node-labels", "*"], ["service-annotations"]],
  ])("%s", (_, entries, enabled) => {
    const selection = selectWebhooks(entries, declared);
    expect([...selection.enabled.keys()]).toEqual(enabled);
    expect(selection.errors).toEqual([]);
  });

  test("refuses a name the provider does not declare, naming the ones it does", () => {
    expect(selectWebhooks(["*", "-nope", "nope"], declared).errors).toEqual([
      '"nope" is not in the list of known webhooks (this provider\'s: node-labels, service-annotations)',
    ]);
  });

  test("says the provider has none when it declares none", () => {
    expect(selectWebhooks(["foo"], undefined).errors).toEqual([
      '"foo" is not in the list of known webhooks (this provider\'s: none)',
    ]);
  });
});
