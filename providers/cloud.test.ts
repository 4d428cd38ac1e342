import { describe, expect, test } from "bun:test";
import { defaultLoadBalancerName } from "./cloud.ts";
import {
  findInCauseChain,
  ImplementedElsewhereError,
  InstanceNotFoundError,
  isError,
  NotImplementedError,
  RetryError,
  wrapError,
} from "./errors.ts";

describe("defaultLoadBalancerName", () => {
  test.each([
    [
      "removes dashes and cuts to 32 characters",
      "12345678-90ab-cdef-1234-567890abcdef",
      "a1234567890abcdef1234567890abcde",
    ],
    ["keeps a short UID whole", "abc-def", "aabcdef"],
    ["gives 'a' for an empty UID", "", "a"],
    ["gives 'a' for a missing UID", undefined, "a"],
    ["keeps exactly 32 characters", "1234567890123456789012345678901", "a1234567890123456789012345678901"],
  ])("%s", (_name, uid, want) => {
    expect(defaultLoadBalancerName({ metadata: uid === undefined ? {} : { uid } })).toBe(want);
  });
});

describe("provider errors", () => {
  test.each([
    ["instance not found", new InstanceNotFoundError()],
    ["unimplemented", new NotImplementedError()],
    ["implemented by alternate to cloud provider", new ImplementedElsewhereError()],
    ["instance not found: server 7", new InstanceNotFoundError("server 7")],
  ])("keeps upstream's base message %p", (message, err) => {
    expect(err.message).toBe(message);
  });

  test("tells identity from wrapping, as upstream does", () => {
    const inner = new InstanceNotFoundError();
    const wrapped = wrapError("acme/instances.get", inner);
    expect(isError(inner, InstanceNotFoundError)).toBe(true);
    expect(isError(wrapped, InstanceNotFoundError)).toBe(false);
    expect(findInCauseChain(wrapped, InstanceNotFoundError)).toBe(inner);
    expect(wrapped.message).toBe("acme/instances.get: instance not found");
  });

  test("finds a RetryError through several wraps and keeps its delay", () => {
    const retry = new RetryError("still provisioning", 7000);
    const err = wrapError("failed to ensure load balancer", wrapError("acme/lb.ensure", retry));
    expect(findInCauseChain(err, RetryError)?.retryAfterMs).toBe(7000);
    expect(findInCauseChain(new Error("x"), RetryError)).toBeUndefined();
  });
});
