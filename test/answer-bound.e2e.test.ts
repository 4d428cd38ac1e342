/**
 * The bound on one cloud answer, end to end: the compiled manager's sandbox provider against a cloud that answers
 * every call with 2 MiB. Under `--cloud-api-max-answer-mib=1` the answer is refused unread, naming the bound; the
 * node waits, uninitialised, and the manager keeps running.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import { type E2eApiServer, startE2eApiServer, tearDown } from "./support/apiserver.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

setDefaultTimeout(120_000);

const ANSWER_BYTES = 2 * 1024 * 1024;
let dir = "";
let kube: E2eApiServer | undefined;
let cloud: ReturnType<typeof Bun.serve> | undefined;
let cloudConfig = "";
let manager: RunningProcess | undefined;
const calls: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-answer-bound-"));
  kube = await startE2eApiServer(dir);
  const body = `{"machines": [], "padding": "${"x".repeat(ANSWER_BYTES)}"}`;
  cloud = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      calls.push(new URL(req.url).pathname);
      return new Response(body, { headers: { "content-type": "application/json" } });
    },
  });
  cloudConfig = join(dir, "cloud.yaml");
  await writeFile(cloudConfig, `url: http://127.0.0.1:${cloud.port}\ntoken: t\n`);
  await kube.client.create(Resources.nodes, {
    metadata: { name: "n1" },
    spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
  } satisfies Node);
}, 60_000);

afterAll(async () => {
  await cloud?.stop(true);
  await tearDown(manager, [kube?.api], dir);
});

describe("--cloud-api-max-answer-mib", () => {
  test("refuses a larger answer unread, naming the bound; the node waits uninitialised", async () => {
    const cmd = await managerCommand({ cloudConfig, kubeconfig: kube!.kubeconfig }, [
      "--controllers=cloud-node",
      "--cloud-api-max-answer-mib=1",
    ]);
    manager = spawnCollecting(cmd);
    await poll(() => manager!.output().includes("bytes one answer may hold"), {
      timeoutMs: 60_000,
      message: "the refused answer in the log",
    });
    expect(manager.output()).toContain(`more than the ${1024 * 1024} bytes one answer may hold`);
    expect(calls.length).toBeGreaterThan(0);
    const node = await kube!.client.get<Node>(Resources.nodes, "n1");
    expect((node.spec?.taints ?? []).map((t) => t.key)).toEqual([Taints.uninitialized]);
    expect(manager.proc.exitCode).toBeNull();
  });
});
