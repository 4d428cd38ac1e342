import { expect, test } from "bun:test";
import { ConfigError } from "../../../config/errors.ts";
import { RetryError, wrapError } from "../../errors.ts";
import {
  CloudApiError,
  CloudApiSchemaError,
  type CloudFailureKind,
  CloudUnreachableError,
  cloudFailureKind,
} from "./errors.ts";

const api = (status: number, code = "error") => new CloudApiError("acme/api.list", status, code, "detail", 4);
const unreachable = new CloudUnreachableError("acme/api.list: GET http://127.0.0.1:1/v1/x: connection refused", {
  cause: new TypeError("fetch failed"),
});

const cases: [string, unknown, CloudFailureKind][] = [
  ["a 503 is the cloud being unavailable", api(503, "unavailable"), "unavailable"],
  ["a 500 is the cloud being unavailable", api(500, "server_error"), "unavailable"],
  ["a 504 is the cloud being unavailable", api(504, "timeout"), "unavailable"],
  ["a 429 is the cloud being unavailable for now", api(429, "rate_limit_exceeded"), "unavailable"],
  ["a 423 (locked) passes", api(423, "locked"), "unavailable"],
  ["a 408 is a timeout", api(408), "unavailable"],
  ["no answer at all is the cloud being unavailable", unreachable, "unavailable"],
  ["a RetryError asks for a retry", new RetryError("acme: still provisioning", 5_000), "unavailable"],
  ["a 401 is a credentials problem", api(401, "unauthorized"), "credentials"],
  ["a 403 is a credentials problem", api(403, "forbidden"), "credentials"],
  ["a 404 is a configuration problem (a named resource that is not there)", api(404, "not_found"), "configuration"],
  ["a 400 is a configuration problem", api(400, "invalid_input"), "configuration"],
  [
    "an invalid configuration is one",
    new ConfigError("cloud.yaml", [{ path: "url", message: "bad" }]),
    "configuration",
  ],
  [
    "an answer of the wrong shape is a configuration problem (the address leads elsewhere)",
    new CloudApiSchemaError("acme/api.list", "answer", [{ path: "", message: "not JSON" }]),
    "configuration",
  ],
  [
    "an error of no known kind is taken as a configuration problem",
    new Error("network k8s not found"),
    "configuration",
  ],
  ["a non-Error is taken as a configuration problem", "boom", "configuration"],
  ["a wrapped 503 is still unavailable", wrapError("hcloud: the API answered with an error", api(503)), "unavailable"],
  ["a wrapped 401 is still credentials", wrapError("hcloud: the API refused HCLOUD_TOKEN", api(401)), "credentials"],
  ["a wrapped refused connection is still unavailable", wrapError("acme.initialize", unreachable), "unavailable"],
  [
    "a 429 that outlasted the retries (RetryError over a CloudApiError) is unavailable",
    new RetryError("acme/api.list: the cloud is rate limiting", 1_000, { cause: api(429) }),
    "unavailable",
  ],
];

for (const [name, err, kind] of cases) {
  test(`cloudFailureKind: ${name}`, () => {
    expect(cloudFailureKind(err)).toBe(kind);
  });
}
