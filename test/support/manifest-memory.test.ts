import { describe, expect, test } from "bun:test";
import { manifestMemory, memoryResources, quantityBytes } from "./manifest-memory.ts";

describe("quantityBytes", () => {
  const cases: Array<[string, unknown, number]> = [
    ["binary mebibytes", "256Mi", 268_435_456],
    ["binary gibibytes", "1Gi", 1_073_741_824],
    ["binary kibibytes", "512Ki", 524_288],
    ["decimal megabytes", "300M", 300_000_000],
    ["plain bytes", "134217728", 134_217_728],
  ];
  for (const [name, q, want] of cases) test(`reads ${name}`, () => expect(quantityBytes(q)).toBe(want));

  const refused: Array<[string, unknown]> = [
    ["a fraction", "0.5Gi"],
    ["an unknown suffix", "256MB"],
    ["a number, not a string", 256],
    ["nothing", undefined],
  ];
  for (const [name, q] of refused) {
    test(`refuses ${name}, naming the value`, () => expect(() => quantityBytes(q)).toThrow(/not a memory quantity/));
  }
});

describe("memoryResources", () => {
  test("reads the request and the limit", () => {
    expect(memoryResources({ requests: { memory: "256Mi" }, limits: { memory: "512Mi" } }, "here")).toEqual({
      request: "256Mi",
      limit: "512Mi",
      requestBytes: 268_435_456,
      limitBytes: 536_870_912,
    });
  });
  test("names where a figure is missing", () => {
    expect(() => memoryResources({ requests: { memory: "256Mi" } }, "values.yaml (resources)")).toThrow(
      "values.yaml (resources): resources.requests.memory and resources.limits.memory must both be set",
    );
  });
});

test("the shipped Deployment, DaemonSet and chart state the same memory request and limit", async () => {
  const { deployment, daemonset, chart } = await manifestMemory();
  expect(daemonset).toEqual(deployment);
  expect(chart).toEqual(deployment);
  expect(deployment.limitBytes).toBeGreaterThan(deployment.requestBytes);
});
