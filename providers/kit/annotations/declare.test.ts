import { describe, expect, test } from "bun:test";
import type { Service } from "../../../kube/objects.ts";
import { annotation, defineAnnotations, describeProblem, InvalidAnnotationsError, readAnnotation } from "./declare.ts";
import { perPort } from "./port-readers.ts";
import { bool, duration, int, oneOf } from "./readers.ts";

const Example = defineAnnotations({
  algorithm: annotation("example.com/algorithm", oneOf(["round-robin", "least-connections"]), {
    description: "How connections are spread.",
    example: "least-connections",
    default: "round-robin",
  }),
  retries: annotation("example.com/retries", int({ min: 1, max: 10 }), {
    description: "Failed checks before a node is out.",
    example: "3",
    default: 3,
  }),
  interval: annotation("example.com/interval", duration({ min: 1000 }), {
    description: "Between checks.",
    example: "15s",
  }),
  proxy: annotation("example.com/proxy", bool(), { description: "PROXY protocol.", example: "true", default: false }),
  protocols: annotation("example.com/protocols", perPort(oneOf(["tcp", "http"])), {
    description: "Per port.",
    example: "80=http",
  }),
});

const svc = (annotations: Record<string, string> = {}): Service => ({
  metadata: { name: "web", namespace: "default", annotations },
  spec: { ports: [{ name: "http", port: 80 }] },
});

describe("reading one annotation", () => {
  test.each([
    ["not set", {}, { state: "unset" }],
    ["a value", { "example.com/retries": "5" }, { state: "valid", value: 5, text: "5" }],
    ["a value with space around it", { "example.com/retries": " 5\n" }, { state: "valid", value: 5, text: " 5\n" }],
    [
      "an invalid value",
      { "example.com/retries": "0" },
      {
        state: "invalid",
        text: "0",
        problem: { key: "example.com/retries", value: "0", accepts: "an integer from 1 to 10" },
      },
    ],
    [
      "an empty value (set, so not 'not set')",
      { "example.com/retries": "" },
      {
        state: "invalid",
        text: "",
        problem: { key: "example.com/retries", value: "", accepts: "an integer from 1 to 10" },
      },
    ],
  ])("tells %s", (_, annotations, want) => {
    expect(readAnnotation(svc(annotations), Example.declared.retries)).toEqual(want as never);
  });
});

describe("reading a Service's annotations", () => {
  test("fills defaults for what is not set", () => {
    expect(Example.parse(svc())).toEqual({
      algorithm: "round-robin",
      retries: 3,
      interval: undefined,
      proxy: false,
      protocols: undefined,
    });
  });

  test("reads what is set", () => {
    const values = Example.parse(
      svc({ "example.com/interval": "1m", "example.com/proxy": "true", "example.com/protocols": "http=http" }),
    );
    expect(values.interval).toBe(60_000);
    expect(values.proxy).toBe(true);
    expect(values.protocols).toEqual(new Map([[80, "http"]]));
  });

  test("collects every problem, in declaration order, into one error", () => {
    const bad = svc({
      "example.com/proxy": "yes",
      "example.com/algorithm": "fastest",
      "example.com/protocols": "8080=http",
      "example.com/retries": "4",
    });
    expect(Example.read(bad).problems.map((p) => p.key)).toEqual([
      "example.com/algorithm",
      "example.com/proxy",
      "example.com/protocols",
    ]);
    let err: unknown;
    try {
      Example.parse(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidAnnotationsError);
    expect((err as Error).message).toBe(
      [
        '3 invalid annotations: example.com/algorithm="fastest": expected one of round-robin, least-connections',
        'example.com/proxy="yes": expected true or false',
        'example.com/protocols="8080=http": "8080" is not a port of the Service; its ports are 80 (http); expected comma-separated port=value pairs (port by number or name), each value one of tcp, http',
      ].join(" | "),
    );
  });

  test("an invalid annotation reads as its default beside the problem", () => {
    expect(Example.read(svc({ "example.com/retries": "x" })).values.retries).toBe(3);
  });

  test("cuts a pasted essay in messages, and escapes what would break the line", () => {
    const long = "x".repeat(500);
    expect(describeProblem({ key: "k", value: long, accepts: "y" })).toBe(
      `k="${"x".repeat(120)}"… (500 characters): expected y`,
    );
    expect(describeProblem({ key: "k", value: 'a"\nb', accepts: "y" })).toBe('k="a\\"\\nb": expected y');
  });

  test("refuses a key declared twice", () => {
    const twice = () =>
      defineAnnotations({
        a: annotation("example.com/a", bool(), { description: "", example: "true" }),
        b: annotation("example.com/a", bool(), { description: "", example: "true" }),
      });
    expect(twice).toThrow("annotation example.com/a is declared twice");
  });
});
