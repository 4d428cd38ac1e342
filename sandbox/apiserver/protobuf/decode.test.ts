import { describe, expect, test } from "bun:test";
import { ApiError } from "../status-errors.ts";
import { decodeProtobuf } from "./decode.ts";

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));

// Bodies kubectl 1.32.4 sent (`kubectl -v=9` prints them), byte for byte.
const KUBECTL_CREATE_SERVICE_LOADBALANCER = hex(`
  6b 38 73 00 0a 0d 0a 02 76 31 12 07 53 65 72 76 69 63 65 12 6c 0a 1f 0a 03 77 65 62 12 00 1a 00
  22 00 2a 00 32 00 38 00 42 00 5a 0a 0a 03 61 70 70 12 03 77 65 62 12 45 0a 1b 0a 07 38 30 38 30
  2d 38 30 12 03 54 43 50 18 90 3f 22 06 08 00 10 50 1a 00 28 00 12 0a 0a 03 61 70 70 12 03 77 65
  62 1a 00 22 0c 4c 6f 61 64 42 61 6c 61 6e 63 65 72 3a 00 42 00 52 00 5a 00 60 00 68 00 1a 02 0a
  00 1a 00 22 00`);
const KUBECTL_CREATE_DEPLOYMENT_REPLICAS_0 = hex(`
  6b 38 73 00 0a 15 0a 07 61 70 70 73 2f 76 31 12 0a 44 65 70 6c 6f 79 6d 65 6e 74 12 a3 01 0a 1b
  0a 01 64 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 5a 08 0a 03 61 70 70 12 01 64 12 76 08 00 12
  0a 0a 08 0a 03 61 70 70 12 01 64 1a 5e 0a 1a 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 5a
  08 0a 03 61 70 70 12 01 64 12 40 12 22 0a 05 6e 67 69 6e 78 12 05 6e 67 69 6e 78 2a 00 42 00 6a
  00 72 00 80 01 00 88 01 00 90 01 00 a2 01 00 1a 00 32 00 42 00 4a 00 52 00 58 00 60 00 68 00 82
  01 00 8a 01 00 9a 01 00 c2 01 00 22 02 0a 00 28 00 38 00 1a 0c 08 00 10 00 18 00 20 00 28 00 38
  00 1a 00 22 00`);
const KUBECTL_AUTH_CAN_I_CREATE_DEPLOYMENTS = hex(`
  6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a6563744163636573735265766965
  77124a0a100a0012001a0022002a00320038004200122c0a2a0a0764656661756c7412066372656174651a046170707322002a0b646570
  6c6f796d656e747332003a001a08080012001a0020001a002200`);
const KUBECTL_AUTH_WHOAMI = hex(`
  6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a10
  0a0012001a0022002a0032003800420012060a040a0012001a002200`);

/** A minimal protobuf writer for the rows below: fields as [number, value], nested arrays as messages. */
type Value = string | number | Uint8Array | Field[];
type Field = readonly [number, Value];
const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
};
const encode = (fields: readonly Field[]): number[] =>
  fields.flatMap(([n, v]) => {
    if (typeof v === "number") return [...varint(n * 8), ...varint(v)];
    const bytes = typeof v === "string" ? [...Buffer.from(v)] : v instanceof Uint8Array ? [...v] : encode(v);
    return [...varint(n * 8 + 2), ...varint(bytes.length), ...bytes];
  });
const envelope = (apiVersion: string, kind: string, raw: Field[], extra: Field[] = []): Uint8Array =>
  new Uint8Array([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...encode([
      [
        1,
        [
          [1, apiVersion],
          [2, kind],
        ],
      ],
      [2, new Uint8Array(encode(raw))],
      ...extra,
    ]),
  ]);

describe("decodeProtobuf", () => {
  test.each([
    {
      name: "kubectl's `create service loadbalancer web --tcp=8080:80` decodes to the JSON it would send",
      body: KUBECTL_CREATE_SERVICE_LOADBALANCER,
      want: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          ports: [{ name: "8080-80", protocol: "TCP", port: 8080, targetPort: 80 }],
          selector: { app: "web" },
          type: "LoadBalancer",
        },
        status: { loadBalancer: {} },
      },
    },
    {
      name: "kubectl's `create deployment d --image=nginx --replicas=0` keeps the explicit zero replicas",
      body: KUBECTL_CREATE_DEPLOYMENT_REPLICAS_0,
      want: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "d", labels: { app: "d" } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "d" } },
          template: {
            metadata: { labels: { app: "d" } },
            spec: { containers: [{ name: "nginx", image: "nginx", resources: {} }] },
          },
          strategy: {},
        },
        status: {},
      },
    },
    {
      name: "kubectl's `auth can-i create deployments` asks about the resource in its namespace",
      body: KUBECTL_AUTH_CAN_I_CREATE_DEPLOYMENTS,
      want: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        metadata: {},
        spec: {
          resourceAttributes: { namespace: "default", verb: "create", group: "apps", resource: "deployments" },
        },
        status: {},
      },
    },
    {
      name: "kubectl's `auth whoami` is an empty SelfSubjectReview",
      body: KUBECTL_AUTH_WHOAMI,
      want: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "SelfSubjectReview",
        metadata: {},
        status: { userInfo: {} },
      },
    },
    {
      name: "secret data becomes base64 and string data stays text",
      body: envelope("v1", "Secret", [
        [1, [[1, "s"]]],
        [
          2,
          [
            [1, "k"],
            [2, new Uint8Array([0, 255])],
          ],
        ],
        [
          4,
          [
            [1, "t"],
            [2, "plain"],
          ],
        ],
        [3, "Opaque"],
      ]),
      want: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s" },
        data: { k: "AP8=" },
        stringData: { t: "plain" },
        type: "Opaque",
      },
    },
    {
      name: "a string target port, a set creation time and a negative number come through",
      body: envelope("v1", "Service", [
        [
          1,
          [
            [1, "svc"],
            [8, [[1, 1767225600]]],
            [10, -1],
          ],
        ],
        [
          2,
          [
            [
              1,
              [
                [3, 80],
                [
                  4,
                  [
                    [1, 1],
                    [3, "http"],
                  ],
                ],
              ],
            ],
          ],
        ],
      ]),
      want: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "svc", creationTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: -1 },
        spec: { ports: [{ port: 80, targetPort: "http" }] },
      },
    },
    {
      name: "a DeleteOptions body gives its preconditions and dry run",
      body: envelope("v1", "DeleteOptions", [
        [2, [[1, "u-1"]]],
        [5, "All"],
      ]),
      want: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: "u-1" }, dryRun: ["All"] },
    },
  ])("$name", ({ body, want }) => {
    expect(decodeProtobuf(body)).toEqual(want);
  });

  const failure = (body: Uint8Array): ApiError => {
    try {
      decodeProtobuf(body);
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    throw new Error("decoded without an error");
  };

  test.each([
    {
      name: "a kind without a field table is refused naming the kind and the way out",
      body: envelope("v1", "Pod", [[1, [[1, "p"]]]]),
      code: 415,
      message: /cannot decode objects of kind Pod \(apiVersion v1\) from protobuf; send it as JSON/,
    },
    {
      name: "a field kubectl's generators never set is refused naming its path",
      body: envelope("apps/v1", "Deployment", [[2, [[3, [[2, [[14, [[1, 5]]]]]]]]]]),
      code: 415,
      message: /Deployment: the field spec\.template\.spec\.securityContext/,
    },
    {
      name: "an unknown field number is refused naming the message",
      body: envelope("v1", "ConfigMap", [[99, "x"]]),
      code: 415,
      message: /ConfigMap: field 99 of ConfigMap/,
    },
    {
      name: "a compressed body is refused",
      body: envelope("v1", "ConfigMap", [], [[3, "gzip"]]),
      code: 415,
      message: /content encoding "gzip"/,
    },
    {
      name: "a body without the magic prefix is a bad request",
      body: new Uint8Array([0x0a, 0x00]),
      code: 400,
      message: /does not start with the Kubernetes magic/,
    },
    {
      name: "a truncated body is a bad request",
      body: KUBECTL_CREATE_SERVICE_LOADBALANCER.subarray(0, 40),
      code: 400,
      message: /malformed: a length-delimited field runs past its end/,
    },
  ])("$name", ({ body, code, message }) => {
    const err = failure(body);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });
});
