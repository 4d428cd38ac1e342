import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { type ApiServer, startApiServer } from "./server.ts";
import { ApiError } from "./status-errors.ts";

setDefaultTimeout(60_000);

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "apiserver-setup-"));
  server = await startApiServer({ tls: "self-signed", tokens: { "t-1": { user: "ccm" } }, bookmarkIntervalMs: 0 });
});
afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("listeners and kubeconfig", () => {
  test("serves HTTP and HTTPS on 127.0.0.1 random ports", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  test("the self-signed certificate verifies with the CA the server reports, and only with it", async () => {
    const withCa = await fetch(`${server.httpsUrl}/healthz`, { tls: { ca: server.caCert! } });
    expect([withCa.status, await withCa.text()]).toEqual([200, "ok"]);
    await expect(fetch(`${server.httpsUrl}/healthz`)).rejects.toThrow();
  });

  test("writes a kubeconfig with the HTTPS address, the CA and the user's token, mode 0600", async () => {
    const path = await server.writeKubeconfig(join(dir, "kubeconfig"));
    const text = await readFile(path, "utf8");
    const cfg = Bun.YAML.parse(text) as {
      clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      users: { name: string; user: { token: string } }[];
    };
    expect(cfg.clusters[0]!.cluster.server).toBe(server.httpsUrl!);
    expect(Buffer.from(cfg.clusters[0]!.cluster["certificate-authority-data"], "base64").toString()).toBe(
      server.caCert!,
    );
    expect(cfg.users[0]).toEqual({ name: "ccm", user: { token: "t-1" } });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(server.kubeconfig({ https: false })).toContain(`server: "${server.url}"`);
    expect(() => server.kubeconfig({ user: "nobody" })).toThrow("no token is configured for user nobody");
  });
});

describe("in-process store", () => {
  test("copies what goes in and what comes out", () => {
    const input: Node = { metadata: { name: "ip-1", labels: { a: "1" } } };
    const created = server.store.create(Resources.nodes, input);
    input.metadata!.labels!.a = "changed";
    created.metadata!.labels!.a = "changed";
    expect(server.store.get<Node>(Resources.nodes, "ip-1").metadata?.labels).toEqual({ a: "1" });
  });

  test("fails with the ApiError the HTTP layer would answer", () => {
    try {
      server.store.create(Resources.nodes, { metadata: { name: "ip-1" } });
      throw new Error("expected AlreadyExists");
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect([(err as ApiError).code, (err as ApiError).reason]).toEqual([409, "AlreadyExists"]);
    }
  });

  test("update, patch, list and delete share the HTTP semantics", () => {
    const n = server.store.get<Node>(Resources.nodes, "ip-1");
    server.store.update(Resources.nodes, { ...n, spec: { unschedulable: true } });
    expect(() => server.store.update(Resources.nodes, n)).toThrow(/the object has been modified/);
    server.store.patch(Resources.nodes, "ip-1", "strategic", { metadata: { finalizers: ["example.com/f"] } });
    expect(server.store.delete(Resources.nodes, "ip-1").deleted).toBe(false);
    const page = server.store.list<Node>(Resources.nodes, { fieldSelector: "metadata.name=ip-1" });
    expect(page.items[0]?.metadata?.deletionTimestamp).toBeString();
    expect(page.resourceVersion).toBe(server.store.resourceVersion);
  });
});
