/**
 * Entry point compiled into a standalone executable by compiled.test.ts: loads the kubeconfig named by the
 * first argument, lists nodes, and prints one JSON line, so the TLS behaviour of a compiled binary is tested,
 * not only that of `bun test`.
 */
import { createKubeClient } from "../client.ts";
import { KubeApiError, Resources } from "../client-types.ts";
import { loadTransport } from "../transport.ts";

const kubeconfig = process.argv[2] ?? "";
try {
  const transport = loadTransport({ kubeconfig, env: {} });
  const client = createKubeClient(transport, { qps: 5, burst: 10, userAgent: "tls-probe" });
  const list = await client.list(Resources.nodes);
  console.log(JSON.stringify({ ok: true, items: list.items.length }));
} catch (err) {
  const e = err as Partial<KubeApiError>;
  const apiError = err instanceof KubeApiError;
  console.log(
    JSON.stringify({
      ok: false,
      kubeApiError: apiError,
      status: e.status,
      reason: e.reason,
      code: e.code,
      message: e.message,
    }),
  );
  process.exitCode = 1;
}
