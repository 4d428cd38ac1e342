/**
 * By hand:
 *
 *   bun scripts/real-apiserver/cli.ts build              # install with apt and build once (cached), print the path
 *   bun scripts/real-apiserver/cli.ts start [--dir=D]    # run etcd + kube-apiserver until Ctrl-C; prints the kubeconfig
 *   bun scripts/real-apiserver/cli.ts stop --dir=D       # stop the processes a `start --dir=D` left running
 *
 * `start` needs root the first time (apt-get); see build.ts and server.ts.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ensureKubeApiserver } from "./build.ts";
import { startRealApiServer } from "./server.ts";

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { dir: { type: "string" } },
});
const log = (line: string) => console.error(`real-apiserver: ${line}`);

switch (positionals[0]) {
  case "build": {
    console.log(await ensureKubeApiserver(log));
    break;
  }
  case "start": {
    const binary = await ensureKubeApiserver(log);
    const started = performance.now();
    const server = await startRealApiServer({ binary, ...(values.dir ? { dir: resolve(values.dir) } : {}) });
    log(`ready in ${((performance.now() - started) / 1000).toFixed(1)}s at ${server.url}`);
    console.log(`export KUBECONFIG=${server.kubeconfig}`);
    log(`Ctrl-C (or \`stop --dir=${server.dir}\`) stops it`);
    await Promise.race([
      server.exited,
      new Promise<void>((done) => {
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
      }),
    ]);
    await server.stop();
    break;
  }
  case "stop": {
    if (!values.dir) throw new Error("stop needs --dir, the folder `start` printed");
    const pids = (await readFile(join(resolve(values.dir), "pids"), "utf8")).split("\n").filter(Boolean).map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    break;
  }
  default:
    console.error("usage: bun scripts/real-apiserver/cli.ts build | start [--dir=D] | stop --dir=D");
    process.exit(2);
}
