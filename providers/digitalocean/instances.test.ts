import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { type Harness, startHarness } from "../../sandbox/digitalocean/testing.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { doProvider } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
const node = (name: string, providerID?: string): Node => ({
  metadata: { name },
  spec: providerID === undefined ? {} : { providerID },
});

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

async function instances() {
  const provider = await doProvider(h);
  if (!provider.instancesV2) throw new Error("no instancesV2");
  return provider.instancesV2;
}

describe("digitalocean instances", () => {
  test("answers DO CCM's metadata for a Droplet found by name: provider ID, size, region, addresses", async () => {
    const id = h.droplet({ name: "node-1", region: "fra1", size: "s-2vcpu-4gb" });
    const d = h.emulator.world.droplets.get(id);
    const metadata = await (await instances()).instanceMetadata(ctx, node("node-1"));
    expect(metadata).toEqual({
      providerID: `digitalocean://${id}`,
      instanceType: "s-2vcpu-4gb",
      region: "fra1",
      zone: "",
      nodeAddresses: [
        { type: "Hostname", address: "node-1" },
        { type: "InternalIP", address: d?.privateV4 ?? "" },
        { type: "ExternalIP", address: d?.publicV4 ?? "" },
        { type: "ExternalIP", address: d?.publicV6 ?? "" },
      ],
    });
  });

  test("finds a Droplet by provider ID whatever its name", async () => {
    const id = h.droplet({ name: "renamed" });
    const i = await instances();
    expect((await i.instanceMetadata(ctx, node("node-1", `digitalocean://${id}`)))?.providerID).toBe(
      `digitalocean://${id}`,
    );
    expect(i.instanceMetadata(ctx, node("node-1"))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  test("a Droplet that is off exists and is shut down", async () => {
    const id = h.droplet({ name: "node-1", status: "off" });
    const i = await instances();
    expect(await i.instanceExists(ctx, node("node-1", `digitalocean://${id}`))).toBe(true);
    expect(await i.instanceShutdown(ctx, node("node-1", `digitalocean://${id}`))).toBe(true);
  });

  test("a Droplet the API answers 404 for is gone; metadata throws InstanceNotFoundError unwrapped", async () => {
    const i = await instances();
    expect(await i.instanceExists(ctx, node("node-1", "digitalocean://4242"))).toBe(false);
    expect(i.instanceMetadata(ctx, node("node-1"))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  test("an API failure is no answer: the Node is not called gone", async () => {
    const id = h.droplet({ name: "node-1" });
    const i = await instances();
    await h.call("PUT", "/_emulator/faults", {
      failNext: [{ pathPrefix: "/droplets", id: "server_error", count: 10 }],
    });
    expect(i.instanceExists(ctx, node("node-1", `digitalocean://${id}`))).rejects.toThrow(/instanceExists/);
  });

  test("a provider ID of another cloud is an error, never gone", async () => {
    expect((await instances()).instanceExists(ctx, node("node-1", "hcloud://1"))).rejects.toThrow(/digitalocean:\/\//);
  });

  test("the bulk form answers every Node from one paged listing", async () => {
    const ids = Array.from({ length: 250 }, (_, n) => h.droplet({ name: `node-${n}` }));
    const i = await instances();
    const nodes = [node("node-0"), node("node-249", `digitalocean://${ids[249]}`), node("missing")];
    const result = await i.instanceMetadataBulk?.(ctx, nodes);
    expect(result?.get("node-0")?.metadata.providerID).toBe(`digitalocean://${ids[0]}`);
    expect(result?.get("node-249")?.shutdown).toBe(false);
    expect(result?.has("missing")).toBe(false);
    expect(h.emulator.calls.count("GET /v2/droplets")).toBe(2);
  });
});
