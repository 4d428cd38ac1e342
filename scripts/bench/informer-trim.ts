/**
 * What the informer caches' keep-lists save, in process: fills an informer store with N kubelet-shaped
 * Nodes (kube/testdata/kubelet-node.ts: ~30 images with digests, capacity, node info, conditions, managed fields),
 * parsed from one list body as they arrive from the API, once through the Node keep-list and once through the old
 * transform (the whole object less `managedFields`), each in a fresh child process, and prints the live heap per
 * Node after `Bun.gc(true)`. A benchmark, not a test:
 *
 *   npx bun scripts/bench/informer-trim.ts [--nodes=1000]
 */
import { heapStats } from "bun:jsc";
import { Resources } from "../../kube/client-types.ts";
import { cacheTransform, stripManagedFields } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { ObjectStore } from "../../kube/store.ts";
import { kubeletNode } from "../../kube/testdata/kubelet-node.ts";

type Mode = "trimmed" | "whole";

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/** Live bytes: the JS heap plus what JSC counts outside it (string buffers, array storage). */
function liveBytes(): number {
  Bun.gc(true);
  Bun.gc(true);
  const s = heapStats();
  return s.heapSize + s.extraMemorySize;
}

/** One mode, in this process: the growth of live bytes from an empty store to one holding `n` Nodes. */
function measure(mode: Mode, n: number): { perNode: number; total: number; jsonBytes: number } {
  const body = JSON.stringify({ items: Array.from({ length: n }, (_, i) => kubeletNode(`node-${i}`, i)) });
  const jsonBytes = body.length / n;
  const transform = mode === "trimmed" ? cacheTransform<Node>(Resources.nodes) : stripManagedFields<Node>;
  const before = liveBytes();
  const store = new ObjectStore<Node>();
  // As the reflector hands a page to the informer: parsed, transformed, the parsed originals dropped.
  store.replace((JSON.parse(body) as { items: Node[] }).items.map(transform));
  const after = liveBytes();
  if (store.keys().length !== n) throw new Error(`the store holds ${store.keys().length} nodes, not ${n}`);
  return { perNode: (after - before) / n, total: after - before, jsonBytes };
}

const child = arg("mode") as Mode | undefined;
const nodes = Number(arg("nodes") ?? "1000");
if (!Number.isInteger(nodes) || nodes < 1) {
  console.error(`--nodes must be a whole number of at least 1 (got "${arg("nodes")}"), e.g. --nodes=1000`);
  process.exit(2);
}

if (child) {
  console.log(JSON.stringify(measure(child, nodes)));
} else {
  const run = async (mode: Mode) => {
    const proc = Bun.spawn([process.execPath, import.meta.path, `--mode=${mode}`, `--nodes=${nodes}`], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error(`the ${mode} run failed`);
    return JSON.parse(out) as ReturnType<typeof measure>;
  };
  const whole = await run("whole");
  const trimmed = await run("trimmed");
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  console.log(`informer cache of ${nodes} kubelet-shaped Nodes (${kib(whole.jsonBytes)} of JSON each on the wire)`);
  console.log(`  whole (less managedFields): ${kib(whole.perNode)} per node, ${mib(whole.total)} in all`);
  console.log(`  keep-list (kube/trim.ts):   ${kib(trimmed.perNode)} per node, ${mib(trimmed.total)} in all`);
  console.log(
    `  saved: ${kib(whole.perNode - trimmed.perNode)} per node (${(whole.perNode / trimmed.perNode).toFixed(1)}× less)`,
  );
}
