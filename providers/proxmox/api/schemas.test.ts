import { describe, expect, test } from "bun:test";
import { parseSmbios1 } from "./schemas.ts";

describe("reading a VM's smbios1", () => {
  test.each([
    [
      "the peer's fixture: sku is base64 without base64=1",
      "uuid=AB-CD,sku=YzEubWVkaXVt",
      { uuid: "ab-cd", sku: "c1.medium" },
    ],
    ["base64=1, as Proxmox VE writes it", "uuid=ab-cd,base64=1,sku=bTEuc21hbGw=", { uuid: "ab-cd", sku: "m1.small" }],
    ["a sku that is not base64 is none", "uuid=ab-cd,sku=c1.medium", { uuid: "ab-cd" }],
    ["unpadded base64 is none, as Go's standard decoding refuses it", "sku=YzEubWVkaXVtMQ", {}],
    ["no sku", "uuid=ab-cd,base64=1", { uuid: "ab-cd" }],
    ["nothing", undefined, {}],
  ])("%s", (_, text, want) => {
    expect(parseSmbios1(text)).toEqual(want);
  });
});
