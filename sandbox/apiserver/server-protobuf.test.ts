import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { emulatorPerFile, type Json } from "./testing.ts";

setDefaultTimeout(60_000);

const emulator = emulatorPerFile();

describe("protobuf bodies over HTTP", () => {
  // As kubectl 1.32.4 sent them (`kubectl -v=9` prints the bytes).
  const KUBECTL_CREATE_CONFIGMAP =
    "6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a02706212001a0022002a0032003800420012060a01611201621a002200";
  const KUBECTL_CREATE_NAMESPACE =
    "6b3873000a0f0a02763112094e616d657370616365121c0a140a0470626e7312001a0022002a0032003800420012001a020a001a002200";
  const POD = "6b3873000a090a027631120350 6f641200".replace(/\s/g, "");

  const post = async (path: string, hex: string): Promise<{ status: number; type: string | null; body: Json }> => {
    const r = await fetch(`${emulator.server.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/vnd.kubernetes.protobuf",
        accept: "application/vnd.kubernetes.protobuf,application/json",
      },
      body: Buffer.from(hex, "hex"),
    });
    return { status: r.status, type: r.headers.get("content-type"), body: await r.json() };
  };

  test.each([
    {
      name: "`kubectl create configmap pb --from-literal=a=b`",
      path: "/api/v1/namespaces/default/configmaps",
      hex: KUBECTL_CREATE_CONFIGMAP,
      want: { kind: "ConfigMap", metadata: { name: "pb", namespace: "default" }, data: { a: "b" } },
    },
    {
      name: "`kubectl create namespace pbns`",
      path: "/api/v1/namespaces",
      hex: KUBECTL_CREATE_NAMESPACE,
      want: { kind: "Namespace", metadata: { name: "pbns" }, status: { phase: "Active" } },
    },
  ])("$name is created and answered in JSON", async ({ path, hex, want }) => {
    const r = await post(path, hex);
    expect(r.status).toBe(201);
    expect(r.type).toBe("application/json");
    expect(r.body).toMatchObject(want);
  });

  test("a protobuf DeleteOptions body's preconditions are checked", async () => {
    await emulator.api.post("/api/v1/namespaces/default/configmaps", { metadata: { name: "pb-del" } });
    // DeleteOptions{preconditions: {uid: "nope"}} in its runtime.Unknown envelope.
    const body = Buffer.from("6b3873000a130a027631120d44656c6574654f7074696f6e73120812060a046e6f7065", "hex");
    const r = await fetch(`${emulator.server.url}/api/v1/namespaces/default/configmaps/pb-del`, {
      method: "DELETE",
      headers: { "content-type": "application/vnd.kubernetes.protobuf" },
      body,
    });
    expect(r.status).toBe(409);
    expect(((await r.json()) as Json).message).toContain("Precondition failed: UID in precondition: nope");
    expect((await emulator.api.del("/api/v1/namespaces/default/configmaps/pb-del")).status).toBe(200);
  });

  test("a Pod body in protobuf is 415 naming the kind", async () => {
    const r = await post("/api/v1/namespaces/default/pods", POD);
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
    expect(r.body.message).toContain("cannot decode objects of kind Pod (apiVersion v1) from protobuf");
  });
});
