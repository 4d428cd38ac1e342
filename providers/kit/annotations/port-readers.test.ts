import { describe, expect, test } from "bun:test";
import type { Service } from "../../../kube/objects.ts";
import { perPort, portList } from "./port-readers.ts";
import { bool, oneOf } from "./readers.ts";

const svc: Service = {
  metadata: { name: "web" },
  spec: {
    ports: [
      { name: "http", port: 80 },
      { name: "https", port: 443 },
      { name: "dns", port: 53, protocol: "UDP" },
      { name: "dns-tcp", port: 53, protocol: "TCP" },
    ],
  },
};

const protocols = perPort(oneOf(["tcp", "http", "https"]));
const entries = (t: string) => {
  const parsed = protocols.parse(t, svc);
  return parsed.ok ? [...parsed.value] : parsed.reason;
};

describe("per-port values", () => {
  test.each([
    [
      "by number",
      "80=http,443=https",
      [
        [80, "http"],
        [443, "https"],
      ],
    ],
    [
      "by name",
      "http=http, https = https",
      [
        [80, "http"],
        [443, "https"],
      ],
    ],
    ["a port two protocols share, once", "53=tcp", [[53, "tcp"]]],
    ["nothing", "", []],
  ])("reads ports %s", (_, t, want) => {
    expect(entries(t)).toEqual(want as never);
  });

  test.each([
    [
      "a port the Service lacks",
      "8443=https",
      '"8443" is not a port of the Service; its ports are 80 (http), 443 (https), 53 (dns), 53 (dns-tcp)',
    ],
    ["a name the Service lacks", "metrics=http", '"metrics" is not a port of the Service; its ports are'],
    ["a pair without =", "80", '"80" is not port=value'],
    ["a bad value", "80=quic", '"80=quic": the value is not one of tcp, http, https'],
    ["a port given twice, by number and name", "80=http,http=tcp", "port 80 is given twice"],
  ])("refuses %s", (_, t, reason) => {
    expect(entries(t)).toContain(reason);
  });

  test("reports every bad pair at once", () => {
    expect(entries("80=quic,9000=http,443")).toBe(
      '"80=quic": the value is not one of tcp, http, https; "443" is not port=value; "9000" is not a port of the Service; its ports are 80 (http), 443 (https), 53 (dns), 53 (dns-tcp)',
    );
  });

  test("formats back and describes itself", () => {
    expect(perPort(bool()).format(new Map([[80, true]]))).toBe("80=true");
    expect(perPort(bool()).type).toBe("per-port bool");
  });
});

describe("port lists", () => {
  test.each([
    ["443,80", [443, 80]],
    ["https, http", [443, 80]],
    ["", []],
    ["8443", '"8443" is not a port of the Service; its ports are 80 (http), 443 (https), 53 (dns), 53 (dns-tcp)'],
    ["443,https", "port 443 is given twice"],
  ])("reads %p as %p", (t, want) => {
    const parsed = portList().parse(t, svc);
    expect(parsed.ok ? parsed.value : parsed.reason).toEqual(want);
  });

  test("a Service without ports has none to name", () => {
    const bare: Service = { metadata: { name: "bare" }, spec: {} };
    expect(portList().parse("80", bare)).toEqual({
      ok: false,
      reason: '"80" is not a port of the Service; its ports are none',
    });
  });
});
